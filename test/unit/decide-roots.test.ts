// Blocked outcomes, stand-ins and root causes are decided in one place, from the results and the
// blocker the runner recorded on each (decideRoots). Each case is data: the results as recorded,
// then each check as decided ([id, status, cause, blockedBy or interface]) and the roots
// ([id, fails the run, checks it covers]).
import type { Blocker, CheckResult } from '../../src/harness/result';
import { decide, judge, type Judged } from '../../src/verdict/outcome';
import { decideRoots } from '../../src/verdict/root-causes';
import { deriveStatus } from '../../src/verdict/status';
import { checkResult } from '../support/documents';

const ROOT = 'rpc.envelope.http-200';
const own = { ownEvidence: true };
const onlyIfRootFailed = { onlyIfRootFailed: true };

/** A check whose subject the root's broken rule (4.2.1) hid: recorded as the failure it saw, with its blocker. */
const hidden = (id: string, flags: Omit<Extract<Blocker, { root: string }>, 'root'> = {}, over: Partial<CheckResult> = {}): CheckResult =>
  flags.onlyIfRootFailed
    ? checkResult(id, 'inconclusive', {
        cause: 'ambiguous',
        reason: `${id}: a helper answered as the broken envelope does`,
        blocker: { root: ROOT, ...flags },
        ...over,
      })
    : checkResult(id, 'failed', { cause: 'violation', violated: ['4.2.1'], reason: `${id}: HTTP 500`, blocker: { root: ROOT, ...flags }, ...over });
/** A check of an interface the probe found unreachable: recorded as the failure it would state. */
const unreachable = (id: string, over: Partial<CheckResult> = {}): CheckResult =>
  checkResult(id, 'failed', {
    cause: 'unreachable',
    unreachable: 'rpc',
    violated: ['4.2.1'],
    reason: 'target unreachable: ECONNREFUSED',
    blocker: { unreachable: 'rpc' },
    ...over,
  });
const rootFailed = checkResult(ROOT, 'failed', { cause: 'violation', violated: ['4.2.1'], reason: 'HTTP 500 to every call' });
const rootPassed = checkResult(ROOT, 'passed');

