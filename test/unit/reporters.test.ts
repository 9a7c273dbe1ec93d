import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { readerCheck, readerDocument } from '../../src/verdict/reader';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadExpectations } from '../../src/cli/expectations';
import { countOutcomes, judge } from '../../src/verdict/outcome';
import { ConsoleReporter, useColor } from '../../src/cli/reporters/console';
import { renderHtml } from '../../src/cli/reporters/html';
import { renderJunit } from '../../src/cli/reporters/junit';
import { renderSummary } from '../../src/cli/reporters/summary';
import { escapeHtml, mdText, stripControls } from '../../src/cli/inert-text';
import { deriveScope, type ScopeFacts } from '../../src/verdict/scope';
import { deriveStatus, EXIT_CODES_HELP, exitCodeFor, exitWords, statusLine, type RunFacts } from '../../src/verdict/status';
import type { RunDocument } from '../../src/verdict/document';
import { decideRoots } from '../../src/verdict/root-causes';
import type { Judged } from '../../src/verdict/outcome';
import { buildStatement } from '../../src/cli/certificate/statement';
import { latencyOf, readTimeline } from '../../src/cli/reporters/metrics';
import type { Timeline } from '../../src/harness/preconf/pass';
import { latencyBounds, percentiles, POLL_INTERVAL_MS, SPEC_REFRESH_MS, type Percentiles } from '../../src/harness/preconf/timing';
import { runChecks, type CheckResult } from '../../src/harness/runner';
import { check } from '../../src/harness/check';
import { expectSameId } from '../../src/harness/expect';
import { Redactor } from '../../src/harness/redact';
import { CAUSES, SCOPE_FLAGS, type ScopeFlag } from '../../src/harness/verdict';
import { validateRef } from '../../src/harness/schemas';
import { THROTTLE_HINT } from '../../src/harness/credentials';
import { EMPTY_LIST } from '../../src/harness/records';
import { checkResult, judged as withOutcome, runDocument, FULL_SCOPE } from '../support/documents';

/** The run's status from judged results, their root causes decided first (as sealVerdict does). */
const statusOf = (checks: Judged[], facts: RunFacts) => deriveStatus(decideRoots(checks, facts), facts);
import { rootHints } from '../../src/action/messages';

/** A failing check's reason carries markup and a control character: every reporter must render it inert. */
const result = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}): CheckResult =>
  checkResult(id, status, { reason: status === 'passed' ? '' : `why ${id} <&> "\u0000"`, ...over });

/** Skipped by the user's choice of scope: the flag, in the runner's words. */
const leftOut = (flag: ScopeFlag, words = `no ${flag}`): Partial<CheckResult> => ({ cause: 'out-of-scope', outOfScope: { flag, words } });
/** Left out by --only or --grep. */
const deselected = (flag: '--only' | '--grep', words: string): Partial<CheckResult> => ({
  cause: 'deselected',
  reason: `not selected (${words})`,
  outOfScope: { flag, words },
});

const FULL = FULL_SCOPE;

function doc(checks: CheckResult[], facts: RunFacts = {}, scope: ScopeFacts = FULL): RunDocument {
  return runDocument(checks, scope, { facts, suite: { name: 's', version: '0' } });
}

/** A writable stream stand-in that records what was written. */
function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { stream: { isTTY, write: (s: string) => (chunks.push(s), true) }, text: () => chunks.join('') };
}

