import { applyExpectations, loadExpectations } from '../../src/cli/expectations';
import { renderHtml } from '../../src/cli/reporters/html';
import { renderJunit } from '../../src/cli/reporters/junit';
import { renderSummary } from '../../src/cli/reporters/summary';
import { exitCodeOf, summarize, type RunDocument } from '../../src/cli/results';
import type { CheckResult } from '../../src/harness/runner';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const result = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: `title of ${id}`,
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

function doc(checks: CheckResult[]): RunDocument {
  return {
    suite: { name: 's', version: '0' },
    spec: { version: '1.0.0' },
    target: { baseUrl: null, rpcUrl: 'http://127.0.0.1:1', profile: 'dedicated', embedded: false },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    durationMs: 1000,
    summary: summarize(checks),
    exitCode: exitCodeOf(checks),
    checks,
  };
}

describe('verdict arithmetic', () => {
  it('advisory failures, skips and inconclusive results never fail the run', () => {
    const checks = [result('rpc.a', 'passed'), result('rpc.b', 'failed', { level: 'advisory' }), result('rpc.c', 'skipped'), result('rpc.d', 'inconclusive')];
    expect(exitCodeOf(checks)).toBe(0);
    expect(summarize(checks)).toMatchObject({ passed: 1, failed: 1, advisoryFailed: 1, requiredFailed: 0, skipped: 1, inconclusive: 1 });
  });

  it('a required failure fails the run', () => {
    expect(exitCodeOf([result('rpc.a', 'failed')])).toBe(1);
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
    expect(exitCodeOf(checks)).toBe(1);
    expect(exitCodeOf([checks[0]])).toBe(0);
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

describe('reports', () => {
  const exchange = { request: { method: 'POST', url: 'http://127.0.0.1:1', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }, response: { status: 200, headers: {}, body: '<b>' }, durationMs: 1, curl: "curl -sS -i -X POST 'http://127.0.0.1:1'" };
  const d = doc([result('rpc.ok', 'passed'), result('rpc.bad', 'failed', { exchanges: [exchange], exchangeCount: 1, expected: '0x1', actual: '0x2' }), result('rest.adv', 'failed', { level: 'advisory' }), result('rest.skip', 'skipped')]);

  it('junit: one testcase per check, only run-failing checks as <failure>, no raw control characters', () => {
    const xml = renderJunit(d);
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('<skipped message="skipped: why rest.skip &lt;&amp;&gt; &quot;&quot;"/>');
    expect(xml).not.toMatch(/\u0000/);
    expect(xml).toContain('reproduce: curl');
  });

  it('summary.md names the failing check, its section, expected vs actual and the curl line', () => {
    const md = renderSummary(d);
    expect(md).toContain('❌ not conformant');
    expect(md).toContain('### ❌ `rpc.bad` (spec 4.5)');
    expect(md).toContain('- expected: `"0x1"`');
    expect(md).toContain("reproduce: curl -sS -i -X POST 'http://127.0.0.1:1'");
    expect(md).toMatch(/^1 passed, 2 failed, 1 skipped$/m);
  });

  it('report.html is self-contained and escapes what the target sent', () => {
    const html = renderHtml(d);
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(html).toContain('&lt;b&gt;');
    expect(html).not.toContain('<b>why');
    // What fails the run is listed first, linked to its row.
    expect(html.indexOf('What fails the run')).toBeLessThan(html.indexOf('<table>'));
    expect(html).toContain('<a href="#check-rpc.bad">');
    expect(html).toContain('<tr id="check-rpc.bad">');
  });
});
