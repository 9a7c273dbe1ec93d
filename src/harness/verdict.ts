/**
 * The verdict vocabulary: what a check (or a judging helper it calls) throws to say how a rule
 * fared. A leaf: it imports only the run's evidence ledger (fail() records there before it
 * throws), and only checks, their judging helpers and the runner that classifies the outcome use
 * it. Clients never do: they return observations.
 */
import { recordOnCurrentPage, type Violation } from './evidence';

export interface FailureDetail {
  /**
   * The statements of specs/rules.yaml whose evidence failed, each one the check declares
   * (fail('…', { violated: ['4.5.1'] })): a failure naming another is a bug of the suite, and the
   * runner reports it as such (cause `internal`). A rule another check owns (a broken JSON-RPC
   * envelope, 4.2.1) is thrown as Blocked by that check. Absent, the failure violated every
   * statement the check declares (its only one, for most checks).
   */
  violated?: readonly string[];
  expected?: unknown;
  actual?: unknown;
  /** What the user can do about it (e.g. run with --profile public): kept apart from the message so no display cuts it. */
  hint?: string;
}

/** A real violation of a cited rule. */
export class CheckFailure extends Error {
  constructor(
    message: string,
    readonly detail: FailureDetail = {},
  ) {
    super(message);
    this.name = 'CheckFailure';
  }
}

/**
 * Why a result is what it is when it is not a plain pass: the fact status, scope, root causes
 * and every reporter read. The `reason` beside it is words for people, never parsed back.
 *
 * - `violation` (failed): a cited rule was broken — fail(), or a Blocked stand-in citing its root's rule.
 * - `transport` (failed): no HTTP answer where the rule needs one (refused, reset, timed out).
 * - `unreachable` (failed or inconclusive): the interface named in `unreachable` did not answer
 *   the probe before the run; one check states it as a failure, the others are not judged.
 * - `blocked` (inconclusive): a prerequisite rule, judged by the check named in `blockedBy`,
 *   failed in this run, so the subject could not be observed.
 * - `throttled` (inconclusive): the provider kept asking us to slow down (429 / rate limit);
 *   `interface` names whose answers, and the hint says to use --max-rps.
 * - `credentials` (inconclusive): the node refused the run's credentials (HTTP 401, or 403 with an
 *   authentication challenge) on a dedicated profile: credential schemes are outside the spec
 *   (5.3), so nothing is judged; `interface` names the interface, the hint the header flags.
 * - `gateway` (inconclusive): the gateway in front of the target kept answering 502/503/504 (its
 *   backend down or overloaded): outside the spec; `interface` names the interface.
 * - `stopped` (inconclusive, or skipped when it never began): the run was interrupted or
 *   reached its deadline.
 * - `timeout` (inconclusive): the check's own time limit passed.
 * - `internal` (inconclusive): the check itself threw something unexpected: a bug, not a verdict.
 * - `limit` (inconclusive): a bound of the suite's own was reached (an answer nested too deeply
 *   to read, a document too large to analyse): the target is not judged by a limit the spec lacks.
 * - `ambiguous` (inconclusive): the observation stayed ambiguous after bounded retries (inconclusive()).
 * - `nothing-to-judge` (skipped): the target offered nothing the rule applies to (skip()).
 * - `out-of-scope` (skipped): the user's choice of scope left it out: a flag not given, or the
 *   profile; `outOfScope.flag` names it.
 * - `deselected` (skipped): --only or --grep did not select it; `outOfScope.flag` names which.
 */
export const CAUSES = [
  'violation',
  'transport',
  'unreachable',
  'blocked',
  'throttled',
  'credentials',
  'gateway',
  'stopped',
  'timeout',
  'internal',
  'limit',
  'ambiguous',
  'nothing-to-judge',
  'out-of-scope',
  'deselected',
] as const;
export type Cause = (typeof CAUSES)[number];

