// The gate never touches the verdict: a credential that spells a word of the suite's own vocabulary
// is taken, masked only in what came from outside; the status, outcome and exit code stay what
// the target earned, and the reports keep their own words. An unknown status never reads as a pass.
import { readerDocument } from '../../src/verdict/reader';
import http from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { liveVerdict } from '../../src/cli/certificate/live';
import { loadRun } from '../../src/cli/compare';
import { ConsoleReporter } from '../../src/cli/reporters/console';
import { renderHtml } from '../../src/cli/reporters/html';
import { renderSummary } from '../../src/cli/reporters/summary';
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { Redactor } from '../../src/harness/redact';
import { notSelected, runChecks } from '../../src/harness/runner';
import { ConfigError, loadConfig } from '../../src/cli/config';
import { Egress } from '../../src/cli/egress';
import { writeReports } from '../../src/cli/write-reports';
import { decide, decideOutcome, judge } from '../../src/verdict/outcome';
import { RESULTS_SCHEMA_VERSION } from '../../src/verdict/document';
import { statusLine } from '../../src/verdict/status';
import type { CheckResult } from '../../src/harness/runner';
import { checkResult, FULL_SCOPE, judged, runDocument } from '../support/documents';
import { buildRunDocument } from '../../src/verdict/build-document';
import { validateRef } from '../../src/harness/schemas';
import { closeServer, listenLoopback } from '../support/loopback';
import { testCheckMeta, testRunEnv } from '../support/runs';
import { storedRootCauses } from '../../src/action/messages';

/** The values of the attack: each a piece of a status word, a field name or a JSON literal. */
/** results.json as the run builds it (buildRunDocument: masking, scope, the run's facts) from these results. */
function builtDocument(
  cfg: ReturnType<typeof loadConfig>,
  results: CheckResult[],
  redactor: Redactor,
  facts: Pick<Parameters<typeof buildRunDocument>[0], 'stopped' | 'unreachable'> = {},
) {
  const run = { suite: { name: 'tokenized-stocks-conformance', version: '0.0.0' }, cfg, target: { baseUrl: cfg.baseUrl, rpcUrl: cfg.rpcUrl } };
  return buildRunDocument({ ...run, startedAt: new Date(0), finishedAt: new Date(1), results: results.map(judged), ...facts }, redactor);
}

const VOCABULARY_SECRETS = [
  'fail',
  'failed',
  'aile',
  'iled',
  'exitCode',
  'false',
  'passed',
  'conformant',
  'required',
  'outcome',
  'effect',
  'fails-run',
  'headline',
  'rootCauses',
  'incomplete',
  'blocked',
  'null',
];

let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((req, res) => res.setHeader('content-type', 'application/json').end(`{"echo":"the target said failed and passed"}`));
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));

