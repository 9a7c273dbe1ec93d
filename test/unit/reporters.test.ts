import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyExpectations, loadExpectations } from '../../src/cli/expectations';
import { ConsoleReporter, useColor } from '../../src/cli/reporters/console';
import { renderHtml } from '../../src/cli/reporters/html';
import { renderJunit } from '../../src/cli/reporters/junit';
import { renderSummary } from '../../src/cli/reporters/summary';
import { escapeHtml } from '../../src/cli/reporters/shared';
import { deriveScope, deriveStatus, exitCodeFor, rootCauses, statusLine, summarize, type RunDocument, type RunFacts, type ScopeFacts } from '../../src/cli/results';
import { buildCertificate } from '../../src/cli/certify';
import { latencyOf, readTimeline } from '../../src/cli/reporters/metrics';
import type { Timeline } from '../../src/harness/preconf/pass';
import { latencyBounds, percentiles, POLL_INTERVAL_MS, SPEC_REFRESH_MS, type Percentiles } from '../../src/harness/preconf/timing';
import type { CheckResult } from '../../src/harness/runner';
import { validateRef } from '../../src/harness/schemas';
import { runDocument } from '../support/documents';

const result = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: `title of ${id}`,
  statements: ['4.5.1'],
  section: '4.5',
  level: 'required',
  needs: ['rpc'],
  status,
  reason: status === 'passed' ? '' : `why ${id} <&> "\u0000"`,
  durationMs: 3,
  exchanges: [],
  exchangeCount: 0,
  ...over,
});

const FULL: ScopeFacts = { only: ['rest', 'rpc', 'cross', 'preconf'], profile: 'dedicated', embedded: false, baseUrl: 'https://api.example', rpcUrl: 'https://rpc.example', signer: true, archive: false };

function doc(checks: CheckResult[], facts: RunFacts = {}, scope: ScopeFacts = FULL): RunDocument {
  return runDocument(checks, scope, { facts, suite: { name: 's', version: '0' } });
}

/** A writable stream stand-in that records what was written. */
function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { stream: { isTTY, write: (s: string) => (chunks.push(s), true) }, text: () => chunks.join('') };
}