type Row = [id: string, status: string, cause?: string, by?: string];
type RootRow = [id: string, failsRun: boolean, covers: string[]];
const CASES: Array<[name: string, recorded: CheckResult[], checks: Row[], roots: RootRow[]]> = [
  [
    'root failed: every check it hid is blocked by it, never failed again',
    [rootFailed, hidden('rpc.a'), hidden('rpc.b')],
    [
      [ROOT, 'failed', 'violation'],
      ['rpc.a', 'inconclusive', 'blocked', ROOT],
      ['rpc.b', 'inconclusive', 'blocked', ROOT],
    ],
    [[ROOT, true, ['rpc.a', 'rpc.b']]],
  ],
  [
    'root passed on its own request: the first required check stands in, the others are blocked by it',
    [rootPassed, hidden('rpc.adv', {}, { level: 'advisory' }), hidden('rpc.a'), hidden('rpc.b')],
    [
      [ROOT, 'passed'],
      ['rpc.adv', 'inconclusive', 'blocked', 'rpc.a'],
      ['rpc.a', 'failed', 'violation'],
      ['rpc.b', 'inconclusive', 'blocked', 'rpc.a'],
    ],
    [['rpc.a', true, ['rpc.adv', 'rpc.b']]],
  ],
  [
    'root not in the run: the first required check stands in for it',
    [hidden('rpc.a'), hidden('rpc.b')],
    [
      ['rpc.a', 'failed', 'violation'],
      ['rpc.b', 'inconclusive', 'blocked', 'rpc.a'],
    ],
    [['rpc.a', true, ['rpc.b']]],
  ],
  [
    'ownEvidence, root passed: each answer to its own request is its own fault; one that is not still stands in once',
    [rootPassed, hidden('rpc.safe', own), hidden('rpc.finalized', own), hidden('rpc.c')],
    [
      [ROOT, 'passed'],
      ['rpc.safe', 'failed', 'violation'],
      ['rpc.finalized', 'failed', 'violation'],
      ['rpc.c', 'failed', 'violation'],
    ],
    [
      ['rpc.safe', true, []],
      ['rpc.finalized', true, []],
      ['rpc.c', true, []],
    ],
  ],
  [
    'ownEvidence, root failed: blocked by it like any other',
    [rootFailed, hidden('rpc.safe', own)],
    [
      [ROOT, 'failed', 'violation'],
      ['rpc.safe', 'inconclusive', 'blocked', ROOT],
    ],
    [[ROOT, true, ['rpc.safe']]],
  ],
  [
    'onlyIfRootFailed, root passed: not judged, never a stand-in failure',
    [rootPassed, hidden('rpc.helper', onlyIfRootFailed)],
    [
      [ROOT, 'passed'],
      ['rpc.helper', 'inconclusive', 'ambiguous'],
    ],
    [],
  ],
  [
    'onlyIfRootFailed, root failed: blocked by it',
    [rootFailed, hidden('rpc.helper', onlyIfRootFailed)],
    [
      [ROOT, 'failed', 'violation'],
      ['rpc.helper', 'inconclusive', 'blocked', ROOT],
    ],
    [[ROOT, true, ['rpc.helper']]],
  ],
  [
    'onlyIfRootFailed beside a check whose evidence stands: blocked by that stand-in',
    [hidden('rpc.helper', onlyIfRootFailed), hidden('rpc.b')],
    [
      ['rpc.helper', 'inconclusive', 'blocked', 'rpc.b'],
      ['rpc.b', 'failed', 'violation'],
    ],
    [['rpc.b', true, ['rpc.helper']]],
  ],
  [
    "unreachable interface: its designated root check states it once, as the interface's root; the others are not judged",
    [unreachable('rpc.a'), unreachable(ROOT), unreachable('rpc.adv', { level: 'advisory' })],
    [
      ['rpc.a', 'inconclusive', 'unreachable', 'rpc'],
      [ROOT, 'failed', 'unreachable', 'rpc'],
      ['rpc.adv', 'inconclusive', 'unreachable', 'rpc'],
    ],
    [['target unreachable: rpc', true, ['rpc.a', 'rpc.adv']]],
  ],
  [
    'unreachable interface, its designated root not selected: the first required check states it',
    [unreachable('rpc.adv', { level: 'advisory' }), unreachable('rpc.a'), unreachable('rpc.b')],
    [
      ['rpc.adv', 'inconclusive', 'unreachable', 'rpc'],
      ['rpc.a', 'failed', 'unreachable', 'rpc'],
      ['rpc.b', 'inconclusive', 'unreachable', 'rpc'],
    ],
    [['target unreachable: rpc', true, ['rpc.adv', 'rpc.b']]],
  ],
  [
    'a violation the check recorded before it was blocked stays its failure, whatever its root did',
    [
      rootFailed,
      hidden(
        'rpc.seen',
        {},
        { reason: 'decimals 8 in REST, 18 on chain; then, before the check finished: HTTP 500', interrupted: { cause: 'violation', reason: 'HTTP 500' } },
      ),
      hidden('rpc.b'),
    ],
    [
      [ROOT, 'failed', 'violation'],
      ['rpc.seen', 'failed', 'violation'],
      ['rpc.b', 'inconclusive', 'blocked', ROOT],
    ],
    [
      [ROOT, true, ['rpc.b']],
      ['rpc.seen', true, []],
    ],
  ],
  [
    'a root itself blocked passes its blocker on: the chain names its first link',
    [rootFailed, hidden('rpc.mid.check'), checkResult('rpc.leaf', 'failed', { cause: 'violation', violated: ['4.2.1'], blocker: { root: 'rpc.mid.check' } })],
    [
      [ROOT, 'failed', 'violation'],
      ['rpc.mid.check', 'inconclusive', 'blocked', ROOT],
      ['rpc.leaf', 'inconclusive', 'blocked', ROOT],
    ],
    [[ROOT, true, ['rpc.mid.check', 'rpc.leaf']]],
  ],
];

const row = (r: Judged): Row => {
  const by = r.blockedBy ?? r.unreachable;
  return [r.id, r.status, ...(r.cause ? [r.cause] : []), ...(by ? [by] : [])] as Row;
};