describe('a credential that spells the suite’s own words is taken, and masked only in what came from outside', () => {
  it.each(VOCABULARY_SECRETS)('--secret %s is accepted at configuration', (secret) => {
    expect(loadConfig(['--secret', secret], {}).secrets).toEqual([secret]);
  });

  it('a value shorter than 4 characters is still refused (exit 2), never quoted', () => {
    expect(() => loadConfig(['--secret', 'abc'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--secret', 'abc'], {})).toThrow(/value not shown/);
  });

  it.each(['true', 'passed', 'testcase', 'rpc.'])(
    'registered as %s (a URL key, a header token, a --secret), the written reports keep every word of their own: results.json parses, junit.xml has its tests',
    (secret) => {
      const gate = new Egress(
        new Redactor()
          .addUrl(`http://127.0.0.1:1/?apikey=${secret}`)
          .addHeaders({ Authorization: `Bearer ${secret}` })
          .add(secret),
      );
      const dir = mkdtempSync(path.join(tmpdir(), 'reports-'));
      writeReports(runDocument([checkResult('rpc.a', 'failed', { cause: 'violation', violated: ['4.5.1'] })], FULL_SCOPE), dir, { gate });
      const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as { status: string; checks: Array<{ id: string }> };
      expect(results.status).toBe('non-conformant');
      expect(results.checks[0].id).toBe('rpc.a');
      expect(readFileSync(path.join(dir, 'junit.xml'), 'utf8')).toContain('<testcase');
    },
  );
});

describe('masking never reaches the verdict', () => {
  it('an unknown status fails closed: never passed', () => {
    for (const status of ['***', '***ed', '', 'PASSED'] as never[]) {
      expect(decideOutcome({ status, level: 'required' })).not.toBe('passed');
      expect(decideOutcome({ status, level: 'advisory' })).not.toBe('passed');
    }
  });

  it.each(VOCABULARY_SECRETS)(
    'registered straight on the redactor, %s changes no status or outcome of a failing check (its reason is masked)',
    async (secret) => {
      const redactor = new Redactor().add(secret);
      const checks = [
        check(testCheckMeta('bad'), async ({ rest }) => {
          const echoed = await rest.get('/v1/tokenized-stocks');
          fail(`the target answered ${JSON.stringify(echoed.json)}`, { violated: ['4.1.1'], expected: 'passed', actual: 'failed' });
        }),
      ];
      const [r] = await runChecks(checks, testRunEnv(url, { redactor }), { concurrency: 1 });
      expect(r).toMatchObject({ id: 'rest.test.bad', status: 'failed', level: 'required', cause: 'violation', violated: ['4.1.1'], statements: ['4.1.1'] });
      expect(judge(r).outcome).toBe('failed');
    },
  );

  it.each(VOCABULARY_SECRETS)('results.json built with %s registered: still non-conformant, exit 1, and valid against its schema', (secret) => {
    const redactor = new Redactor().add(secret);
    const cfg = loadConfig(['--base-url', 'http://127.0.0.1:1', '--rpc-url', 'http://127.0.0.1:1'], {});
    const failing = {
      ...testCheckMeta('bad'),
      section: '4.1',
      status: 'failed' as const,
      cause: 'violation' as const,
      reason: 'failed: passed',
      violated: ['4.1.1'],
      durationMs: 1,
      exchanges: [],
      exchangeCount: 0,
    };
    const passing = { ...testCheckMeta('good'), section: '4.1', status: 'passed' as const, reason: '', durationMs: 1, exchanges: [], exchangeCount: 0 };
    const doc = builtDocument(cfg, [failing, passing], redactor);
    expect([doc.status, doc.exitCode, doc.checks.map((c) => [c.status, c.outcome])]).toEqual([
      'non-conformant',
      1,
      [
        ['failed', 'failed'],
        ['passed', 'passed'],
      ],
    ]);
    expect(doc.checks[0].reason).not.toMatch(new RegExp(secret, 'i'));
    expect(validateRef('results.json', JSON.parse(JSON.stringify(doc))).errors).toEqual([]);
  });

  it('an interface no selected check needs is outside the verdict: its URL down is no failure (--only rest beside an RPC_URL)', () => {
    const cfg = loadConfig(['--base-url', 'http://127.0.0.1:1', '--rpc-url', 'http://127.0.0.1:1', '--only', 'rest'], {});
    const passing = { ...testCheckMeta('good'), section: '4.1', status: 'passed' as const, reason: '', durationMs: 1, exchanges: [], exchangeCount: 0 };
    const rpcMeta = { ...testCheckMeta('rpc-one', { needs: ['rpc'] }), id: 'rpc.test.one', section: '4.1' };
    const build = (rpcCheck: CheckResult) =>
      builtDocument(cfg, [passing, rpcCheck], new Redactor(), { unreachable: { rpc: 'POST http://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1' } });
    const outside = build(notSelected(rpcMeta, { flag: '--only', words: '--only rest' }));
    expect([outside.status, outside.exitCode, outside.rootCauses, outside.unreachable, outside.scope.interfaces]).toEqual([
      'conformant',
      0,
      [],
      undefined,
      ['rest'],
    ]);
    // The same interface down with a check of it selected: one root, the run fails.
    const prejudged = {
      ...rpcMeta,
      status: 'failed' as const,
      cause: 'unreachable' as const,
      unreachable: 'rpc' as const,
      reason: 'target unreachable',
      durationMs: 0,
      exchanges: [],
      exchangeCount: 0,
    };
    const inside = build({ ...prejudged, blocker: { unreachable: 'rpc' } });
    expect([inside.status, inside.exitCode, inside.rootCauses.map((r) => r.id)]).toEqual(['non-conformant', 1, ['target unreachable: rpc']]);
  });

  it("the run's facts as results.json states them are masked too: the --grep pattern, the abort reason, an unreachable interface's error (headline and root cause included), another sample's failure", () => {
    // Report files are written as rendered (write-reports.ts): what is not masked here goes out.
    const secret = 'sk_live_4f9a8b7c6d5e';
    const redactor = new Redactor().add(secret);
    const cfg = { ...loadConfig(['--base-url', 'http://127.0.0.1:1', '--rpc-url', 'http://127.0.0.1:1'], {}), grep: new RegExp(`rest|${secret}`) };
    // It needs the interface found unreachable too: in scope, so that interface is a root cause.
    const passing = {
      ...testCheckMeta('good', { needs: ['rest', 'rpc'] }),
      section: '4.1',
      status: 'passed' as const,
      reason: '',
      durationMs: 1,
      exchanges: [],
      exchangeCount: 0,
    };
    const doc = builtDocument(
      cfg,
      [
        passing,
        // A sampled failure keeps another sample's failure beside it: its words came from outside too.
        {
          ...passing,
          id: 'rest.test.sampled',
          status: 'failed' as const,
          cause: 'violation' as const,
          reason: 'bad',
          samples: { n: 2, judged: 2, failed: 2, notJudged: 0, shown: 0, failures: [{ sample: 1, reason: `answered ${secret}`, exchanges: [] }] },
        },
      ],
      redactor,
      {
        stopped: { by: 'deadline', reason: `run deadline reached waiting for /${secret}` },
        unreachable: { rpc: `POST http://127.0.0.1:1/${secret}: connect ECONNREFUSED` },
      },
    );
    expect([doc.status, doc.rootCauses.map((r) => r.id)]).toEqual(['non-conformant', ['rest.test.sampled', 'target unreachable: rpc']]);
    expect(JSON.stringify(doc)).not.toContain(secret);
  });
});

describe('each outcome with its effect, decided in one place', () => {
  const r = (status: string, over: Partial<CheckResult> = {}) => checkResult('rpc.x', status as CheckResult['status'], over);
  it.each<[string, CheckResult, string, string]>([
    ['a required failure', r('failed'), 'failed', 'fails-run'],
    ['an advisory failure', r('failed', { level: 'advisory' }), 'warning', 'none'],
    ['a pass', r('passed'), 'passed', 'none'],
    ['a skip', r('skipped', { cause: 'nothing-to-judge' }), 'skipped', 'none'],
    ['a required check throttled', r('inconclusive', { cause: 'throttled' }), 'not-judged', 'incomplete'],
    ['an advisory check throttled', r('inconclusive', { cause: 'throttled', level: 'advisory' }), 'not-judged', 'none'],
    ['a required check blocked by a root', r('inconclusive', { cause: 'blocked', blockedBy: 'rpc.root' }), 'blocked', 'incomplete'],
    [
      'a check of an unreachable interface: counted once, by the interface root',
      r('inconclusive', { cause: 'unreachable', unreachable: 'rpc' }),
      'not-judged',
      'none',
    ],
    [
      'the check standing in for an unreachable interface',
      r('failed', { cause: 'unreachable', unreachable: 'rpc', violated: ['4.5.1'] }),
      'failed',
      'fails-run',
    ],
    ['a cause outside the vocabulary (an interface-level cause to come)', r('inconclusive', { cause: 'credentials' as never }), 'not-judged', 'incomplete'],
    ['an unknown status on an advisory check: fails closed', r('***', { level: 'advisory' }), 'not-judged', 'incomplete'],
    ['an unknown level on a failure: read as required', r('failed', { level: '***' as never }), 'failed', 'fails-run'],
    [
      'an unknown level on a check not judged: read as required (keeps the run incomplete)',
      r('inconclusive', { cause: 'throttled', level: '***' as never }),
      'not-judged',
      'incomplete',
    ],
  ])('%s: %s, %s', (_what, result, outcome, effect) => {
    expect(decide(result)).toEqual({ outcome, effect });
    expect(judge(result)).toMatchObject({ outcome, effect });
  });

  it('a known failure and a stale expectation have no effect on the run', () => {
    const expectations = { expectations: [{ id: 'rpc.x', reason: 'known bug' }] };
    expect(judge(r('failed'), expectations)).toMatchObject({ outcome: 'known-failure', effect: 'none' });
    expect(judge(r('passed'), expectations)).toMatchObject({ outcome: 'stale-expectation', effect: 'none' });
  });

  it('an unknown status keeps the run from being conformant, whatever its level', () => {
    const d = runDocument([r('passed', { id: 'rpc.a' }), r('***', { id: 'rpc.b', level: 'advisory' })], FULL_SCOPE);
    expect([d.status, d.exitCode]).toEqual(['incomplete', 3]);
    // The headline and the reasons say the same: one check not judged, never "full scope" alone.
    expect(d.headline).toMatch(/^incomplete — 1 required check not judged/);
    expect(d.statusReasons).toEqual([expect.stringMatching(/^1 required check not judged/)]);
  });
});

describe('the run’s verdict stored once in results.json', () => {
  const r = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}) => checkResult(id, status, over);

  it('headline, root causes with their effect and the checks they cover, exit code, scope and the contract version', () => {
    const d = runDocument(
      [
        r('rpc.root', 'failed', { violated: ['4.5.1'] }),
        r('rpc.b1', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.root' }),
        r('rpc.b2', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.root' }),
        r('rpc.alone', 'failed'),
        r('rpc.slow', 'inconclusive', { cause: 'throttled' }),
        r('rpc.t1', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.slow' }),
        r('rpc.ok', 'passed'),
      ],
      FULL_SCOPE,
    );
    expect(d.schemaVersion).toBe(RESULTS_SCHEMA_VERSION);
    expect([d.status, d.exitCode]).toEqual(['non-conformant', 1]);
    expect(d.headline).toBe(statusLine(d));
    expect(d.rootCauses).toEqual(
      [
        { id: 'rpc.root', check: 'rpc.root', cause: undefined, reason: 'why rpc.root', effect: 'fails-run', checks: ['rpc.b1', 'rpc.b2'] },
        { id: 'rpc.alone', check: 'rpc.alone', cause: undefined, reason: 'why rpc.alone', effect: 'fails-run', checks: [] },
        { id: 'rpc.slow', check: 'rpc.slow', cause: 'throttled', reason: 'why rpc.slow', effect: 'incomplete', checks: ['rpc.t1'] },
      ].map((x) => JSON.parse(JSON.stringify(x))),
    );
    expect(d.checks.map((c) => [c.id, c.effect])).toEqual([
      ['rpc.root', 'fails-run'],
      ['rpc.b1', 'incomplete'],
      ['rpc.b2', 'incomplete'],
      ['rpc.alone', 'fails-run'],
      ['rpc.slow', 'incomplete'],
      ['rpc.t1', 'incomplete'],
      ['rpc.ok', 'none'],
    ]);
    expect(validateRef('results.json', JSON.parse(JSON.stringify(d))).errors).toEqual([]);
  });

  it('an unreachable interface is one root that fails the run; the checks it covers have no effect of their own', () => {
    const d = runDocument(
      [r('rpc.a', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }), r('rpc.b', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' })],
      FULL_SCOPE,
      { facts: { unreachable: { rpc: 'ECONNREFUSED' } } },
    );
    expect(d.rootCauses).toEqual([
      {
        id: 'target unreachable: rpc',
        interface: 'rpc',
        cause: 'unreachable',
        reason: 'ECONNREFUSED',
        effect: 'fails-run',
        checks: ['rpc.a', 'rpc.b'],
      },
    ]);
    expect(d.checks.map((c) => c.effect)).toEqual(['none', 'none']);
    expect([d.status, d.exitCode]).toEqual(['non-conformant', 1]);
  });

  it('every failed check names what it violated, within what it declares (a statement named but not declared is added, the failure stands)', () => {
    const d = runDocument([r('rpc.a', 'failed'), r('rpc.b', 'failed', { statements: ['4.5.1'], violated: ['4.2.1'] })], FULL_SCOPE);
    expect(d.checks.map((c) => [c.violated, c.statements, c.outcome])).toEqual([
      [['4.5.1'], ['4.5.1'], 'failed'],
      [['4.2.1'], ['4.5.1', '4.2.1'], 'failed'],
    ]);
    for (const c of d.checks) expect(c.violated!.every((s) => c.statements.includes(s))).toBe(true);
    // The schema requires violated on a failed check.
    const without = JSON.parse(JSON.stringify(d));
    delete without.checks[0].violated;
    expect(validateRef('results.json', without).errors.join('\n')).toMatch(/violated/);
  });
});

describe('readers take the stored verdict as it is', () => {
  const r = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}) => checkResult(id, status, over);

  it('verify-certificate --live has no model of its own: an advisory check failing now is a warning, exit 0, as in a fresh run', () => {
    const live = liveVerdict([r('rpc.a', 'passed'), r('rpc.advisory', 'failed', { level: 'advisory', violated: ['4.5.1'] })], FULL_SCOPE);
    const fresh = runDocument([r('rpc.a', 'passed'), r('rpc.advisory', 'failed', { level: 'advisory', violated: ['4.5.1'] })], FULL_SCOPE);
    expect([live.exitCode, live.failed.map((c) => c.id), live.warned.map((c) => c.id)]).toEqual([0, [], ['rpc.advisory']]);
    expect(live.exitCode).toBe(fresh.exitCode);
    // A required check failing now fails it (exit 1); one a run needs, not judged now, leaves it incomplete (exit 3).
    expect(liveVerdict([r('rpc.a', 'passed'), r('rpc.b', 'failed', { violated: ['4.5.1'] })], FULL_SCOPE).exitCode).toBe(1);
    expect(liveVerdict([r('rpc.a', 'passed'), r('rpc.b', 'inconclusive', { cause: 'throttled' })], FULL_SCOPE).exitCode).toBe(3);
  });

  it('compare refuses a results.json of another contract version, naming it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'contract-'));
    const d = runDocument([r('rpc.a', 'passed')], FULL_SCOPE);
    const write = (name: string, doc: unknown) => (writeFileSync(path.join(dir, name), JSON.stringify(doc)), path.join(dir, name));
    expect(loadRun(write('now.json', d)).schemaVersion).toBe(RESULTS_SCHEMA_VERSION);
    const { schemaVersion: _, ...older } = d;
    expect(() => loadRun(write('old.json', older))).toThrow(/contract 1 \(no schemaVersion\); this suite reads 2\./);
    expect(() => loadRun(write('next.json', { ...d, schemaVersion: '3.0.0' }))).toThrow(/contract "3\.0\.0"/);
  });
});

describe('status, exit line and exit code agree', () => {
  const r = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}) => checkResult(id, status, over);
  const stopped = { interrupted: 'run deadline of 10 ms reached', stoppedBy: 'deadline' as const };

  it.each<[string, CheckResult[], string, number]>([
    ['a run its deadline stopped is incomplete, exit 3', [r('rpc.a', 'passed'), r('rpc.b', 'inconclusive', { cause: 'stopped' })], 'incomplete', 3],
    [
      'unless a required check had already failed it: non-conformant, exit 1',
      [r('rpc.a', 'failed'), r('rpc.b', 'inconclusive', { cause: 'stopped' })],
      'non-conformant',
      1,
    ],
  ])('%s', (_what, checks, status, code) => {
    const d = runDocument(checks, FULL_SCOPE, { facts: stopped });
    expect([d.status, d.exitCode]).toEqual([status, code]);
    expect(d.headline).toMatch(new RegExp(`^${status} — run deadline of 10 ms reached: partial results`));
    const out: string[] = [];
    new ConsoleReporter({ isTTY: false, write: (s: string) => (out.push(s), true) }, checks.length, {}).finished(readerDocument(d), []);
    const text = out.join('');
    expect(text).toContain(`status: ${status} — `);
    expect(text).toContain(`exit ${code}: ${status} — `);
  });
});