describe('run status: derived once, every branch', () => {
  const expected = (id: string, status: CheckResult['status']) => {
    const r = result(id, status);
    applyExpectations([r], { expectations: [{ id, reason: 'known bug' }] });
    return r;
  };
  it.each<[string, CheckResult[], RunFacts, string, number]>([
    ['every required check judged and passed', [result('rpc.a', 'passed'), result('rpc.b', 'passed')], {}, 'conformant', 0],
    ['advisory failures and advisory inconclusive results leave it conformant', [result('rpc.a', 'passed'), result('rpc.b', 'failed', { level: 'advisory' }), result('rpc.c', 'inconclusive', { level: 'advisory' })], {}, 'conformant', 0],
    ['skipped checks (nothing to judge, or out of scope) are neutral', [result('rpc.a', 'passed'), result('rpc.b', 'skipped'), result('preconf.c', 'skipped', { outOfScope: 'no --signer-key' })], {}, 'conformant', 0],
    ['an expected failure is covered', [result('rpc.a', 'passed'), expected('rpc.b', 'failed')], {}, 'conformant', 0],
    ['a required failure', [result('rpc.a', 'failed'), result('rpc.b', 'passed')], {}, 'non-conformant', 1],
    ['an expected failure that passes: stale expectations', [expected('rpc.a', 'passed')], {}, 'non-conformant', 1],
    ['an unreachable target (probe)', [result('rpc.a', 'inconclusive', { blockedBy: 'target unreachable: rpc' })], { unreachable: { rpc: 'ECONNREFUSED' } }, 'non-conformant', 1],
    ['an unreachable target named only by blocked checks', [result('rest.a', 'inconclusive', { blockedBy: 'target unreachable: rest' })], {}, 'non-conformant', 1],
    ['a failure outranks what was not judged', [result('rpc.a', 'failed'), result('rpc.b', 'inconclusive')], {}, 'non-conformant', 1],
    ['a required check inconclusive (throttled)', [result('rpc.a', 'passed'), result('rpc.b', 'inconclusive', { reason: 'throttled: HTTP 429 three times' })], {}, 'incomplete', 3],
    ['a required check blocked by an inconclusive prerequisite', [result('rest.list', 'inconclusive', { reason: 'throttled' }), result('rest.b', 'inconclusive', { blockedBy: 'rest.list' })], {}, 'incomplete', 3],
    ["a check's own error", [result('rpc.a', 'inconclusive', { reason: 'internal error in check (not a verdict): TypeError' })], {}, 'incomplete', 3],
    ['interrupted by a signal: incomplete, exit 130', [result('rpc.a', 'passed'), result('rpc.b', 'skipped', { reason: 'not run: interrupted by SIGINT' })], { interrupted: 'interrupted by SIGINT', stoppedBy: 'signal' }, 'incomplete', 130],
    ['interrupted with a failure: non-conformant, still exit 130', [result('rpc.a', 'failed')], { interrupted: 'interrupted by SIGTERM', stoppedBy: 'signal' }, 'non-conformant', 130],
    ['the deadline passed: incomplete, exit 1', [result('rpc.a', 'passed'), result('rpc.b', 'inconclusive', { reason: 'stopped: run deadline of 10 ms reached' })], { interrupted: 'run deadline of 10 ms reached', stoppedBy: 'deadline' }, 'incomplete', 1],
  ])('%s', (_what, checks, facts, status, code) => {
    const d = deriveStatus(checks, facts);
    expect(d.status).toBe(status);
    expect(exitCodeFor(d.status, facts)).toBe(code);
    expect(d.reasons.length > 0).toBe(status !== 'conformant');
  });

  it('says why in words', () => {
    const { reasons } = deriveStatus([result('rpc.a', 'inconclusive', { reason: 'throttled (HTTP 429)' }), result('rpc.b', 'inconclusive', { blockedBy: 'rpc.x' })], {});
    expect(reasons).toEqual(['2 required checks not judged (throttled: 1, blocked by a prerequisite: 1)']);
  });
});

describe('scope', () => {
  const all = [result('rest.a', 'passed', { needs: ['rest'] }), result('rpc.b', 'passed'), result('preconf.c', 'passed', { needs: ['rpc', 'signer'] }), result('rpc.pub', 'skipped', { needs: ['rpc', 'profile:public'] })];

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

  it('one URL, --only, --grep, --archive and the runner\'s own reasons', () => {
    const checks = [...all, result('rest.nav', 'skipped', { needs: ['rest'], outOfScope: 'no --nav-max-age' }), result('rpc.old', 'skipped', { outOfScope: 'no --archive' }), result('rpc.odd', 'skipped', { outOfScope: 'something new' })];
    const s = deriveScope(checks, { ...FULL, baseUrl: undefined, only: ['rest', 'rpc'], grep: /^r/ });
    expect(s.interfaces).toEqual(['rpc']);
    expect(s.groups).toEqual(['rest', 'rpc']);
    expect(s.notJudged).toEqual([
      'REST interface not judged (no --base-url)',
      'cross-interface, pre-confirmation checks not run (--only rest,rpc)',
      'only checks matching --grep ^r ran',
      'NAV staleness (advisory) not judged (no --nav-max-age)',
      "history beyond a full node's retention not judged (no --archive)",
      '1 check not judged (something new)',
      'public-profile checks not judged (profile dedicated)',
    ]);
  });

  it('an advisory check left out (no --nav-max-age) or no --openapi is named in the scope but never limits the status line', () => {
    const s = deriveScope([...all, result('rest.nav', 'skipped', { level: 'advisory', needs: ['rest'], outOfScope: 'no --nav-max-age' }), result('rest.openapi.valid', 'skipped', { needs: ['openapi'], outOfScope: 'no --openapi' })], FULL);
    expect(s.notJudged).toContain('NAV staleness (advisory) not judged (no --nav-max-age)');
    expect(s.notJudged).toContain('published OpenAPI document not judged (no --openapi)');
    expect(statusLine({ status: 'conformant', scope: s })).toBe('conformant — full scope (profile dedicated)');
  });

  it('every report says in its first line when the target was the embedded reference', () => {
    const d = doc([result('rpc.a', 'passed')], {}, { ...FULL, embedded: true, baseUrl: undefined, rpcUrl: undefined });
    expect(renderSummary(d).split('\n')[0]).toBe('# ✅ Tokenized stocks conformance: conformant (embedded reference target)');
    expect(renderJunit(d).split('\n')[1]).toMatch(/^<testsuites name="s: conformant \(embedded reference target\)"/);
    expect(renderHtml(d)).toMatch(/<title>Conformance: conformant — embedded reference target<\/title>/);
  });

  it('the embedded target says so', () => {
    expect(statusLine({ status: 'conformant', scope: deriveScope(all, { ...FULL, embedded: true, baseUrl: undefined, rpcUrl: undefined }) })).toBe('conformant — full scope (profile dedicated, embedded reference target)');
  });
});

