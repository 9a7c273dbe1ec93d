/**
 * The verdict vocabulary: what a check (or a judging helper it calls) throws to say how a rule
 * fared. A leaf: it imports nothing, and only checks, their judging helpers and the runner that
 * classifies the outcome use it. Clients never do: they return observations.
 */

export interface FailureDetail {
  /** The section actually violated when it differs from the check's own (e.g. 4.2 envelope). */
  section?: string;
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

/** The check cannot judge here (missing prerequisite, nothing to judge); never a pass. */
export class Skip extends Error {
  override name = 'Skip';
  constructor(
    message: string,
    /** Set when the user's own choice of scope left this out (e.g. `no --archive`); see CheckResult.outOfScope. */
    readonly outOfScope?: string,
  ) {
    super(message);
  }
}

/** The observation stayed ambiguous after bounded retries; never a guess either way. */
export class Inconclusive extends Error {
  override name = 'Inconclusive';
}

/**
 * The check's subject could not be observed because a prerequisite rule was broken, one that
 * the check `root` judges (e.g. the list answered 500: `rest.list.status-200`). The runner
 * reports the check `inconclusive`, blocked by the root, when the root failed in the same run;
 * otherwise this is a failure citing `detail.section` (the root's rule), so that the evidence
 * still fails the run once. Thrown by the check `root` itself, it is a plain failure.
 */
export class Blocked extends Error {
  override name = 'Blocked';
  constructor(
    readonly root: string,
    message: string,
    readonly detail: FailureDetail & { section: string },
  ) {
    super(message);
  }
}

export function fail(message: string, detail?: FailureDetail): never {
  throw new CheckFailure(message, detail);
}

export function skip(reason: string, opts: { outOfScope?: string } = {}): never {
  throw new Skip(reason, opts.outOfScope);
}

export function blocked(root: string, message: string, detail: FailureDetail & { section: string }): never {
  throw new Blocked(root, message, detail);
}

export function inconclusive(reason: string): never {
  throw new Inconclusive(reason);
}