describe('each root cause once, the checks it covers folded under it, then the independent failures', () => {
  const r = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}) => checkResult(id, status, over);
  // The independent failure comes first in the run; the root that covers checks is shown first all the same.
  const d = runDocument(
    [
      r('rpc.alone', 'failed'),
      r('rpc.root', 'failed'),
      r('rpc.b1', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.root' }),
      r('rpc.b2', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.root' }),
    ],
    FULL_SCOPE,
  );
  const before = (text: string, first: string, second: string) => {
    expect(text.indexOf(first)).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(first)).toBeLessThan(text.indexOf(second));
  };

  it('console, summary.md, report.html and the Action', () => {
    const out: string[] = [];
    new ConsoleReporter({ isTTY: false, write: (s: string) => (out.push(s), true) }, d.checks.length, {}).finished(readerDocument(d), []);
    const text = out.join('');
    before(text, '✗ rpc.root', '✗ rpc.alone');
    expect(text).toContain('blocked 2 check(s): rpc.b1, rpc.b2');
    // The covered checks are under their root, never listed again as not judged on their own.
    expect(text.match(/rpc\.b1/g)).toHaveLength(1);
    const summary = renderSummary(readerDocument(d));
    before(summary, '### ❌ `rpc.root`', '### ❌ `rpc.alone`');
    before(
      renderHtml(readerDocument(d)),
      'href="#check-rpc.root"><code>rpc.root</code></a> <span class="muted">',
      'href="#check-rpc.alone"><code>rpc.alone</code></a> <span class="muted">',
    );
    expect(storedRootCauses(readerDocument(d)).map((x) => [x.check?.id, x.covers])).toEqual([
      ['rpc.root', ['rpc.b1', 'rpc.b2']],
      ['rpc.alone', []],
    ]);
  });
});