describe('scope under --only and --grep: from the selected checks only', () => {
  // As results.json lists a run: every check of the catalogue, those left out skipped with outOfScope '--only …' / '--grep …'.
  const catalogue = (outOfScope: (id: string) => string | undefined) =>
    [
      result('rest.a', 'passed', { needs: ['rest'] }),
      result('rpc.b', 'passed'),
      result('cross.c', 'passed', { needs: ['rest', 'rpc'] }),
      result('preconf.d', 'passed', { needs: ['rpc', 'signer'] }),
    ].map((r) => {
      const why = outOfScope(r.id);
      return why ? { ...r, status: 'skipped' as const, reason: `not selected (${why})`, outOfScope: why } : r;
    });
  const onlyRest = catalogue((id) => (id.startsWith('rest.') ? undefined : '--only rest'));

  it('--only rest with every URL and a key: REST judged, JSON-RPC and the pre-confirmed state not', () => {
    const d = doc(onlyRest, {}, { ...FULL, only: ['rest'] });
    expect(d.scope).toMatchObject({ groups: ['rest'], interfaces: ['rest'], signer: false, full: false });
    expect(d.scope.notJudged).toEqual(['JSON-RPC, cross-interface, pre-confirmation checks not run (--only rest)']);
    const html = renderHtml(d);
    expect(html).toContain('<dt>interfaces judged</dt><dd>rest</dd>');
    expect(html).toContain('<dt>pre-confirmed state</dt><dd>not judged: no check that sends transactions was selected</dd>');
    expect(html).toContain('Nothing measured in this run: the pre-confirmation group did not run.');
    expect(renderSummary(d)).toContain('interfaces judged: rest · profile `dedicated` · pre-confirmed state not judged (no check that sends transactions was selected)');
  });

  it('--grep that selects only JSON-RPC checks: one interface, no pre-confirmed state, whatever the groups', () => {
    const d = doc(catalogue((id) => (id.startsWith('rpc.') ? undefined : '--grep ^rpc\\.')), {}, { ...FULL, grep: /^rpc\./ });
    expect(d.scope).toMatchObject({ groups: ['rest', 'rpc', 'cross', 'preconf'], interfaces: ['rpc'], signer: false, full: false });
    expect(renderHtml(d)).toContain('Nothing measured in this run: no check that sends transactions was selected.');
  });

  it('a key given and the pre-confirmation checks selected: judged; no key: said so', () => {
    const all = catalogue(() => undefined);
    expect(doc(all).scope).toMatchObject({ interfaces: ['rest', 'rpc'], signer: true, full: true });
    const noKey = doc(all.map((r) => (r.id.startsWith('preconf.') ? { ...r, status: 'skipped' as const, outOfScope: 'no --signer-key' } : r)), {}, { ...FULL, signer: false });
    expect(noKey.scope.signer).toBe(false);
    expect(renderHtml(noKey)).toContain('<dt>pre-confirmed state</dt><dd>not judged: no --signer-key</dd>');
    expect(renderSummary(noKey)).toContain('pre-confirmed state not judged (no --signer-key)');
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
  const judged = { ...all, rttMs: { p50: rtt.p50, p95: rtt.p95 }, pollIntervalMs: POLL_INTERVAL_MS, specRefreshMs: SPEC_REFRESH_MS, boundsMs: latencyBounds(rtt) };
  const latencyCheck = (metrics: Record<string, unknown>) => result('preconf.latency.about-200ms', 'passed', { level: 'advisory', needs: ['rpc', 'signer'], metrics });
  // Through JSON, as a report read back from results.json sees it.
  const stored = (m: Record<string, unknown>) => JSON.parse(JSON.stringify(m)) as Record<string, unknown>;

  it('the judged figures are the check\'s own; the timeline adds the samples; a time not observed stays unobserved', () => {
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

    const md = renderSummary(d);
    expect(md).toContain('| eth_getTransactionCount | 2 | 180 | 200 | 200 |');
    expect(md).toContain(`| all | 3 | ${all.p50} | ${all.p95} | ${all.max} |`);
    const html = renderHtml(d);
    expect(html).toContain('aria-label="pre-confirmation timeline"');
    expect(html).toMatch(/#4 eth_getCode<\/text>\n<text [^>]+class="lbl miss">not seen at "pending" before the seal<\/text>/);
    expect(html.match(/class="lbl miss"/g)).toHaveLength(1);
    expect(html).toContain('aria-label="pre-confirmation latency distribution"');
    expect(html).toContain(`judged against p50 ≤ ${latencyBounds(rtt).p50} ms, p95 ≤ ${latencyBounds(rtt).p95} ms`);
    expect(html).toContain(`p95 bound ${latencyBounds(rtt).p95} ms`);
    expect(html.match(/<circle /g)).toHaveLength(3);
    expect(buildCertificate(d, '{}').preconfLatencyMs).toEqual({ n: 3, p50: all.p50, p95: all.p95 });
  });

  it('not judged (no latencyJudged): per-method figures only, no overall figure and none in the certificate', () => {
    const d = doc([result('rpc.a', 'passed'), latencyCheck(stored({ timeline, latency: byMethod }))]);
    const l = latencyOf(d.checks)!;
    expect(l.all).toBeUndefined();
    expect(l.boundsMs).toBeUndefined();
    expect(renderSummary(d)).not.toContain('| all |');
    expect(renderHtml(d)).toContain('recorded it: not judged over all methods.');
    expect(buildCertificate(d, '{}').preconfLatencyMs).toBeNull();
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
      ...['a', 'b', 'c'].map((x) => result(`rest.token.${x}`, 'inconclusive', { needs: ['rest'], blockedBy: 'rest.list.status-200' })),
      result('rpc.a', 'inconclusive', { blockedBy: 'target unreachable: rpc' }),
      result('rpc.throttled', 'inconclusive', { reason: 'throttled' }),
      result('rpc.after', 'inconclusive', { blockedBy: 'rpc.throttled' }),
    ];
    const roots = rootCauses(checks, { unreachable: { rpc: 'connect ECONNREFUSED' } });
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
  writeFileSync(file, 'target: test\nexpectations:\n  - id: rpc.a\n    reason: known bug\n    link: https://example.invalid/1\n  - id: rpc.b\n    reason: fixed?\n');

  it('an expected failure no longer fails the run; an expected failure that passes does', () => {
    const exp = loadExpectations(file, new Set(['rpc.a', 'rpc.b']));
    const checks = [result('rpc.a', 'failed'), result('rpc.b', 'passed')];
    applyExpectations(checks, exp);
    expect(checks[0].expectation?.outcome).toBe('expected-failure');
    expect(checks[1].expectation?.outcome).toBe('unexpected-pass');
    expect(deriveStatus(checks, {}).status).toBe('non-conformant');
    expect(deriveStatus([checks[0]], {}).status).toBe('conformant');
    expect(summarize(checks)).toMatchObject({ expectedFailures: 1, unexpectedPasses: 1, requiredFailed: 0 });
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

const exchange = { request: { method: 'POST', url: 'http://127.0.0.1:1', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }, response: { status: 200, headers: {}, body: '<b>' }, durationMs: 1, curl: "curl -sS -i -X POST 'http://127.0.0.1:1'" };
const failing = doc([
  result('rpc.ok', 'passed'),
  result('rpc.bad', 'failed', { exchanges: [exchange], exchangeCount: 1, expected: '0x1', actual: '0x2' }),
  result('rpc.blocked1', 'inconclusive', { blockedBy: 'rpc.bad' }),
  result('rpc.blocked2', 'inconclusive', { blockedBy: 'rpc.bad' }),
  result('rest.adv', 'failed', { level: 'advisory', needs: ['rest'], section: '2.1' }),
  result('rest.skip', 'skipped', { needs: ['rest'], section: '2.1' }),
  result('preconf.x', 'skipped', { needs: ['rpc', 'signer'], outOfScope: 'no --signer-key' }),
], {}, { ...FULL, signer: false });

describe('reports', () => {
  it('quote the statement a failed check enforces, from the statement table results.json carries', () => {
    const quote = '4.5.1 "eth_getTransactionCount returns the account\'s transaction count, its current nonce, as a hex quantity';
    expect(failing.statements).toEqual({ '4.5.1': expect.stringMatching(/^eth_getTransactionCount returns/) });
    expect(renderSummary(failing)).toContain(`> enforces: ${quote}`);
    expect(renderJunit(failing)).toMatch(/  enforces: 4\.5\.1 &quot;eth_getTransactionCount returns the account(&apos;|')s transaction count/);
    const html = renderHtml(failing);
    expect(html).toContain(`<div class="muted">enforces: ${escapeHtml(quote)}`);
    // A passed check quotes nothing; a document without the table (an older results.json) neither.
    expect(html.match(/enforces: /g)).toHaveLength(2);
    expect(renderSummary({ ...failing, statements: undefined })).not.toContain('enforces:');
  });

  it('junit: classnames per group, run failures as <failure>, blocked as <skipped> naming the root, properties', () => {
    const xml = renderJunit(failing);
    expect(xml.match(/<testcase /g)).toHaveLength(7);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('classname="conformance.rpc"');
    expect(xml).toContain('classname="conformance.rest"');
    expect(xml).toContain('<testsuite name="conformance.rpc" tests="4" failures="1" errors="0" skipped="2"');
    expect(xml).toContain('<skipped message="not judged: blocked by rpc.bad"/>');
    expect(xml).toContain('blocked 2 check(s): rpc.blocked1, rpc.blocked2');
    expect(xml).toContain('<skipped message="skipped: why rest.skip &lt;&amp;&gt; &quot;&quot;"/>');
    expect(xml).toContain('<skipped message="out of scope (no --signer-key): why preconf.x');
    for (const p of ['suite.version" value="0"', 'spec.version" value="1.0.0"', 'status" value="non-conformant"', 'target.rpc" value="https://rpc.example"', 'exitCode" value="1"']) expect(xml).toContain(`<property name="${p}`);
    expect(xml).not.toMatch(/\u0000/);
    expect(xml).toContain('reproduce: curl');
  });

  it('junit: a required inconclusive check is an <error> with the reason; an advisory one is skipped', () => {
    const xml = renderJunit(doc([result('rpc.a', 'inconclusive', { reason: 'throttled' }), result('rpc.b', 'inconclusive', { level: 'advisory', reason: 'timing' })]));
    expect(xml).toContain('<error message="not judged: throttled" type="inconclusive">');
    expect(xml).toContain('<skipped message="inconclusive (advisory): timing"/>');
    expect(xml).toContain('errors="1"');
  });

  it('junit: an unreachable target is one failure of its own', () => {
    const xml = renderJunit(doc([result('rpc.a', 'inconclusive', { blockedBy: 'target unreachable: rpc' }), result('rpc.b', 'inconclusive', { blockedBy: 'target unreachable: rpc' })], { unreachable: { rpc: 'ECONNREFUSED' } }));
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('<failure message="target unreachable: rpc: ECONNREFUSED" type="unreachable">blocked 2 check(s): rpc.a, rpc.b</failure>');
  });

  it('summary.md leads with status and scope, then the root cause with what it blocked, expected vs actual and the curl line', () => {
    const md = renderSummary(failing);
    expect(md.split('\n')[0]).toBe('# ❌ Tokenized stocks conformance: non-conformant');
    expect(md).toContain('**Status: non-conformant — pre-confirmed state not judged (no --signer-key) (profile dedicated)** · exit 1');
    expect(md.indexOf('## What fails the run (1)')).toBeLessThan(md.indexOf('## By spec section'));
    expect(md).toContain('### ❌ `rpc.bad` (spec 4.5)');
    expect(md).toContain('- blocked 2 check(s), not judged because of it: `rpc.blocked1`, `rpc.blocked2`');
    expect(md).toContain('- expected: `"0x1"`');
    expect(md).toContain("reproduce: curl -sS -i -X POST 'http://127.0.0.1:1'");
    expect(md).toContain('| out of scope | no --signer-key | 1: preconf.x |');
    expect(md).toMatch(/^1 passed, 2 failed, 2 not judged, 2 skipped — status non-conformant, exit 1/m);
  });

  it('report.html: self-contained, status and scope first, root causes, sections with counts, passed folded, filter and search', () => {
    const html = renderHtml(failing);
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
    expect(html).toContain('<summary>2.1 Tokenized equity token <span class="counts">');
    expect(html).toMatch(/<details class="passed-group"><summary>1 passed<\/summary><details class="check" id="check-rpc.ok"/);
    expect(html).toContain('<details class="check" id="check-rpc.bad" data-id="rpc.bad" data-outcome="run-failure" open>');
    expect(html).toContain('data-filter="unjudged"');
    expect(html).toContain('id="search"');
    expect(html).toContain('Nothing measured in this run');
  });

  it('every reporter states the same status, scope and exit code', () => {
    for (const d of [failing, doc([result('rpc.a', 'passed'), result('rpc.b', 'inconclusive')]), doc([result('rpc.a', 'passed')], { interrupted: 'interrupted by SIGINT', stoppedBy: 'signal' })]) {
      const line = statusLine(d);
      const words = { 0: 'exit 0: conformant', 1: 'exit 1', 3: 'exit 3: incomplete', 130: 'exit 130: interrupted' }[d.exitCode as 0 | 1 | 3 | 130];
      const out = sink(false);
      new ConsoleReporter(out.stream, d.checks.length, {}).finished(d, []);
      const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
      for (const [name, text] of [
        ['console', out.text()],
        ['summary.md', renderSummary(d)],
        ['report.html', renderHtml(d)],
        ['junit.xml', renderJunit(d)],
      ]) {
        const plain = name === 'junit.xml' || name === 'report.html' ? esc(line) : line;
        if (!text.includes(plain)) throw new Error(`${name} does not state "${line}"`);
        if (!text.includes(name === 'junit.xml' || name === 'report.html' ? esc(words) : words)) throw new Error(`${name} does not state "${words}"`);
      }
      // The console's last lines are the status and the exit code.
      expect(out.text().trimEnd().split('\n').slice(-2)).toEqual([`status: ${line}`, expect.stringContaining(words)]);
    }
  });
});

describe('console', () => {
  it('colour only on a TTY, never with NO_COLOR', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    const tty = sink(true);
    new ConsoleReporter(tty.stream, failing.checks.length, { NO_COLOR: '1', CI: 'true' }).finished(failing, []);
    expect(tty.text()).not.toMatch(/\u001b\[/);
    const coloured = sink(true);
    new ConsoleReporter(coloured.stream, failing.checks.length, { CI: 'true' }).finished(failing, []);
    expect(coloured.text()).toMatch(/\u001b\[31m/);
  });

  it('plain lines off a TTY; on a TTY one progress line rewritten in place, failures printed above it', () => {
    const plain = sink(false);
    const r = new ConsoleReporter(plain.stream, 2, {});
    r.result(result('rpc.ok', 'passed'));
    r.result(result('rpc.bad', 'failed'));
    expect(plain.text()).toBe('[1/2] ✓ pass rpc.ok (4.5) 3ms\n[2/2] ✗ FAIL rpc.bad (4.5) 3ms — why rpc.bad <&> "\u0000"\n');
    const tty = sink(true);
    const t = new ConsoleReporter(tty.stream, 2, { NO_COLOR: '1' });
    t.started({ ...result('rpc.ok', 'passed'), run: async () => {} });
    t.result(result('rpc.ok', 'passed'));
    t.result(result('rpc.bad', 'failed'));
    t.finished(doc([result('rpc.ok', 'passed'), result('rpc.bad', 'failed')]), []);
    expect(tty.text()).toContain('\r\u001b[2K[1/2] · 4.5 eth_getTransactionCount · 0 s');
    expect(tty.text()).toContain('✗ FAIL rpc.bad (4.5) — why rpc.bad');
    expect(tty.text()).not.toContain('✓ pass rpc.ok');
  });

  it('ends with a table by section, failures in two or three lines, skipped grouped by reason', () => {
    const out = sink(false);
    new ConsoleReporter(out.stream, failing.checks.length, {}).finished(failing, ['r/results.json']);
    const text = out.text();
    expect(text).toMatch(/ {2}2\.1 Tokenized equity token +0 +1 +0 +1\n/);
    expect(text).toMatch(/ {2}total +1 +2 +2 +2\n/);
    expect(text).toContain(`✗ fails the run (1):\n  ✗ rpc.bad (spec 4.5) — why rpc.bad <&> "\u0000"\n      enforces: 4.5.1 "eth_getTransactionCount returns the account's transaction count, its current nonce, as a hex quantity — the nonce to put in the account's next transaction."\n      expected "0x1", actual "0x2"\n      blocked 2 check(s): rpc.blocked1, rpc.blocked2\n`);
    expect(text).toContain('out of scope (1): no --signer-key — preconf.x');
    expect(text).toContain('skipped (1): why rest.skip');
    expect(text).toContain('reports: r/results.json');
  });
});

describe('schemas/results.json', () => {
  it('accepts a document with status, scope, blocked and out-of-scope checks, and the run facts', () => {
    const d = doc([result('rpc.a', 'inconclusive', { blockedBy: 'target unreachable: rpc' }), result('preconf.b', 'skipped', { outOfScope: 'no --signer-key' })], { unreachable: { rpc: 'ECONNREFUSED' }, interrupted: 'interrupted by SIGINT', stoppedBy: 'signal' });
    expect(validateRef('results.json', JSON.parse(JSON.stringify(d))).errors).toEqual([]);
  });

  it('rejects a document without a status or with one it does not know', () => {
    const { status: _status, ...without } = failing;
    expect(validateRef('results.json', JSON.parse(JSON.stringify(without))).valid).toBe(false);
    expect(validateRef('results.json', { ...JSON.parse(JSON.stringify(failing)), status: 'mostly-fine' }).valid).toBe(false);
    expect(validateRef('results.json', { ...JSON.parse(JSON.stringify(failing)), scope: { ...failing.scope, full: 'yes' } }).valid).toBe(false);
  });
});
