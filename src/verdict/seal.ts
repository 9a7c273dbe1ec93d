// The run's verdict, sealed: decided once, here, from the judged results (with the blockers the
// runner recorded) and the run's facts, and stored in results.json (build-document.ts) as fields
// every report, the certificate, compare, the jest adapter and the Action read as they are: each
// check's outcome and effect, the status and why, the exit code, the one headline, the scope, and
// the root causes with the checks each covers.
import type { Cause } from '../harness/verdict';
import type { Effect, Judged } from './outcome';
import { decideRoots, type RootCause } from './root-causes';
import { deriveStatus, exitCodeFor, statusLine, unreachableWords, type RunFacts } from './status';
import type { RootCauseRecord, RunDocument } from './document';
import type { RunScope } from './scope';

/** The verdict fields of results.json. */
export type SealedVerdict = Pick<RunDocument, 'status' | 'statusReasons' | 'exitCode' | 'headline' | 'rootCauses' | 'scope' | 'checks'>;

/**
 * A failed result names what it violated, and only statements it declares: `violated` absent means
 * every statement it declares (the runner's rule). A statement named but not declared is a defect
 * of the suite (a check must declare every statement it can fail): the failure stands (its evidence
 * is real, and dropping or moving it would hide which rule was broken), and the statement is added
 * to those the result declares, so that results.json keeps violated ⊆ statements.
 */
export function withDeclaredViolations(r: Judged): Judged {
  if (r.status !== 'failed') return r;
  const violated = r.violated?.length ? [...new Set(r.violated)] : [...r.statements];
  const undeclared = violated.filter((s) => !r.statements.includes(s));
  return { ...r, violated, ...(undeclared.length ? { statements: [...r.statements, ...undeclared] } : {}) };
}

/** Each root cause (decided by decideRoots) as stored: its reason, its effect on the run and the checks it covers. */
export function rootCauseRecords(checks: readonly Judged[], roots: readonly RootCause[]): RootCauseRecord[] {
  const byId = new Map(checks.map((c) => [c.id, c]));
  return roots.map((root) => {
    const covered = root.blocked.map((id) => byId.get(id));
    const leavesUnjudged = root.result?.effect === 'incomplete' || covered.some((c) => c?.effect === 'incomplete');
    // A root that is no check (an interface) and does not fail the run still leaves its checks unjudged.
    const effect: Effect = root.failsRun ? 'fails-run' : leavesUnjudged || !root.result ? 'incomplete' : 'none';
    // An interface's reason is the transport error the probe met (the id already says which interface).
    const reason = root.result ? root.result.reason : (root.reason ?? (root.unreachable ? unreachableWords(root.unreachable) : root.id));
    // A root that names its own cause (an interface-level one, grouped by root-causes.ts) keeps it;
    // an unreachable interface's is `unreachable`; a check's is its result's.
    const cause: Cause | undefined = root.cause ?? (root.unreachable ? 'unreachable' : root.result?.cause);
    return {
      id: root.id,
      ...(root.result ? { check: root.result.id } : {}),
      ...(root.unreachable ? { interface: root.unreachable } : {}),
      ...(cause ? { cause } : {}),
      reason,
      ...(root.hint ? { hint: root.hint } : {}),
      effect,
      checks: [...root.blocked],
    };
  });
}

/**
 * The verdict of a run, decided once: blocked outcomes, stand-ins and root causes from the results
 * and their recorded blockers (decideRoots), failures naming only what they declare, the scope
 * (from those decided checks: `scopeOf`), then the status and its reasons, the exit code and the
 * headline, all from those stored fields.
 */
export function sealVerdict(results: readonly Judged[], facts: RunFacts, scopeOf: (checks: readonly Judged[]) => RunScope): SealedVerdict {
  const decided = decideRoots(results, facts);
  const checks = decided.checks.map(withDeclaredViolations);
  const scope = scopeOf(checks);
  const { status, reasons } = deriveStatus({ checks, roots: decided.roots }, facts, scope);
  return {
    status,
    statusReasons: reasons,
    exitCode: exitCodeFor(status, facts),
    headline: statusLine({ status, scope, ...facts, checks }),
    rootCauses: rootCauseRecords(checks, decided.roots),
    scope,
    checks,
  };
}
