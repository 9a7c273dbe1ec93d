/**
 * How a check's result reads as a jest test (src/cli/jest/outcome.ts): the run's own verdicts,
 * carried by jest's states. Each case is a result as the runner returns it.
 */
import { readerCheck, readerDocument } from '../../src/verdict/reader';
import { jestOutcome as outcomeOfJudged, runStatusTest } from '../../src/cli/jest/outcome';
import { deriveScope } from '../../src/verdict/scope';
import { statusLine } from '../../src/verdict/status';
import type { RunDocument } from '../../src/verdict/document';
import { FULL_SCOPE, judged, runDocument } from '../support/documents';

import type { CheckResult } from '../../src/harness/runner';

/** The result as results.json stores it: its outcome and effect decided by src/verdict/outcome.ts, the run's root causes, status and exit code by src/verdict/seal.ts. */
const jestOutcome = (r: CheckResult) => {
  const doc = readerDocument(runDocument([r], FULL_SCOPE));
  return outcomeOfJudged(readerCheck(judged(r)), doc);
};

const base: CheckResult = {
  id: 'rest.list.status-200',
  title: 'GET /v1/tokenized-stocks answers HTTP 200',
  statements: ['4.1.1'],
  section: '4.1',
  level: 'required',
  needs: ['rest'],
  status: 'passed',
  reason: '',
  durationMs: 3,
  exchanges: [],
  exchangeCount: 0,
};
const exchange = {
  request: { method: 'GET', url: 'http://127.0.0.1:1/v1/tokenized-stocks', headers: {} },
  response: { status: 500, headers: {}, body: '{}' },
  durationMs: 1,
  curl: "curl -sS 'http://127.0.0.1:1/v1/tokenized-stocks'",
};
const failed: CheckResult = {
  ...base,
  status: 'failed',
  reason: 'GET /v1/tokenized-stocks: expected HTTP 200, got 500',
  expected: { kind: 'http-status', value: 200 },
  actual: { kind: 'http-status', value: 500 },
  exchanges: [exchange],
  exchangeCount: 2,
};

test('passed passes; skipped is skipped with its reason', () => {
  expect(jestOutcome(base)).toEqual({ kind: 'pass' });
  expect(jestOutcome({ ...base, status: 'skipped', reason: 'needs --base-url (REST target)' })).toEqual({
    kind: 'skip',
    reason: 'needs --base-url (REST target)',
  });
});

test('a required failure fails with the reason, section, expected vs actual and the curl line', () => {
  const o = jestOutcome(failed);
  expect(o.kind).toBe('fail');
  const message = (o as { message: string }).message;
  expect(message).toContain('spec section: 4.1');
  expect(message).toContain('enforces: 4.1.1 "GET {base_url}/v1/tokenized-stocks answers 200 with an application/json list response."');
  expect(message).toContain('expected HTTP 200, got 500');
  expect(message).toContain('expected: HTTP 200');
  expect(message).toContain('actual:   HTTP 500');
  expect(message).toContain("reproduce: curl -sS 'http://127.0.0.1:1/v1/tokenized-stocks'");
  expect(message).toContain('2 exchange(s)');
});

test('an advisory failure and an expected failure pass with a warning', () => {
  const advisory = jestOutcome({ ...failed, level: 'advisory' });
  expect(advisory).toMatchObject({ kind: 'pass' });
  expect((advisory as { warning: string }).warning).toContain('expected HTTP 200, got 500');
  const known = jestOutcome({ ...failed, expectation: { reason: 'ticket 12', outcome: 'expected-failure' } });
  expect(known).toMatchObject({ kind: 'pass' });
  expect((known as { warning: string }).warning).toContain('expectation: ticket 12');
});

test('a listed known failure that passes (a stale expectation) passes the test with the news, as it leaves the run conformant', () => {
  const o = jestOutcome({ ...base, expectation: { reason: 'ticket 12', outcome: 'unexpected-pass' } });
  expect(o).toMatchObject({ kind: 'pass' });
  expect((o as { warning: string }).warning).toMatch(/passed, but the expectations file lists it.*ticket 12.*remove the entry/);
});

test('inconclusive: required fails (the run is incomplete), advisory passes with a warning', () => {
  const required = jestOutcome({ ...base, status: 'inconclusive', cause: 'throttled', reason: 'HTTP 429 on every attempt' });
  expect(required).toMatchObject({ kind: 'fail' });
  expect((required as { message: string }).message).toMatch(
    /^INCONCLUSIVE, not a verdict on the target: the run is incomplete \(the CLI exits 3\)[\s\S]*HTTP 429 on every attempt/,
  );
  const advisory = jestOutcome({ ...base, level: 'advisory', status: 'inconclusive', reason: 'stayed ambiguous' });
  expect(advisory).toEqual({ kind: 'pass', warning: 'inconclusive (advisory): rest.list.status-200: stayed ambiguous' });
});

test('required, inconclusive because its target was unreachable: fails as non-conformant (exit 1), not as incomplete', () => {
  const o = jestOutcome({
    ...base,
    status: 'inconclusive',
    cause: 'unreachable',
    unreachable: 'rest',
    reason: 'not judged: target unreachable: rest (connect ECONNREFUSED 127.0.0.1:1)',
  });
  expect(o).toMatchObject({ kind: 'fail' });
  const message = (o as { message: string }).message;
  expect(message).toMatch(/^REST target unreachable: the run is non-conformant \(the CLI exits 1\)/);
  expect(message).toContain('ECONNREFUSED');
  expect(message).not.toMatch(/incomplete|exits 3/);
});

test('an incomplete or non-conformant run is a failing test of its own, named for the run status; a conformant run adds none', () => {
  const scope = deriveScope([judged(base)], { ...FULL_SCOPE, signer: false });
  // The headline as results.json stores it (src/verdict/seal.ts writes statusLine's words once).
  const stored = (d: Pick<RunDocument, 'status' | 'statusReasons' | 'exitCode'>) => ({ ...d, headline: statusLine({ ...d, scope }) });
  const incomplete = runStatusTest(stored({ status: 'incomplete', statusReasons: ['1 required check not judged (throttled: 1)'], exitCode: 3 }));
  expect(incomplete?.name).toMatch(/^conformance run: incomplete — /);
  expect(incomplete?.message).toContain('exit 3: incomplete');
  expect(incomplete?.message).toContain('  - 1 required check not judged (throttled: 1)');
  expect(runStatusTest(stored({ status: 'non-conformant', statusReasons: ['1 required check failed'], exitCode: 1 }))?.name).toMatch(
    /^conformance run: non-conformant — /,
  );
  expect(runStatusTest(stored({ status: 'conformant', statusReasons: [], exitCode: 0 }))).toBeUndefined();
});
