// A reader of a stored verdict fails closed: an outcome or effect outside the vocabulary (a
// results.json bent on its way, written by another version, edited by hand) never reads as a pass.
import { readerCheck, type ReaderDocument } from '../../src/verdict/reader';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompareError, loadRun } from '../../src/cli/compare';
import { isFromThisRun, jestOutcome } from '../../src/cli/jest/outcome';
import { validateRef } from '../../src/harness/schemas';
import type { Judged } from '../../src/verdict/outcome';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';

const RUN: Pick<ReaderDocument, 'rootCauses' | 'status' | 'exitCode'> = { rootCauses: [], status: 'incomplete', exitCode: 3 };
const stored = (outcome: string, effect: string): Judged => ({ ...checkResult('rpc.x', 'inconclusive'), outcome, effect }) as unknown as Judged;

describe('the jest adapter reads an unknown stored outcome or effect as a failing test', () => {
  it.each([
    ['***', '***'],
    ['***', 'none'],
    ['PASSED', 'none'],
    ['', 'none'],
    ['not-judged', '***'],
    ['blocked', ''],
  ])('outcome %j, effect %j: fails', (outcome, effect) => {
    expect(jestOutcome(readerCheck(stored(outcome, effect)), RUN).kind).toBe('fail');
  });

  it('a check not judged whose stored effect is none (an advisory one) still passes, with a warning', () => {
    expect(jestOutcome(readerCheck(stored('not-judged', 'none')), RUN)).toMatchObject({
      kind: 'pass',
      warning: expect.stringMatching(/^inconclusive \(advisory\)/),
    });
  });
});

describe('results.json’s contract holds a stored verdict together: a bent one is invalid, and compare refuses it', () => {
  const doc = () =>
    JSON.parse(JSON.stringify(runDocument([checkResult('rpc.a', 'failed', { violated: ['4.2.1'] }), checkResult('rpc.b', 'passed')], FULL_SCOPE)));
  const bent: Array<[string, (d: ReturnType<typeof doc>) => void]> = [
    ['a failed check stored as passed', (d) => Object.assign(d.checks[0], { outcome: 'passed', effect: 'none' })],
    ['a failed check whose effect is none', (d) => Object.assign(d.checks[0], { effect: 'none' })],
    ['a passed check stored as failed', (d) => Object.assign(d.checks[1], { outcome: 'failed', effect: 'fails-run' })],
    ['a status conformant beside a check that fails the run', (d) => Object.assign(d, { status: 'conformant', exitCode: 0, statusReasons: [] })],
    ['a non-conformant status with exit code 0', (d) => Object.assign(d, { exitCode: 0 })],
    ['an incomplete status with exit code 0', (d) => Object.assign(d, { status: 'incomplete', exitCode: 0 })],
  ];

  it('the document as the suite writes it is valid', () => {
    expect(validateRef('results.json', doc()).errors).toEqual([]);
  });

  it.each(bent)('%s: invalid, and compare refuses it', (_what, bend) => {
    const d = doc();
    bend(d);
    expect(validateRef('results.json', d).valid).toBe(false);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'bent-')), 'results.json');
    writeFileSync(file, JSON.stringify(d));
    expect(() => loadRun(file)).toThrow(CompareError);
    expect(() => loadRun(file)).toThrow(/does not match the results\.json schema/);
  });
});

describe('the jest adapter takes only a results.json of its own run', () => {
  const started = Date.parse('2026-01-01T00:00:10.000Z');
  it.each([
    ['written after the start', '2026-01-01T00:00:10.500Z', true],
    ['within the second of slack', '2026-01-01T00:00:09.500Z', true],
    ['an earlier run', '2026-01-01T00:00:05.000Z', false],
    ['a start time garbled to ***', '***', false],
    ['none', undefined, false],
  ])('%s: %s', (_what, startedAt, ours) => {
    expect(isFromThisRun({ startedAt } as never, started)).toBe(ours);
  });
});
