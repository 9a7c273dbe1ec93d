/**
 * The one outcome model (src/verdict/outcome.ts): each result's outcome decided once, the counts per
 * outcome summing to the checks, and counts per section titled from specs/rules.yaml.
 */
import { countOutcomes, countSections, decideOutcome, judge, OUTCOMES, sectionTitle } from '../../src/verdict/outcome';
import { loadSpec } from '../../src/harness/spec-rules';
import { validateRef } from '../../src/harness/schemas';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';
import type { CheckResult } from '../../src/harness/runner';

const result = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: id,
  statements: ['4.5.1'],
  section: '4.5',
  level: 'required',
  needs: ['rpc'],
  status,
  reason: '',
  durationMs: 1,
  exchanges: [],
  exchangeCount: 0,
  ...over,
});

test('every outcome, from the facts of the result', () => {
  const cases: Array<[CheckResult, string]> = [
    [result('rpc.a', 'passed'), 'passed'],
    [result('rpc.a', 'failed'), 'failed'],
    [result('rpc.a', 'failed', { level: 'advisory' }), 'warning'],
    [result('rpc.a', 'failed', { expectation: { reason: 'r', outcome: 'expected-failure' } }), 'known-failure'],
    [result('rpc.a', 'passed', { expectation: { reason: 'r', outcome: 'unexpected-pass' } }), 'stale-expectation'],
    [result('rpc.a', 'inconclusive', { cause: 'throttled' }), 'not-judged'],
    [result('rpc.a', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }), 'not-judged'],
    [result('rpc.a', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.root' }), 'blocked'],
    [result('rpc.a', 'skipped', { cause: 'deselected', outOfScope: { flag: '--grep', words: '--grep x' } }), 'skipped'],
    [result('rpc.a', 'skipped', { cause: 'nothing-to-judge' }), 'skipped'],
    // Never begun: the run stopped first (deadline, signal). In scope, not judged: never "nothing to judge".
    [result('rpc.a', 'skipped', { cause: 'stopped', reason: 'not run: run deadline of 1200 ms reached' }), 'not-judged'],
  ];
  for (const [r, outcome] of cases) expect([r.status, r.level, r.cause, decideOutcome(r)]).toEqual([r.status, r.level, r.cause, outcome]);
  expect(new Set(cases.map(([, o]) => o))).toEqual(new Set(OUTCOMES));
});

test('the expectations file is applied in the same step: a listed failure is known, a listed pass is stale, anything else untouched', () => {
  const file = {
    expectations: [
      { id: 'rpc.k', reason: 'bug', link: 'https://tracker.example/1' },
      { id: 'rpc.s', reason: 'fixed?' },
    ],
  };
  expect(judge(result('rpc.k', 'failed'), file)).toMatchObject({
    outcome: 'known-failure',
    expectation: { reason: 'bug', link: 'https://tracker.example/1', outcome: 'expected-failure' },
  });
  expect(judge(result('rpc.s', 'passed'), file)).toMatchObject({ outcome: 'stale-expectation', expectation: { outcome: 'unexpected-pass' } });
  expect(judge(result('rpc.k', 'inconclusive'), file)).toMatchObject({ outcome: 'not-judged' });
  expect(judge(result('rpc.k', 'inconclusive'), file).expectation).toBeUndefined();
  expect(judge(result('rpc.other', 'failed'), file).outcome).toBe('failed');
});

test('counts: every outcome present, summing to the checks; per section by the first statement, in the spec order, titled from rules.yaml', () => {
  const checks = [
    judge(result('rpc.a', 'failed')),
    judge(result('rpc.b', 'failed', { level: 'advisory' })),
    judge(result('rest.c', 'passed', { statements: ['2.1.r4', '4.1.1'], section: '2.1, 4.1' })),
    judge(result('rpc.d', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.a', statements: ['4.10.1'], section: '4.10' })),
  ];
  const counts = countOutcomes(checks);
  expect(Object.keys(counts).sort()).toEqual([...OUTCOMES].sort());
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(checks.length);
  expect(counts).toMatchObject({ failed: 1, warning: 1, passed: 1, blocked: 1 });
  const sections = countSections(checks);
  expect(sections.map((s) => [s.section, s.counts.failed, s.counts.warning, s.counts.passed, s.counts.blocked])).toEqual([
    ['2.1', 0, 0, 1, 0],
    ['4.5', 1, 1, 0, 0],
    ['4.10', 0, 0, 0, 1],
  ]);
  expect(sections[0].title).toBe(loadSpec().sections.find((e) => e.id === '2.1')!.title);
});

test('a section without a heading of its own takes its parent entry title', () => {
  const spec = loadSpec();
  const untitled = spec.sections.find((e) => !e.title && e.id.includes('.'))!;
  const parent = spec.sections.find((e) => e.id === untitled.id.slice(0, untitled.id.lastIndexOf('.')))!;
  expect(sectionTitle(untitled.id)).toBe(parent.title);
});

test('a run its deadline stopped: checks never begun are not judged (effect incomplete when required), and every line counts them alike', () => {
  const stopped = { reason: 'stopped: run deadline of 1200 ms reached' };
  const notRun = { cause: 'stopped' as const, reason: 'not run: run deadline of 1200 ms reached' };
  const doc = runDocument(
    [
      checkResult('rpc.a'),
      checkResult('rpc.b', 'inconclusive', { cause: 'stopped', ...stopped }),
      checkResult('rpc.c', 'skipped', notRun),
      checkResult('rpc.d', 'skipped', notRun),
      checkResult('rpc.e', 'skipped', { ...notRun, level: 'advisory' }),
    ],
    FULL_SCOPE,
    { facts: { interrupted: 'run deadline of 1200 ms reached', stoppedBy: 'deadline' } },
  );
  expect(doc.checks.map((c) => [c.id, c.outcome, c.effect])).toEqual([
    ['rpc.a', 'passed', 'none'],
    ['rpc.b', 'not-judged', 'incomplete'],
    ['rpc.c', 'not-judged', 'incomplete'],
    ['rpc.d', 'not-judged', 'incomplete'],
    ['rpc.e', 'not-judged', 'none'],
  ]);
  // The counts, the status reason and the coverage state the same three required checks not judged.
  expect(doc.counts).toMatchObject({ passed: 1, 'not-judged': 4, skipped: 0 });
  expect(doc.statusReasons[0]).toBe('3 required checks not judged (the run stopped first: 3)');
  expect(doc.scope.coverage?.interfaces.rpc).toEqual({ inScope: 4, judged: 1, notJudged: [{ why: 'the run stopped first', checks: 3 }] });
  expect([doc.status, doc.exitCode]).toEqual(['incomplete', 3]);
  // The stored document keeps its contract (a not-judged outcome on a check that never began).
  expect(validateRef('results.json', doc).errors).toEqual([]);
});
