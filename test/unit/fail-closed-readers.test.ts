// A reader of a stored verdict fails closed: an outcome or effect outside the vocabulary (a
// results.json bent on its way, written by another version, edited by hand) never reads as a pass.
import { jestOutcome } from '../../src/cli/jest/outcome';
import type { Judged } from '../../src/cli/outcome';
import { checkResult } from '../support/documents';

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
    expect(jestOutcome(stored(outcome, effect), []).kind).toBe('fail');
  });

  it('a check not judged whose stored effect is none (an advisory one) still passes, with a warning', () => {
    expect(jestOutcome(stored('not-judged', 'none'), [])).toMatchObject({ kind: 'pass', warning: expect.stringMatching(/^inconclusive \(advisory\)/) });
  });
});