describe('decideRoots: blocked outcomes, stand-ins and root causes from the recorded blockers', () => {
  it.each(CASES)('%s', (_name, recorded, checks, roots) => {
    // The probe's fact beside the checks it left unreachable.
    const facts = recorded.some((r) => r.cause === 'unreachable') ? { unreachable: { rpc: 'ECONNREFUSED' } } : {};
    const decided = decideRoots(
      recorded.map((r) => judge(r)),
      facts,
    );
    expect(decided.checks.map(row)).toEqual(checks);
    expect(decided.roots.map((r): RootRow => [r.id, r.failsRun, r.blocked])).toEqual(roots);
    // Each outcome is decided again with its facts, and no blocker is left for results.json.
    for (const c of decided.checks)
      expect({ id: c.id, outcome: c.outcome, effect: c.effect, blocker: c.blocker }).toEqual({ id: c.id, ...decide(c), blocker: undefined });
    // A document's results carry no blocker: deciding them again (verify-certificate) gives the same.
    expect(decideRoots(decided.checks, facts)).toEqual(decided);
  });

  it('says in the reason why a check stands in, or was blocked, or is its own fault', () => {
    const reasons = (recorded: CheckResult[]) => decideRoots(recorded.map((r) => judge(r))).checks.map((c) => c.reason);
    expect(reasons([rootPassed, hidden('rpc.a'), hidden('rpc.b')])).toEqual([
      '',
      `rpc.a: HTTP 500 (stated here: ${ROOT} passed on its own request, so the answer changed between requests)`,
      'blocked by rpc.a: rpc.b: HTTP 500',
    ]);
    expect(reasons([hidden('rpc.a')])).toEqual([`rpc.a: HTTP 500 (stated here: ${ROOT}, which judges that rule, was not selected)`]);
    expect(reasons([rootPassed, hidden('rpc.safe', own)])[1]).toBe(`rpc.safe: HTTP 500 (${ROOT} passed on its own request: this answer is this request's own)`);
    expect(reasons([unreachable('rpc.a'), unreachable('rpc.b')])[1]).toBe('blocked by target unreachable: rpc: target unreachable: ECONNREFUSED');
  });

  it('a root that did not pass is never said to have passed: a throttled, stopped or deselected root is named for what it was', () => {
    const reasons = (recorded: CheckResult[]) => decideRoots(recorded.map((r) => judge(r))).checks.map((c) => c.reason);
    const throttled = checkResult(ROOT, 'inconclusive', { cause: 'throttled', interface: 'rpc', reason: 'throttled: HTTP 429 to every try' });
    // The evidence still stands once (a violation seen is a violation): one check states the root's rule, the others are blocked by it.
    const decided = decideRoots([throttled, hidden('rpc.a'), hidden('rpc.b')].map((r) => judge(r)));
    expect(decided.checks.map((c) => [c.id, c.outcome, c.effect])).toEqual([
      [ROOT, 'not-judged', 'incomplete'],
      ['rpc.a', 'failed', 'fails-run'],
      ['rpc.b', 'blocked', 'incomplete'],
    ]);
    expect(decided.checks[1].reason).toBe(`rpc.a: HTTP 500 (stated here: ${ROOT}, which judges that rule, was not judged (throttled))`);
    expect(reasons([throttled, hidden('rpc.safe', own)])[1]).toBe(`rpc.safe: HTTP 500 (${ROOT} was not judged (throttled): this answer is this request's own)`);
    const stopped = checkResult(ROOT, 'skipped', { cause: 'stopped', reason: 'not run: run deadline of 1200 ms reached' });
    expect(reasons([stopped, hidden('rpc.a')])[1]).toBe(
      `rpc.a: HTTP 500 (stated here: ${ROOT}, which judges that rule, was not judged (the run stopped first))`,
    );
    const deselected = checkResult(ROOT, 'skipped', { cause: 'deselected', outOfScope: { flag: '--grep', words: '--grep getCode' }, reason: 'not selected' });
    expect(reasons([deselected, hidden('rpc.a')])[1]).toBe(`rpc.a: HTTP 500 (stated here: ${ROOT}, which judges that rule, was not selected (--grep getCode))`);
    for (const root of [throttled, stopped, deselected])
      for (const r of reasons([root, hidden('rpc.a'), hidden('rpc.b', own)])) expect(r).not.toMatch(/passed/);
  });

  it('a blocked check keeps nothing of the failure it would have been: no violated, expected, actual, nor an expectation that listed that failure', () => {
    const known = { expectations: [{ id: 'rpc.a', reason: 'known: the envelope is broken' }] };
    const [, a] = decideRoots([judge(rootFailed), judge(hidden('rpc.a', {}, { expected: { kind: 'integer', value: '200' } }), known)]).checks;
    expect(a).toMatchObject({ status: 'inconclusive', outcome: 'blocked', effect: 'incomplete', blockedBy: ROOT });
    expect([a.violated, a.expected, a.actual, a.expectation]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('the status counts each failure once, from the roots: the stand-in of an unreachable interface is that interface, not also a failed check', () => {
    const facts = { unreachable: { rpc: 'ECONNREFUSED' } };
    const decided = decideRoots(
      [unreachable(ROOT), unreachable('rpc.a'), checkResult('rest.x', 'failed', { cause: 'violation', needs: ['rest'] })].map((r) => judge(r)),
      facts,
    );
    expect(deriveStatus(decided, facts).reasons).toEqual(['1 required check failed', 'JSON-RPC target unreachable: ECONNREFUSED']);
  });
});