/** The flags whose absence or value leaves checks out of a run. */
export const SCOPE_FLAGS = ['--only', '--grep', '--base-url', '--rpc-url', '--signer-key', '--profile', '--openapi', '--archive', '--nav-max-age'] as const;
export type ScopeFlag = (typeof SCOPE_FLAGS)[number];

/** What the user's choice of scope left out: the flag (for code) and in words (for people, e.g. `no --signer-key`, `--only rest`). */
export interface OutOfScope {
  flag: ScopeFlag;
  words: string;
}

/** Left out because `flag` was not given. */
export function notGiven(flag: ScopeFlag): OutOfScope {
  return { flag, words: `no ${flag}` };
}

/** The check cannot judge here (missing prerequisite, nothing to judge); never a pass. */
export class Skip extends Error {
  override name = 'Skip';
  constructor(
    message: string,
    /** Set when the user's own choice of scope left this out (e.g. no --archive); see CheckResult.outOfScope. */
    readonly outOfScope?: OutOfScope,
  ) {
    super(message);
  }
}

/** The observation stayed ambiguous after bounded retries; never a guess either way. */
export class Inconclusive extends Error {
  override name = 'Inconclusive';
  constructor(
    message: string,
    /** Why, as data: `limit` when a bound of the suite's own stopped it; otherwise ambiguous. */
    readonly kind: 'ambiguous' | 'limit' = 'ambiguous',
  ) {
    super(message);
  }
}

/**
 * The check's subject could not be observed because a prerequisite rule was broken, one that
 * the check `root` judges (e.g. the list answered 500: `rest.list.status-200`). The runner
 * reports the check `inconclusive`, blocked by the root, when the root failed in the same run;
 * otherwise this is a failure citing `detail.violated` (the root's rule), so that the evidence
 * still fails the run once. Thrown by the check `root` itself, it is a plain failure.
 */
export class Blocked extends Error {
  override name = 'Blocked';
  constructor(
    readonly root: string,
    message: string,
    readonly detail: FailureDetail & { violated: readonly string[] },
    /**
     * Only the root's failure explains it (a helper method outside the spec answering as the
     * broken envelope does): when the root did not fail in the run, this is no evidence of its
     * own, so the check is not judged (ambiguous), never a failure standing in for the root.
     */
    readonly onlyIfRootFailed = false,
    /**
     * Its own evidence, about its own request (a method answering this call with an error under
     * a non-200 status): when the root did not fail, this check keeps its failure, each such one
     * stated once, never standing in for the others nor blocked by one that does.
     */
    readonly ownEvidence = false,
  ) {
    super(message);
  }
}

/**
 * A violation of a cited rule, seen now: recorded in the run's evidence at once (so nothing that
 * catches, races or interrupts the check afterwards can remove it), then thrown to end the check.
 */
export function fail(message: string, detail?: FailureDetail): never {
  const failure = new CheckFailure(message, detail);
  recordOnCurrentPage(violationOf(failure), failure);
  throw failure;
}

/** The violation a thrown failure states. */
export function violationOf(err: CheckFailure | Blocked): Violation {
  const { violated, expected, actual, hint } = err.detail;
  return { message: err.message, ...(violated?.length ? { violated } : {}), expected, actual, ...(hint ? { hint } : {}) };
}

export function skip(reason: string, opts: { outOfScope?: OutOfScope } = {}): never {
  throw new Skip(reason, opts.outOfScope);
}

export function blocked(
  root: string,
  message: string,
  detail: FailureDetail & { violated: readonly string[] },
  opts: { onlyIfRootFailed?: boolean; ownEvidence?: boolean } = {},
): never {
  throw new Blocked(root, message, detail, opts.onlyIfRootFailed, opts.ownEvidence);
}

export function inconclusive(reason: string, opts: { cause?: 'ambiguous' | 'limit' } = {}): never {
  throw new Inconclusive(reason, opts.cause);
}