describe('run status: derived once, every branch', () => {
  const expected = (id: string, status: CheckResult['status']) => judge(result(id, status), { expectations: [{ id, reason: 'known bug' }] });
  it.each<[string, CheckResult[], RunFacts, string, number]>([
    ['every required check judged and passed', [result('rpc.a', 'passed'), result('rpc.b', 'passed')], {}, 'conformant', 0],
    [
      'advisory failures and advisory inconclusive results leave it conformant',
      [result('rpc.a', 'passed'), result('rpc.b', 'failed', { level: 'advisory' }), result('rpc.c', 'inconclusive', { level: 'advisory' })],
      {},
      'conformant',
      0,
    ],
    [
      'skipped checks (nothing to judge, or out of scope) are neutral',
      [result('rpc.a', 'passed'), result('rpc.b', 'skipped'), result('preconf.c', 'skipped', leftOut('--signer-key'))],
      {},
      'conformant',
      0,
    ],
    ['an expected failure is covered', [result('rpc.a', 'passed'), expected('rpc.b', 'failed')], {}, 'conformant', 0],
    ['a required failure', [result('rpc.a', 'failed'), result('rpc.b', 'passed')], {}, 'non-conformant', 1],
    ['an expected failure that passes: a stale expectation is news, the target passed', [expected('rpc.a', 'passed')], {}, 'conformant', 0],
    [
      'an unreachable target (probe)',
      [result('rpc.a', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' })],
      { unreachable: { rpc: 'ECONNREFUSED' } },
      'non-conformant',
      1,
    ],
    [
      'an unreachable target named only by blocked checks',
      [result('rest.a', 'inconclusive', { cause: 'unreachable', unreachable: 'rest' })],
      {},
      'non-conformant',
      1,
    ],
    ['a failure outranks what was not judged', [result('rpc.a', 'failed'), result('rpc.b', 'inconclusive')], {}, 'non-conformant', 1],
    [
      'a required check inconclusive (throttled)',
      [result('rpc.a', 'passed'), result('rpc.b', 'inconclusive', { cause: 'throttled', reason: 'throttled: HTTP 429 three times' })],
      {},
      'incomplete',
      3,
    ],
    [
      'a required check blocked by an inconclusive prerequisite',
      [result('rest.list', 'inconclusive', { cause: 'throttled' }), result('rest.b', 'inconclusive', { cause: 'blocked', blockedBy: 'rest.list' })],
      {},
      'incomplete',
      3,
    ],
    [
      "a check's own error",
      [result('rpc.a', 'inconclusive', { cause: 'internal', reason: 'internal error in check (not a verdict): TypeError' })],
      {},
      'incomplete',
      3,
    ],
    [
      'interrupted by a signal: incomplete, exit 130',
      [result('rpc.a', 'passed'), result('rpc.b', 'skipped', { cause: 'stopped', reason: 'not run: interrupted by SIGINT' })],
      { interrupted: 'interrupted by SIGINT', stoppedBy: 'signal' },
      'incomplete',
      130,
    ],
    [
      'interrupted with a failure: non-conformant, still exit 130',
      [result('rpc.a', 'failed')],
      { interrupted: 'interrupted by SIGTERM', stoppedBy: 'signal' },
      'non-conformant',
      130,
    ],
    [
      'the deadline passed: incomplete, exit 3 (status, exit line and exit code agree)',
      [result('rpc.a', 'passed'), result('rpc.b', 'inconclusive', { cause: 'stopped', reason: 'stopped: run deadline of 10 ms reached' })],
      { interrupted: 'run deadline of 10 ms reached', stoppedBy: 'deadline' },
      'incomplete',
      3,
    ],
    [
      'the deadline passed after a required check failed: non-conformant, exit 1',
      [result('rpc.a', 'failed'), result('rpc.b', 'inconclusive', { cause: 'stopped', reason: 'stopped: run deadline of 10 ms reached' })],
      { interrupted: 'run deadline of 10 ms reached', stoppedBy: 'deadline' },
      'non-conformant',
      1,
    ],
    [
      'the deadline passed after every selected check was judged: still incomplete, exit 3 (a stopped run is never conformant)',
      [result('rpc.a', 'passed'), result('rest.b', 'passed')],
      { interrupted: 'run deadline of 10 ms reached', stoppedBy: 'deadline' },
      'incomplete',
      3,
    ],
  ])('%s', (_what, checks, facts, status, code) => {
    const d = statusOf(checks.map(withOutcome), facts);
    expect(d.status).toBe(status);
    expect(exitCodeFor(d.status, facts)).toBe(code);
    expect(d.reasons.length > 0).toBe(status !== 'conformant');
  });

  it('says why in words', () => {
    const { reasons } = statusOf(
      [
        result('rpc.ok', 'passed'),
        result('rpc.a', 'inconclusive', { cause: 'throttled' }),
        result('rpc.b', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.x' }),
        result('rpc.c', 'inconclusive', { cause: 'stopped' }),
        result('rpc.d', 'inconclusive', { cause: 'internal' }),
        result('rpc.e', 'inconclusive', { cause: 'timeout' }),
        result('rpc.f', 'inconclusive', { cause: 'ambiguous' }),
      ].map(withOutcome),
      {},
    );
    expect(reasons).toEqual([
      "6 required checks not judged (throttled: 1, blocked by a prerequisite: 1, the run stopped first: 1, the check's own error: 1, did not finish in time: 1, inconclusive: 1)",
    ]);
  });
});

describe('a hint is shown apart from the reason, in every report', () => {
  it('summary.md and report.html put the hint of a root cause on its own line', () => {
    const d = doc([
      result('rpc.root', 'failed', { hint: 'run with --profile public' }),
      result('rpc.b', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.root' }),
    ]);
    expect(renderSummary(readerDocument(d))).toContain('\n→ run with --profile public\n');
    expect(renderHtml(readerDocument(d))).toContain('<div class="hint">→ run with --profile public</div>');
  });
});

describe("an interface's root says what to do about it once, in every report", () => {
  it('throttled on every call: one root with the --max-rps hint, said once by the console, summary.md and report.html', () => {
    const d = doc(
      Array.from({ length: 12 }, (_, i) =>
        result(`rpc.c${i}`, 'inconclusive', { cause: 'throttled', interface: 'rpc', reason: 'throttled', hint: THROTTLE_HINT }),
      ),
    );
    expect(d.rootCauses).toHaveLength(1);
    const out = sink(false);
    new ConsoleReporter(out.stream, d.checks.length, {}).finished(readerDocument(d), []);
    const once = (text: string) => text.split("--max-rps N below your plan's limit").length - 1;
    expect(once(out.text())).toBe(1);
    expect(once(renderSummary(readerDocument(d)))).toBe(1);
    expect(once(renderHtml(readerDocument(d)))).toBe(1);
    // The Action's warning for an incomplete run carries it too (read from the stored roots).
    expect(rootHints(d)).toEqual([THROTTLE_HINT]);
  });
});

describe('rewording a reason changes nothing: status, scope and root causes read the facts', () => {
  // One result of every cause, with the words the runner gives today.
  const results = (): CheckResult[] => [
    result('rest.list.status-200', 'failed', { needs: ['rest'], cause: 'violation', reason: 'expected HTTP 200, got 500' }),
    result('rest.token.a', 'inconclusive', {
      needs: ['rest'],
      cause: 'blocked',
      blockedBy: 'rest.list.status-200',
      reason: 'blocked by rest.list.status-200: …',
    }),
    result('rpc.envelope.http-200', 'failed', { cause: 'unreachable', unreachable: 'rpc', reason: 'target unreachable: ECONNREFUSED' }),
    result('rpc.b', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc', reason: 'blocked by target unreachable: rpc: …' }),
    result('rpc.c', 'inconclusive', { cause: 'throttled', reason: 'throttled: HTTP 429 Too Many Requests' }),
    result('rpc.d', 'inconclusive', { cause: 'stopped', reason: 'stopped: interrupted by SIGINT' }),
    result('rpc.e', 'inconclusive', { cause: 'internal', reason: 'internal error in check (not a verdict): TypeError' }),
    result('rpc.f', 'inconclusive', { cause: 'timeout', reason: 'check did not finish within 100 ms' }),
    result('rpc.g', 'inconclusive', { cause: 'ambiguous', reason: 'sealed mid-check' }),
    result('rpc.h', 'failed', { cause: 'transport', reason: 'no answer: ECONNRESET' }),
    result('rpc.i', 'skipped', { cause: 'nothing-to-judge', reason: 'the list is empty' }),
    result('rpc.old', 'skipped', { ...leftOut('--archive'), reason: 'node keeps no state this old' }),
    result('rest.nav', 'skipped', { level: 'advisory', needs: ['rest'], ...leftOut('--nav-max-age'), reason: 'no --nav-max-age given' }),
    result('rpc.pub', 'skipped', {
      needs: ['rpc', 'profile:public'],
      ...leftOut('--profile', 'profile dedicated'),
      reason: 'applies to --profile public only',
    }),
    result('preconf.x', 'skipped', { needs: ['rpc', 'signer'], ...deselected('--only', '--only rest,rpc,cross') }),
    result('cross.y', 'skipped', { needs: ['rest', 'rpc'], ...deselected('--grep', '--grep ^r') }),
  ];
  // Words that once decided a status or a scope, now on the wrong results.
  const BAIT = [
    'throttled: rate limit 429',
    'stopped: by SIGTERM',
    'internal error in check',
    'target unreachable: rest',
    '--only rest',
    '--grep x',
    'profile public',
    'no --signer-key',
    '(advisory) no --openapi',
    '',
  ];
  const reworded = (how: (r: CheckResult, i: number) => string) =>
    results().map((r, i) => ({ ...r, reason: how(r, i), ...(r.outOfScope ? { outOfScope: { ...r.outOfScope, words: how(r, i + 1) } } : {}) }));
  const facts: RunFacts = { unreachable: { rpc: 'ECONNREFUSED' } };
  const scopeFacts: ScopeFacts = { ...FULL, only: ['rest', 'rpc', 'cross'], grep: /^r/ };
  const judged = (checks: CheckResult[]) => {
    const scope = deriveScope(checks, scopeFacts);
    return {
      status: statusOf(checks.map(withOutcome), facts),
      scope: { ...scope, leftOut: scope.leftOut.map(({ flag, limits }) => ({ flag, limits })), notJudged: undefined },
      roots: decideRoots(checks.map(withOutcome), facts).roots.map(({ id, unreachable, failsRun, blocked }) => ({ id, unreachable, failsRun, blocked })),
      outcomes: checks.map((r) => withOutcome(r).outcome),
    };
  };

  it.each<[string, (r: CheckResult, i: number) => string]>([
    ['scrambled', () => 'lorem ipsum'],
    ['misleading', (_r, i) => BAIT[i % BAIT.length]],
    ['swapped between results', (_r, i) => results()[(i + 5) % results().length].reason],
  ])('%s reasons', (_how, how) => {
    const before = judged(results());
    expect(judged(reworded(how))).toEqual(before);
    // The same facts as before, whatever the words: an unreachable interface and a failure fail the run.
    expect(before.status.status).toBe('non-conformant');
    expect(before.scope.leftOut.map((l) => l.flag)).toEqual(['--only', '--grep', '--archive', '--nav-max-age', '--profile']);
  });

  it.each<[string, CheckResult[]]>([
    [
      'every check skipped (a selection or scope that left nothing to judge)',
      [result('rest.openapi.a', 'skipped', leftOut('--openapi')), result('rest.openapi.b', 'skipped', leftOut('--openapi'))],
    ],
    ['only advisory checks judged', [result('rpc.a', 'passed', { level: 'advisory' }), result('rpc.b', 'skipped')]],
    ['no check at all', []],
  ])('nothing judged is never a pass: %s -> incomplete, exit 3', (_what, checks) => {
    const d = statusOf(checks.map(withOutcome), {});
    expect([d.status, exitCodeFor(d.status, {})]).toEqual(['incomplete', 3]);
    expect(d.reasons.at(-1)).toMatch(/^nothing judged: no required check came to a verdict/);
  });

  it('--require full: a scope that is not full is incomplete (exit 3); the default judges what it could', () => {
    const checks = [
      result('rest.a', 'passed', { needs: ['rest'] }),
      result('rpc.b', 'skipped', leftOut('--rpc-url')),
      result('preconf.c', 'skipped', { needs: ['rpc', 'signer'], ...leftOut('--rpc-url') }),
    ];
    const facts: ScopeFacts = { ...FULL, rpcUrl: undefined };
    const lenient = doc(checks, {}, facts);
    expect([lenient.scope.required, lenient.status, lenient.exitCode]).toEqual(['none', 'conformant', 0]);
    const strict = doc(checks, {}, { ...facts, required: 'full' });
    expect([strict.scope.required, strict.status, strict.exitCode]).toEqual(['full', 'incomplete', 3]);
    expect(strict.statusReasons).toEqual(['--require full: JSON-RPC interface not judged (no --rpc-url)']);
    const full = doc(
      [...checks.slice(0, 1), result('rpc.b', 'passed'), result('preconf.c', 'passed', { needs: ['rpc', 'signer'] })],
      {},
      { ...FULL, required: 'full' },
    );
    expect([full.status, full.exitCode]).toEqual(['conformant', 0]);
  });
});

describe('what was judged of what was in scope', () => {
  const emptyList = [
    result('rest.list.status-200', 'passed', { needs: ['rest'] }),
    result('rest.token.field.isin', 'skipped', { needs: ['rest'], cause: 'nothing-to-judge', reason: EMPTY_LIST }),
    result('rpc.b', 'passed'),
    result('cross.token.has-code.latest', 'skipped', { needs: ['rest', 'rpc'], cause: 'nothing-to-judge', reason: EMPTY_LIST }),
    result('cross.token.symbol.matches-chain', 'skipped', { needs: ['rest', 'rpc'], cause: 'nothing-to-judge', reason: EMPTY_LIST }),
    result('preconf.c', 'passed', { needs: ['rpc', 'signer'] }),
  ];

  it('an empty list under --require full: the cross group judged nothing, so the run is incomplete (exit 3), saying why; the scope is not full', () => {
    const strict = doc(emptyList, {}, { ...FULL, required: 'full' });
    expect([strict.status, strict.exitCode, strict.scope.full]).toEqual(['incomplete', 3, false]);
    expect(strict.statusReasons).toEqual(['--require full: cross-interface checks: none of 2 judged (token records not judged: the list is empty)']);
    expect(strict.scope.coverage?.groups.cross).toEqual({ inScope: 2, judged: 0, notJudged: [{ why: EMPTY_LIST, checks: 2 }] });
    // Without --require full the run judged what it could, and says what it could not: never a plain "conformant".
    const lenient = doc(emptyList);
    expect([lenient.status, lenient.exitCode, lenient.scope.full]).toEqual(['conformant', 0, false]);
    expect(lenient.headline).toBe('conformant — cross-interface checks: none of 2 judged (token records not judged: the list is empty) (profile dedicated)');
  });

  it('an interface that answered nothing is in scope, never "judged": every report says what was judged of it', () => {
    const checks = [
      result('rest.a', 'passed', { needs: ['rest'] }),
      result('rpc.envelope.http-200', 'failed', { cause: 'unreachable', unreachable: 'rpc', reason: 'target unreachable: HTTP 502' }),
      result('rpc.b', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }),
      result('preconf.c', 'inconclusive', { needs: ['rpc', 'signer'], cause: 'unreachable', unreachable: 'rpc' }),
    ];
    const d = doc(checks, { unreachable: { rpc: 'HTTP 502 Bad Gateway' } });
    expect(d.scope).toMatchObject({ interfaces: ['rest', 'rpc'], signer: true, full: false });
    expect(d.scope.coverage).toEqual({
      interfaces: { rest: { inScope: 1, judged: 1 }, rpc: { inScope: 3, judged: 0, notJudged: [{ why: 'target unreachable', checks: 3 }] } },
      preconf: { inScope: 1, judged: 0, notJudged: [{ why: 'target unreachable', checks: 1 }] },
      groups: {
        rest: { inScope: 1, judged: 1 },
        rpc: { inScope: 2, judged: 0, notJudged: [{ why: 'target unreachable', checks: 2 }] },
        preconf: { inScope: 1, judged: 0, notJudged: [{ why: 'target unreachable', checks: 1 }] },
      },
    });
    const words =
      'REST: 1 of 1 required check judged · JSON-RPC: none of 3 required checks judged; 3 not (target unreachable) · pre-confirmed state: none of 1 required check judged; 1 not (target unreachable)';
    expect(renderSummary(readerDocument(d))).toContain(`**Per interface:** ${words}`);
    expect(renderHtml(readerDocument(d))).toContain(`<dt>judged per interface</dt><dd>${words.replaceAll(' · ', '<br>')}</dd>`);
    const out = sink(false);
    new ConsoleReporter(out.stream, d.checks.length, {}).finished(readerDocument(d), []);
    expect(out.text()).toContain(`per interface: ${words}`);
    expect(validateRef('results.json', d).errors).toEqual([]);
  });
});

describe('scope', () => {
  const all = [
    result('rest.a', 'passed', { needs: ['rest'] }),
    result('rpc.b', 'passed'),
    result('preconf.c', 'passed', { needs: ['rpc', 'signer'] }),
    result('rpc.pub', 'skipped', { needs: ['rpc', 'profile:public'] }),
  ];

  it('full: both interfaces, a signer, every group; the other profile is named but does not limit it', () => {
    const s = deriveScope(all, FULL);
    expect(s).toMatchObject({ full: true, interfaces: ['rest', 'rpc'], signer: true, archive: false, target: 'remote' });
    expect(s.notJudged).toEqual(['public-profile checks not judged (profile dedicated)']);
    expect(statusLine({ status: 'conformant', scope: s })).toBe('conformant — full scope (profile dedicated)');
  });

  it('a run without a key never says just "conformant"', () => {
    const s = deriveScope(all, { ...FULL, signer: false });
    expect(s.full).toBe(false);
    expect(statusLine({ status: 'conformant', scope: s })).toBe('conformant — pre-confirmed state not judged (no --signer-key) (profile dedicated)');
  });

  it("one URL, --only, --grep, --archive and the runner's own reasons", () => {
    // rpc.odd left itself out for want of a key, though it did not declare the signer: named as it is.
    const checks = [
      ...all,
      result('rest.nav', 'skipped', { needs: ['rest'], ...leftOut('--nav-max-age') }),
      result('rpc.old', 'skipped', leftOut('--archive')),
      result('rpc.odd', 'skipped', leftOut('--signer-key')),
    ];
    const s = deriveScope(checks, { ...FULL, baseUrl: undefined, only: ['rest', 'rpc'], grep: /^r/ });
    expect(s.interfaces).toEqual(['rpc']);
    expect(s.groups).toEqual(['rest', 'rpc']);
    expect(s.notJudged).toEqual([
      'REST interface not judged (no --base-url)',
      'cross-interface, pre-confirmation checks not run (--only rest,rpc)',
      'only checks matching --grep ^r ran',
      'NAV staleness (advisory) not judged (no --nav-max-age)',
      "history beyond a full node's retention not judged (no --archive)",
      '1 check not judged (no --signer-key)',
      'public-profile checks not judged (profile dedicated)',
    ]);
  });

  it('an advisory check left out (no --nav-max-age) or no --openapi is named in the status line but never limits it', () => {
    const s = deriveScope(
      [
        ...all,
        result('rest.nav', 'skipped', { level: 'advisory', needs: ['rest'], ...leftOut('--nav-max-age') }),
        result('rest.openapi.valid', 'skipped', { needs: ['openapi'], ...leftOut('--openapi') }),
      ],
      FULL,
    );
    expect(s.notJudged).toContain('NAV staleness (advisory) not judged (no --nav-max-age)');
    expect(s.notJudged).toContain('published OpenAPI document not judged (no --openapi)');
    // Named beside the scope, never "full scope" next to what was left out.
    expect(statusLine({ status: 'conformant', scope: s })).toBe(
      'conformant — both interfaces and the pre-confirmed state; NAV staleness (advisory) not judged (no --nav-max-age); published OpenAPI document not judged (no --openapi) (profile dedicated)',
    );
  });

  it('every report says in its first line when the target was the embedded reference', () => {
    const d = doc([result('rpc.a', 'passed')], {}, { ...FULL, embedded: true, baseUrl: undefined, rpcUrl: undefined });
    expect(renderSummary(readerDocument(d)).split('\n')[0]).toBe('# ✅ Tokenized stocks conformance: conformant (embedded reference target)');
    expect(renderJunit(readerDocument(d)).split('\n')[1]).toMatch(/^<testsuites name="s: conformant \(embedded reference target\)"/);
    expect(renderHtml(readerDocument(d))).toMatch(/<title>Conformance: conformant — embedded reference target<\/title>/);
  });

  it('the embedded target says so', () => {
    expect(statusLine({ status: 'conformant', scope: deriveScope(all, { ...FULL, embedded: true, baseUrl: undefined, rpcUrl: undefined }) })).toBe(
      'conformant — full scope (profile dedicated, embedded reference target)',
    );
  });
});

describe('scope under --only and --grep: from the selected checks only', () => {
  // As results.json lists a run: every check of the catalogue, those left out skipped, deselected by --only / --grep.
  const catalogue = (outOfScope: (id: string) => Partial<CheckResult> | undefined) =>
    [
      result('rest.a', 'passed', { needs: ['rest'] }),
      result('rpc.b', 'passed'),
      result('cross.c', 'passed', { needs: ['rest', 'rpc'] }),
      result('preconf.d', 'passed', { needs: ['rpc', 'signer'] }),
    ].map((r) => {
      const why = outOfScope(r.id);
      return why ? { ...r, status: 'skipped' as const, ...why } : r;
    });
  const onlyRest = catalogue((id) => (id.startsWith('rest.') ? undefined : deselected('--only', '--only rest')));

  it('--only rest with every URL and a key: REST judged, JSON-RPC and the pre-confirmed state not', () => {
    const d = doc(onlyRest, {}, { ...FULL, only: ['rest'] });
    expect(d.scope).toMatchObject({ groups: ['rest'], interfaces: ['rest'], signer: false, full: false });
    expect(d.scope.notJudged).toEqual(['JSON-RPC, cross-interface, pre-confirmation checks not run (--only rest)']);
    const html = renderHtml(readerDocument(d));
    expect(html).toContain('<dt>interfaces in scope</dt><dd>rest</dd>');
    expect(html).toContain('<dt>pre-confirmed state</dt><dd>not in scope: no check that sends transactions was selected</dd>');
    expect(html).toContain(
      '<dt>judged per interface</dt><dd>REST: 1 of 1 required check judged<br>JSON-RPC: not in scope<br>pre-confirmed state: not in scope</dd>',
    );
    expect(html).toContain('Nothing measured in this run: the pre-confirmation group did not run.');
    const md = renderSummary(readerDocument(d));
    expect(md).toContain('interfaces in scope: rest · profile `dedicated` · pre-confirmed state not in scope (no check that sends transactions was selected)');
    expect(md).toContain('**Per interface:** REST: 1 of 1 required check judged · JSON-RPC: not in scope · pre-confirmed state: not in scope');
  });

  it('--grep that selects only JSON-RPC checks: one interface, no pre-confirmed state, whatever the groups', () => {
    const d = doc(
      catalogue((id) => (id.startsWith('rpc.') ? undefined : deselected('--grep', '--grep ^rpc\\.'))),
      {},
      { ...FULL, grep: /^rpc\./ },
    );
    expect(d.scope).toMatchObject({ groups: ['rest', 'rpc', 'cross', 'preconf'], interfaces: ['rpc'], signer: false, full: false });
    expect(renderHtml(readerDocument(d))).toContain('Nothing measured in this run: no check that sends transactions was selected.');
  });

  it('no --base-url, with a key and every group: one interface is never the full scope (--require full stays incomplete)', () => {
    const noRest = catalogue((id) => (id.startsWith('rest.') || id.startsWith('cross.') ? leftOut('--base-url') : undefined));
    const d = doc(noRest, {}, { ...FULL, baseUrl: undefined, required: 'full' });
    expect(d.scope).toMatchObject({ interfaces: ['rpc'], signer: true, full: false });
    expect([d.status, d.exitCode]).toEqual(['incomplete', 3]);
  });

  it('a key given and the pre-confirmation checks selected: judged; no key: said so', () => {
    const all = catalogue(() => undefined);
    expect(doc(all).scope).toMatchObject({ interfaces: ['rest', 'rpc'], signer: true, full: true });
    const noKey = doc(
      all.map((r) => (r.id.startsWith('preconf.') ? { ...r, status: 'skipped' as const, ...leftOut('--signer-key') } : r)),
      {},
      { ...FULL, signer: false },
    );
    expect(noKey.scope.signer).toBe(false);
    expect(renderHtml(readerDocument(noKey))).toContain('<dt>pre-confirmed state</dt><dd>not in scope: no --signer-key</dd>');
    expect(renderSummary(readerDocument(noKey))).toContain('pre-confirmed state not in scope (no --signer-key)');
  });
});

describe('pre-confirmation figures: read as preconf.latency.about-200ms records them', () => {
  // Built exactly as suites/preconf/latency.ts builds its metrics, from the harness's own types and
  // functions: a change of shape there breaks this file's compilation, not just a chart.
  const timeline: Timeline = {
    flashblockMs: SPEC_REFRESH_MS,
    blockTimeMs: 1000,
    sends: [
      { method: 'eth_getTransactionCount', sentAtMs: 0, visibleAtMs: 180, sealedAtMs: 990 },
      { method: 'eth_getTransactionCount', sentAtMs: 3, visibleAtMs: 203, sealedAtMs: 990 },
      { method: 'eth_getCode', sentAtMs: 1, visibleAtMs: 390, sealedAtMs: 990 },
      // Not seen at "pending" before the seal: the pass leaves visibleAtMs out.
      { method: 'eth_getCode', sentAtMs: 2, sealedAtMs: 990 },
    ],
  };
  const samples: Record<string, number[]> = { eth_getTransactionCount: [180, 200], eth_getCode: [389] };
  const rtt: Percentiles = percentiles([4, 5, 6])!;
  const byMethod: Record<string, { p50: number; p95: number; max: number; n: number }> = {};
  for (const [method, xs] of Object.entries(samples)) {
    const p = percentiles(xs)!;
    byMethod[method] = { p50: p.p50, p95: p.p95, max: p.max, n: p.n };
  }
  const all = percentiles(Object.values(samples).flat())!;
  const judged = {
    ...all,
    rttMs: { p50: rtt.p50, p95: rtt.p95 },
    pollIntervalMs: POLL_INTERVAL_MS,
    specRefreshMs: SPEC_REFRESH_MS,
    boundsMs: latencyBounds(rtt),
  };
  const latencyCheck = (metrics: Record<string, unknown>) =>
    result('preconf.latency.about-200ms', 'passed', { level: 'advisory', needs: ['rpc', 'signer'], metrics });
  // Through JSON, as a report read back from results.json sees it.
  const stored = (m: Record<string, unknown>) => JSON.parse(JSON.stringify(m)) as Record<string, unknown>;

  it("the judged figures are the check's own; the timeline adds the samples; a time not observed stays unobserved", () => {
    const d = doc([result('rpc.a', 'passed'), latencyCheck(stored({ timeline, latency: byMethod, latencyJudged: judged }))]);
    const l = latencyOf(d.checks)!;
    expect(l).toEqual({
      id: 'preconf.latency.about-200ms',
      all,
      byMethod: [
        { method: 'eth_getTransactionCount', stats: byMethod.eth_getTransactionCount, samples: [180, 200] },
        { method: 'eth_getCode', stats: byMethod.eth_getCode, samples: [389] },
      ],
      boundsMs: latencyBounds(rtt),
      specRefreshMs: 200,
    });
    expect(readTimeline(d.checks[1].metrics)).toEqual(timeline);

    const md = renderSummary(readerDocument(d));
    expect(md).toContain('| eth_getTransactionCount | 2 | 180 | 200 | 200 |');
    expect(md).toContain(`| all | 3 | ${all.p50} | ${all.p95} | ${all.max} |`);
    const html = renderHtml(readerDocument(d));
    expect(html).toContain('aria-label="pre-confirmation timeline"');
    expect(html).toMatch(/#4 eth_getCode<\/text>\n<text [^>]+class="lbl miss">not seen at "pending" before the seal<\/text>/);
    expect(html.match(/class="lbl miss"/g)).toHaveLength(1);
    expect(html).toContain('aria-label="pre-confirmation latency distribution"');
    expect(html).toContain(`judged against p50 ≤ ${latencyBounds(rtt).p50} ms, p95 ≤ ${latencyBounds(rtt).p95} ms`);
    expect(html).toContain(`p95 bound ${latencyBounds(rtt).p95} ms`);
    expect(html.match(/<circle /g)).toHaveLength(3);
    expect(buildStatement(readerDocument(d), '{}').predicate.tokenizedStocksConformance.preconfLatencyMs).toEqual({ n: 3, p50: all.p50, p95: all.p95 });
  });

  it('not judged (no latencyJudged): per-method figures only, no overall figure and none in the certificate', () => {
    const d = doc([result('rpc.a', 'passed'), latencyCheck(stored({ timeline, latency: byMethod }))]);
    const l = latencyOf(d.checks)!;
    expect(l.all).toBeUndefined();
    expect(l.boundsMs).toBeUndefined();
    expect(renderSummary(readerDocument(d))).not.toContain('| all |');
    expect(renderHtml(readerDocument(d))).toContain('recorded it: not judged over all methods.');
    expect(buildStatement(readerDocument(d), '{}').predicate.tokenizedStocksConformance.preconfLatencyMs).toBeNull();
  });

  it('nothing seen (latency {}), or nothing recorded: no distribution', () => {
    expect(latencyOf([latencyCheck(stored({ timeline: { ...timeline, sends: [] }, latency: {} }))])).toBeUndefined();
    expect(latencyOf([result('rpc.a', 'passed')])).toBeUndefined();
  });
});

describe('root causes', () => {
  it('a failure that blocked others is stated once, with what it blocked; unreachable targets are roots', () => {
    const checks = [
      result('rest.list.status-200', 'failed', { needs: ['rest'] }),
      ...['a', 'b', 'c'].map((x) => result(`rest.token.${x}`, 'inconclusive', { needs: ['rest'], cause: 'blocked', blockedBy: 'rest.list.status-200' })),
      result('rpc.a', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }),
      result('rpc.throttled', 'inconclusive', { cause: 'throttled', reason: 'throttled' }),
      result('rpc.after', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.throttled' }),
    ];
    const roots = decideRoots(checks.map(withOutcome), { unreachable: { rpc: 'connect ECONNREFUSED' } }).roots;
    expect(roots.map((r) => [r.id, r.failsRun, r.blocked])).toEqual([
      ['rest.list.status-200', true, ['rest.token.a', 'rest.token.b', 'rest.token.c']],
      ['target unreachable: rpc', true, ['rpc.a']],
      ['rpc.throttled', false, ['rpc.after']],
    ]);
    expect(roots[1].reason).toBe('connect ECONNREFUSED');
  });
});

describe('expectations', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'exp-'));
  const file = path.join(dir, 'x.yml');
  writeFileSync(
    file,
    'target: test\nexpectations:\n  - id: rpc.a\n    reason: known bug\n    link: https://example.invalid/1\n  - id: rpc.b\n    reason: fixed?\n',
  );

  it('an expected failure no longer fails the run; an expected failure that passes is a stale expectation, which does not either', () => {
    const exp = loadExpectations(file, new Set(['rpc.a', 'rpc.b']));
    const checks = [result('rpc.a', 'failed'), result('rpc.b', 'passed')].map((r) => judge(r, exp));
    expect(checks[0].expectation?.outcome).toBe('expected-failure');
    expect(checks[1].expectation?.outcome).toBe('unexpected-pass');
    expect(statusOf(checks, {}).status).toBe('conformant');
    expect(statusOf([checks[0]], {}).status).toBe('conformant');
    expect(countOutcomes(checks)).toMatchObject({ 'known-failure': 1, 'stale-expectation': 1, failed: 0 });
  });

  it('rejects a file naming a check that does not exist', () => {
    expect(() => loadExpectations(file, new Set(['rpc.a']))).toThrow(/"rpc.b", which is no check/);
  });

  it('rejects an entry without a reason', () => {
    const f = path.join(dir, 'bad.json');
    writeFileSync(f, JSON.stringify({ expectations: [{ id: 'rpc.a' }] }));
    expect(() => loadExpectations(f, new Set(['rpc.a']))).toThrow(/non-empty "reason"/);
  });
});

const exchange = {
  request: { method: 'POST', url: 'http://127.0.0.1:1', headers: { 'content-type': 'application/json' }, body: '{"x":1}' },
  response: { status: 200, headers: {}, body: '<b>' },
  durationMs: 1,
  curl: "curl -sS -i -X POST 'http://127.0.0.1:1'",
};
const failing = doc(
  [
    result('rpc.ok', 'passed'),
    result('rpc.bad', 'failed', { exchanges: [exchange], exchangeCount: 1, expected: { kind: 'hex', value: '0x1' }, actual: { kind: 'hex', value: '0x2' } }),
    result('rpc.blocked1', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.bad' }),
    result('rpc.blocked2', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.bad' }),
    result('rest.adv', 'failed', { level: 'advisory', needs: ['rest'], statements: ['2.1.1'], section: '2.1' }),
    result('rest.skip', 'skipped', { needs: ['rest'], statements: ['2.1.1'], section: '2.1' }),
    result('preconf.x', 'skipped', { needs: ['rpc', 'signer'], ...leftOut('--signer-key') }),
  ],
  {},
  { ...FULL, signer: false },
);

describe('reports', () => {
  it('quote the statement a failed check violated (every failure names it: all it declares when it named none), from the statement table results.json carries', () => {
    const quote = '4.5.1 "eth_getTransactionCount returns the account\'s transaction count, its current nonce, as a hex quantity';
    expect(failing.statements).toEqual({ '2.1.1': expect.any(String), '4.5.1': expect.stringMatching(/^eth_getTransactionCount returns/) });
    expect(renderSummary(readerDocument(failing))).toContain(`> violated: ${quote}`);
    expect(renderJunit(readerDocument(failing))).toMatch(
      / {2}violated: 4\.5\.1 &quot;eth_getTransactionCount returns the account(&apos;|')s transaction count/,
    );
    const html = renderHtml(readerDocument(failing));
    expect(html).toContain(`<div class="muted">violated: ${escapeHtml(quote)}`);
    // A passed check quotes nothing; a document without the table (an older results.json) neither.
    expect(html.match(/violated: /g)).toHaveLength(2);
    expect(renderSummary(readerDocument({ ...failing, statements: undefined }))).not.toContain('enforces:');
  });

  it('junit: classnames per group, run failures as <failure>, blocked as <skipped> naming the root, properties', () => {
    const xml = renderJunit(readerDocument(failing));
    expect(xml.match(/<testcase /g)).toHaveLength(7);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('classname="conformance.rpc"');
    expect(xml).toContain('classname="conformance.rest"');
    expect(xml).toContain('<testsuite name="conformance.rpc" tests="4" failures="1" errors="0" skipped="2"');
    expect(xml).toContain('<skipped message="not judged: blocked by rpc.bad"/>');
    expect(xml).toContain('blocked 2 check(s): rpc.blocked1, rpc.blocked2');
    expect(xml).toContain('<skipped message="skipped: why rest.skip &lt;&amp;&gt; &quot;␀&quot;"/>');
    expect(xml).toContain('<skipped message="out of scope (no --signer-key): why preconf.x');
    for (const p of [
      'suite.version" value="0"',
      'spec.version" value="1.0.0"',
      'status" value="non-conformant"',
      'target.rpc" value="https://rpc.example"',
      'exitCode" value="1"',
    ])
      expect(xml).toContain(`<property name="${p}`);
    expect(xml).not.toMatch(/\u0000/);
    expect(xml).toContain('reproduce: curl');
  });

  it('junit: a required inconclusive check is an <error> with the reason; an advisory one is skipped', () => {
    const xml = renderJunit(
      readerDocument(doc([result('rpc.a', 'inconclusive', { reason: 'throttled' }), result('rpc.b', 'inconclusive', { level: 'advisory', reason: 'timing' })])),
    );
    expect(xml).toContain('<error message="not judged: throttled" type="inconclusive">');
    expect(xml).toContain('<skipped message="inconclusive (advisory): timing"/>');
    expect(xml).toContain('errors="1"');
    // An advisory check blocked by a root that does not fail the run: skipped, never a second red line.
    const blocked = renderJunit(
      readerDocument(
        doc([
          result('rpc.root', 'inconclusive', { cause: 'throttled', reason: 'throttled' }),
          result('rpc.adv', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.root', level: 'advisory' }),
        ]),
      ),
    );
    expect(blocked).toContain('<skipped message="not judged: blocked by rpc.root"/>');
    expect(blocked).toMatch(/<testsuites [^>]* errors="1" skipped="1"/);
  });

  it('junit: an unreachable target is one failure of its own', () => {
    const xml = renderJunit(
      readerDocument(
        doc(
          [
            result('rpc.a', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }),
            result('rpc.b', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }),
          ],
          { unreachable: { rpc: 'ECONNREFUSED' } },
        ),
      ),
    );
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('<failure message="target unreachable: rpc: ECONNREFUSED" type="unreachable">blocked 2 check(s): rpc.a, rpc.b</failure>');
    // Counted in the totals too: a viewer reading only <testsuites> sees the run's one failure.
    expect(xml).toMatch(/<testsuites [^>]* tests="3" failures="1" errors="0"/);
  });

  it('summary.md leads with status and scope, then the root cause with what it blocked, expected vs actual and the curl line', () => {
    const md = renderSummary(readerDocument(failing));
    expect(md.split('\n')[0]).toBe('# ❌ Tokenized stocks conformance: non-conformant');
    // Its one required REST check was skipped: nothing of the REST interface was judged, and the status says so with why.
    expect(md).toContain(
      '**Status: non-conformant — pre-confirmed state not judged (no --signer-key); REST interface: none of 1 required check judged (why rest.skip \\<\\&\\> "␀") (profile dedicated)** · exit 1',
    );
    expect(md.indexOf('## What fails the run (1)')).toBeLessThan(md.indexOf('## By spec section'));
    expect(md).toContain('### ❌ `rpc.bad` (spec 4.5)');
    expect(md).toContain('- blocked 2 check(s), not judged because of it: `rpc.blocked1`, `rpc.blocked2`');
    expect(md).toContain('- expected: ` 0x1 `');
    expect(md).toContain("reproduce: curl -sS -i -X POST 'http://127.0.0.1:1'");
    expect(md).toContain('| out of scope | no --signer-key | 1: preconf.x |');
    // The same categories as the console: the advisory failure is not counted with what fails the run.
    expect(md).toMatch(/^1 passed, 1 failed, 1 advisory warning, 2 not judged \(2 blocked\), 2 skipped of 7 checks — status non-conformant, exit 1/m);
  });

  it('report.html: a root that fails the run and one that only kept checks from being judged each stand under their own heading', () => {
    const d = runDocument(
      [
        checkResult('rpc.bad', 'failed', { cause: 'violation', violated: ['4.5.1'] }),
        checkResult('rpc.slow', 'inconclusive', { cause: 'throttled', interface: 'rpc', reason: 'throttled: HTTP 429 to every try' }),
      ],
      FULL_SCOPE,
    );
    expect(d.rootCauses.map((r) => [r.id, r.effect])).toEqual([
      ['rpc.bad', 'fails-run'],
      ['throttled: rpc', 'incomplete'],
    ]);
    const html = renderHtml(readerDocument(d));
    const fails = html.indexOf('<h2>What fails the run</h2>');
    const kept = html.indexOf('<h2>What kept checks from being judged</h2>');
    expect([fails >= 0, kept > fails]).toEqual([true, true]);
    // The failing root under the first heading, the throttled interface only under the second.
    expect(html.slice(fails, kept)).toContain('<code>rpc.bad</code>');
    expect(html.slice(fails, kept)).not.toContain('throttled: rpc');
    expect(html.slice(kept)).toContain('<b>throttled: rpc</b>');
    // With no root that fails the run, only the second heading.
    const soft = renderHtml(
      readerDocument(runDocument([checkResult('rpc.ok'), checkResult('rpc.slow', 'inconclusive', { cause: 'throttled', interface: 'rpc' })], FULL_SCOPE)),
    );
    expect([soft.includes('What fails the run'), soft.includes('<h2>What kept checks from being judged</h2>')]).toEqual([false, true]);
  });

  it('report.html: self-contained, status and scope first, root causes, sections with counts, passed folded, filter and search', () => {
    const html = renderHtml(readerDocument(failing));
    expect(html).not.toMatch(/<script[^>]+src|<link|src="http|url\(http/);
    expect(html).toContain('&lt;b&gt;');
    expect(html).not.toContain('<b>why');
    const at = (s: string) => {
      const i = html.indexOf(s);
      if (i < 0) throw new Error(`report.html lacks ${s}`);
      return i;
    };
    expect(at('non-conformant — pre-confirmed state not judged (no --signer-key)')).toBeLessThan(at('What fails the run'));
    expect(at('What fails the run')).toBeLessThan(at('Checks by spec section'));
    expect(html).toContain('blocked 2 check(s), not judged because of it');
    // The section's title is specs/rules.yaml's.
    expect(html).toContain('<summary>2.1 Tokenized equity token (`v1TokenizedEquityToken`) <span class="counts">');
    expect(html).toMatch(/<details class="passed-group"><summary>1 passed<\/summary><details class="check" id="check-rpc.ok"/);
    expect(html).toContain('<details class="check" id="check-rpc.bad" data-id="rpc.bad" data-outcome="failed" open>');
    expect(html).toContain('data-filter="unjudged"');
    // An advisory failure is a warning: never painted as what fails the run (red), in its row or its section's counts.
    expect(html).toContain('<details class="check" id="check-rest.adv" data-id="rest.adv" data-outcome="warning">');
    expect(html).toMatch(/<summary><span class="st-warning">failed \(advisory\)<\/span> <code class="id">rest\.adv<\/code>/);
    expect(html).toMatch(/<summary>2\.1 [^<]*<span class="counts"><span class="st-passed">0 passed<\/span><span class="st-warning">1 advisory warning<\/span>/);
    expect(html).toContain('<div class="tile st-failed"><b>1</b>fail the run</div>');
    expect(html).toContain('id="search"');
    expect(html).toContain('Nothing measured in this run');
  });

  it('every reporter states the same status, scope and exit code', () => {
    for (const d of [
      failing,
      doc([result('rpc.a', 'passed'), result('rpc.b', 'inconclusive')]),
      doc([result('rpc.a', 'passed')], { interrupted: 'interrupted by SIGINT', stoppedBy: 'signal' }),
    ]) {
      const line = statusLine(d);
      const words = { 0: 'exit 0: conformant', 1: 'exit 1', 3: 'exit 3: incomplete', 130: 'exit 130: interrupted' }[d.exitCode as 0 | 1 | 3 | 130];
      const out = sink(false);
      new ConsoleReporter(out.stream, d.checks.length, {}).finished(readerDocument(d), []);
      const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
      for (const [name, text] of [
        ['console', out.text()],
        ['summary.md', renderSummary(readerDocument(d))],
        ['report.html', renderHtml(readerDocument(d))],
        ['junit.xml', renderJunit(readerDocument(d))],
      ]) {
        // Each in its own escaping: the headline may quote why a subject was not judged (a reason, text from outside).
        const plain = { 'junit.xml': (l: string) => esc(stripControls(l)), 'report.html': escapeHtml, console: stripControls, 'summary.md': mdText }[name]!(
          line,
        );
        if (!text.includes(plain)) throw new Error(`${name} does not state "${line}"`);
        if (!text.includes(name === 'junit.xml' || name === 'report.html' ? esc(words) : words)) throw new Error(`${name} does not state "${words}"`);
      }
      // The console's last lines are the status and the exit code.
      expect(out.text().trimEnd().split('\n').slice(-2)).toEqual([`status: ${stripControls(line)}`, expect.stringContaining(words)]);
    }
  });
});

describe('console', () => {
  it('colour only on a TTY, never with NO_COLOR', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    const tty = sink(true);
    new ConsoleReporter(tty.stream, failing.checks.length, { NO_COLOR: '1', CI: 'true' }).finished(readerDocument(failing), []);
    expect(tty.text()).not.toMatch(/\u001b\[/);
    const coloured = sink(true);
    new ConsoleReporter(coloured.stream, failing.checks.length, { CI: 'true' }).finished(readerDocument(failing), []);
    expect(coloured.text()).toMatch(/\u001b\[31m/);
  });

  it('plain lines off a TTY; on a TTY one progress line rewritten in place, failures printed above it', () => {
    const plain = sink(false);
    const r = new ConsoleReporter(plain.stream, 2, {});
    r.result(readerCheck(withOutcome(result('rpc.ok', 'passed'))));
    r.result(readerCheck(withOutcome(result('rpc.bad', 'failed'))));
    expect(plain.text()).toBe('[1/2] ✓ pass rpc.ok (4.5) 3ms\n[2/2] ✗ FAIL rpc.bad (4.5) 3ms — why rpc.bad <&> "␀"\n');
    const tty = sink(true);
    const t = new ConsoleReporter(tty.stream, 2, { NO_COLOR: '1' });
    t.started({ ...result('rpc.ok', 'passed'), run: async () => {} });
    t.result(readerCheck(withOutcome(result('rpc.ok', 'passed'))));
    t.result(readerCheck(withOutcome(result('rpc.bad', 'failed'))));
    t.finished(readerDocument(doc([result('rpc.ok', 'passed'), result('rpc.bad', 'failed')])), []);
    expect(tty.text()).toContain('\r\u001b[2K[1/2] · 4.5 eth_getTransactionCount · 0 s');
    expect(tty.text()).toContain('✗ FAIL rpc.bad (4.5) — why rpc.bad');
    expect(tty.text()).not.toContain('✓ pass rpc.ok');
  });

  it('ends with a table by section, failures in two or three lines, skipped grouped by reason', () => {
    const out = sink(false);
    new ConsoleReporter(out.stream, failing.checks.length, {}).finished(readerDocument(failing), ['r/results.json']);
    const text = out.text();
    // The stored counts: passed, failed (fails the run), warning, not judged, skipped; the title is specs/rules.yaml's.
    expect(text).toMatch(/ {2}spec section +passed +failed +warning +not judged +skipped\n/);
    expect(text).toMatch(/ {2}2\.1 Tokenized equity token \(`v1TokenizedEquityToken`\) +0 +0 +1 +0 +1\n/);
    expect(text).toMatch(/ {2}total +1 +1 +1 +2 +2\n/);
    expect(text).toContain(
      `✗ fails the run (1):\n  ✗ rpc.bad (spec 4.5) — why rpc.bad <&> "␀"\n      violated: 4.5.1 "eth_getTransactionCount returns the account's transaction count, its current nonce, as a hex quantity — the nonce to put in the account's next transaction."\n      expected 0x1, actual 0x2\n      blocked 2 check(s): rpc.blocked1, rpc.blocked2\n`,
    );
    expect(text).toContain('out of scope (1): no --signer-key — preconf.x');
    expect(text).toContain('skipped (1): why rest.skip');
    expect(text).toContain('reports: r/results.json');
  });
});

describe('console: known failures, stale expectations, hints', () => {
  const known = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}) =>
    judge(result(id, status, over), { expectations: [{ id, reason: 'known bug', link: 'https://tracker.example/1' }] });
  const countsAndStatus = (text: string) => [/^\d+ passed, .* checks in .* s$/m.exec(text)?.[0].replace(/ in .* s$/, ''), /^status: (\S+)/m.exec(text)?.[1]];

  it('known failures stream as ⚠ KNOWN and are counted apart: 0 failed, conformant', () => {
    const checks = [result('rpc.ok', 'passed'), known('rpc.k1', 'failed'), known('rpc.k2', 'failed')];
    const out = sink(false);
    const r = new ConsoleReporter(out.stream, checks.length, {});
    for (const c of checks) r.result(readerCheck(withOutcome(c)));
    r.finished(readerDocument(doc(checks)), []);
    const text = out.text();
    expect(text).toContain('⚠ KNOWN rpc.k1 (4.5)');
    expect(text).not.toContain('✗ FAIL');
    expect(text).toContain('⚠ known failures (2): listed in the expectations file, they do not fail the run');
    expect(text).toContain('      known: known bug (https://tracker.example/1)');
    expect(countsAndStatus(text)).toEqual(['1 passed, 0 failed, 2 known failures, 0 not judged, 0 skipped of 3 checks', 'conformant']);
  });

  it('a stale expectation (a known failure that passes) is its own category, listed as news; it does not fail the run', () => {
    const checks = [result('rpc.ok', 'passed'), known('rpc.fixed', 'passed')];
    const out = sink(false);
    const r = new ConsoleReporter(out.stream, checks.length, {});
    for (const c of checks) r.result(readerCheck(withOutcome(c)));
    r.finished(readerDocument(doc(checks)), []);
    const text = out.text();
    expect(text).toContain('★ STALE rpc.fixed (4.5) 3ms — passes, but the expectations file lists it as a known failure');
    expect(text).toContain('★ stale expectations (1): listed as known failures, they passed');
    expect(countsAndStatus(text)).toEqual([
      '1 passed, 0 failed, 1 stale expectation (known failure now passing), 0 not judged, 0 skipped of 2 checks',
      'conformant',
    ]);
  });

  it('the count line agrees with the status: failed > 0 exactly when non-conformant', () => {
    const cases: CheckResult[][] = [
      [result('rpc.a', 'passed')],
      [result('rpc.a', 'failed')],
      [result('rpc.a', 'passed'), result('rpc.b', 'failed', { level: 'advisory' })],
      [result('rpc.a', 'passed'), known('rpc.b', 'failed')],
      [known('rpc.a', 'passed')],
      [result('rpc.a', 'passed'), result('rpc.b', 'inconclusive')],
    ];
    for (const checks of cases) {
      const out = sink(false);
      const d = doc(checks);
      new ConsoleReporter(out.stream, checks.length, {}).finished(readerDocument(d), []);
      const [line, status] = countsAndStatus(out.text());
      const failing = /(?<!\d)([1-9]\d*) failed/.test(line!);
      expect([checks.map((c) => c.id).join(','), failing]).toEqual([checks.map((c) => c.id).join(','), status === 'non-conformant']);
    }
  });

  it('a hint is printed whole on its own line, however long the reason', () => {
    const root = result('rpc.getBlockReceipts.block.latest', 'failed', {
      reason: `eth_getBlockReceipts("latest") answered HTTP 403: ${'x'.repeat(300)}`,
      hint: 'if the target is a public node address (where 5.2 refuses this method), run with --profile public',
    });
    const out = sink(false);
    const r = new ConsoleReporter(out.stream, 1, {});
    r.result(readerCheck(withOutcome(root)));
    r.finished(readerDocument(doc([root])), []);
    const lines = out.text().split('\n');
    const hintLines = lines.filter((l) => l.includes('run with --profile public'));
    expect(hintLines).toEqual([
      '      → if the target is a public node address (where 5.2 refuses this method), run with --profile public',
      '      → if the target is a public node address (where 5.2 refuses this method), run with --profile public',
    ]);
  });

  it('a conformant run of less than the full scope says what --require full would do', () => {
    const checks = [result('rest.a', 'passed', { needs: ['rest'] }), result('rpc.b', 'skipped', leftOut('--rpc-url'))];
    const out = sink(false);
    new ConsoleReporter(out.stream, checks.length, {}).finished(readerDocument(doc(checks, {}, { ...FULL, rpcUrl: undefined })), []);
    expect(out.text()).toContain(
      'note: not the full scope (JSON-RPC interface not judged (no --rpc-url)); with --require full (REQUIRE=full, recommended in CI) this run would exit 3',
    );
  });
});

describe('schemas/results.json', () => {
  it('names every cause and scope flag the types have', () => {
    const schema = JSON.parse(readFileSync(path.join(__dirname, '../../schemas/results.json'), 'utf8'));
    expect(schema.$defs.check.properties.cause.enum).toEqual([...CAUSES]);
    expect(schema.$defs.scopeFlag.enum).toEqual([...SCOPE_FLAGS]);
  });

  it('accepts a document with status, scope, blocked and out-of-scope checks, and the run facts', () => {
    const d = doc(
      [result('rpc.a', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }), result('preconf.b', 'skipped', { ...leftOut('--signer-key') })],
      { unreachable: { rpc: 'ECONNREFUSED' }, interrupted: 'interrupted by SIGINT', stoppedBy: 'signal' },
    );
    expect(validateRef('results.json', JSON.parse(JSON.stringify(d))).errors).toEqual([]);
  });

  it('rejects a document without a status or with one it does not know', () => {
    const { status: _status, ...without } = failing;
    expect(validateRef('results.json', JSON.parse(JSON.stringify(without))).valid).toBe(false);
    expect(validateRef('results.json', { ...JSON.parse(JSON.stringify(failing)), status: 'mostly-fine' }).valid).toBe(false);
    expect(validateRef('results.json', { ...JSON.parse(JSON.stringify(failing)), scope: { ...failing.scope, full: 'yes' } }).valid).toBe(false);
  });
});

describe('headlines name what happened', () => {
  it('interrupted, unreachable once per interface, nothing judged, required checks not judged', () => {
    const interrupted = doc([result('rpc.a', 'passed'), result('rpc.b', 'skipped', { cause: 'stopped', reason: 'not run: interrupted by SIGINT' })], {
      interrupted: 'interrupted by SIGINT',
      stoppedBy: 'signal',
    });
    expect(statusLine(interrupted)).toMatch(/^interrupted — interrupted by SIGINT: partial results, incomplete as far as it went \(/);
    expect(statusLine(interrupted)).not.toContain('full scope');
    const down = doc(
      [
        result('rpc.envelope.http-200', 'failed', { cause: 'unreachable', unreachable: 'rpc' }),
        result('rpc.b', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }),
        result('rest.c', 'inconclusive', { cause: 'unreachable', unreachable: 'rest', needs: ['rest'] }),
      ],
      { unreachable: { rpc: 'ECONNREFUSED', rest: 'ECONNREFUSED' } },
    );
    expect(statusLine(down)).toBe('non-conformant — REST and JSON-RPC targets unreachable');
    // Each unreachable interface is one reason, its stand-in check not counted as a second.
    expect(down.statusReasons).toEqual(['REST target unreachable: ECONNREFUSED', 'JSON-RPC target unreachable: ECONNREFUSED']);
    const nothing = doc([result('rest.openapi.a', 'skipped', leftOut('--openapi'))]);
    expect(statusLine(nothing)).toMatch(/^incomplete — nothing judged: no required check came to a verdict \(/);
    const unjudged = doc([result('rpc.a', 'passed'), result('preconf.b', 'inconclusive', { cause: 'ambiguous', needs: ['rpc', 'signer'] })]);
    expect(statusLine(unjudged)).toMatch(/^incomplete — 1 required check not judged \(/);
    expect(statusLine(unjudged)).not.toContain('full scope');
  });

  it('one sentence per exit code, the same in --help and in every report', () => {
    for (const code of [0, 1, 2, 3, 130]) {
      const sentence = exitWords(code).replace(/^exit \d+: /, '');
      expect(EXIT_CODES_HELP).toContain(`${String(code).padEnd(4)}${sentence}`);
      expect(readFileSync(path.join(__dirname, '../../docs/results.md'), 'utf8')).toContain(`| ${code} | ${sentence} |`);
    }
  });
});

test('each status in its own colour: an incomplete run is never painted as a pass (report.html class, console colour)', () => {
  const docs = {
    conformant: doc([result('rpc.a', 'passed')]),
    incomplete: doc([result('rpc.a', 'passed'), result('rpc.b', 'inconclusive', { cause: 'throttled' })]),
    'non-conformant': doc([result('rpc.a', 'failed')]),
  };
  const colour = { conformant: 32, incomplete: 33, 'non-conformant': 31 };
  for (const [status, d] of Object.entries(docs) as Array<[keyof typeof colour, RunDocument]>) {
    expect(d.status).toBe(status);
    expect(renderHtml(readerDocument(d))).toContain(`<div class="status s-${status}">`);
    const out = sink(false);
    new ConsoleReporter(out.stream, d.checks.length, { FORCE_COLOR: '1' }).finished(readerDocument(d), []);
    expect(out.text()).toContain(`\u001b[${colour[status]}m\u001b[1mstatus: ${d.headline}`);
  }
});

describe('console in CI logs', () => {
  it('FORCE_COLOR colours a log that is no terminal; NO_COLOR wins; 0 or false turn it off', () => {
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '' })).toBe(false);
    expect(useColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor({ isTTY: true }, { FORCE_COLOR: 'false' })).toBe(false);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
    const out = sink(false);
    const r = new ConsoleReporter(out.stream, 1, { FORCE_COLOR: '1' });
    r.result(readerCheck(withOutcome(result('rpc.ok', 'passed'))));
    expect(out.text()).toContain('\u001b[32m✓ pass\u001b[0m');
  });

  it('under GitHub Actions the console writes no workflow command (the Action folds the per-check lines), and no target text starts one', () => {
    const out = sink(false);
    const r = new ConsoleReporter(out.stream, 2, { GITHUB_ACTIONS: 'true', CI: 'true' });
    const hostile = result('rpc.bad', 'failed', { reason: '\n::error::pwned\n::endgroup::' });
    r.result(readerCheck(withOutcome(result('rpc.ok', 'passed'))));
    r.result(readerCheck(withOutcome(hostile)));
    r.finished(readerDocument(doc([result('rpc.ok', 'passed'), hostile])), []);
    const lines = out.text().split('\n');
    expect(lines[0]).toMatch(/^\[1\/2\] /);
    expect(lines.filter((l) => /^\s*::/.test(l))).toEqual([]);
    expect(out.text()).not.toContain('::group::');
  });
});

describe('every report quotes the violated statement', () => {
  it('console, summary.md, report.html, junit.xml and the jest message quote what the failure violated, not every statement the check enforces', () => {
    const failed = result('rpc.bad', 'failed', { statements: ['4.5.1', '4.5.2'], section: '4.5', violated: ['4.5.2'] });
    const d = doc([result('rpc.ok', 'passed'), failed]);
    expect(d.statements?.['4.5.2']).toBeTruthy();
    const quote = `4.5.2 "${d.statements!['4.5.2']}"`;
    const out = sink(false);
    new ConsoleReporter(out.stream, 2, {}).finished(readerDocument(d), []);
    expect(out.text()).toContain(`violated: ${quote}`);
    expect(out.text()).not.toContain('4.5.1 "');
    expect(renderSummary(readerDocument(d))).toContain(`> violated: ${quote}`);
    expect(renderHtml(readerDocument(d))).toContain(`violated: ${escapeHtml(quote)}`);
    expect(renderJunit(readerDocument(d))).toContain(`violated: ${escapeHtml(quote).replace(/'/g, '&apos;')}`.slice(0, 30));
    expect(d.checks[1].violated).toEqual(['4.5.2']);
    expect(validateRef('results.json', JSON.parse(JSON.stringify(d))).errors).toEqual([]);
  });

  it('a check of 4.5 that gets another response id violated 4.2.1, which it does not declare: results.json names it, the reports quote it under section 4.2', async () => {
    const count = check(
      { id: 'rpc.getTransactionCount.test', title: 'a count', statements: ['4.5.1'], level: 'required', needs: ['rpc'] },
      // The judging helper every JSON-RPC check calls on an answer: the client recorded the mismatch.
      async () => expectSameId({ idMismatch: { sent: 7, got: 8 } }, 'eth_getTransactionCount'),
    );
    const [r] = await runChecks(
      [count],
      {
        baseUrl: 'http://127.0.0.1:9',
        rpcUrl: 'http://127.0.0.1:9',
        restHeaders: {},
        rpcHeaders: {},
        settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 1_000 },
        redactor: new Redactor(),
        signal: new AbortController().signal,
      },
      { concurrency: 1 },
    );
    expect(r).toMatchObject({
      status: 'failed',
      cause: 'violation',
      violated: ['4.2.1'],
      section: '4.5',
      expected: { kind: 'integer', value: '7' },
      actual: { kind: 'integer', value: '8' },
    });
    const d = doc([r!]);
    // The statement table carries the text of what the failure named, though the check does not declare it.
    const text = d.statements?.['4.2.1'];
    expect(text).toMatch(/the same id/);
    const quote = `4.2.1 "${text}"`;
    const out = sink(false);
    new ConsoleReporter(out.stream, 1, {}).finished(readerDocument(d), []);
    expect(out.text()).toContain(`rpc.getTransactionCount.test (spec 4.2)`);
    expect(out.text()).toContain(`violated: ${quote}`);
    expect(out.text()).not.toContain('4.5.1 "');
    const summary = renderSummary(readerDocument(d));
    expect(summary).toContain('(spec 4.2)');
    expect(summary).toContain(`> violated: ${quote}`);
    const junit = renderJunit(readerDocument(d));
    expect(junit).toContain(`message="[4.2] `);
    expect(junit).toContain('spec section: 4.2 (check cites 4.5)');
    expect(junit).toContain(`violated: ${escapeHtml(quote).replace(/'/g, '&apos;')}`);
    expect(validateRef('results.json', JSON.parse(JSON.stringify(d))).errors).toEqual([]);
  });
});
