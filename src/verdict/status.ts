// The run's status, derived once from each check's outcome and effect and the run's facts: the
// reasons, the exit code and the one headline every report prints.
import type { Interface } from '../harness/check';
import type { Cause } from '../harness/verdict';
import { JUDGED_OUTCOMES, type Judged } from './outcome';
import { scopeLimits, scopeWords, type RunScope } from './scope';
import { NOT_JUDGED_WORDS } from './coverage';
import { unreachableInterfaces, type DecidedRoots } from './root-causes';

export type RunStatus = 'conformant' | 'non-conformant' | 'incomplete';

/** Facts of the run itself, beside the results: what stopped it, what could not be reached. */
export interface RunFacts {
  /** Why the run stopped early, in words (interrupt or deadline). */
  interrupted?: string;
  stoppedBy?: 'signal' | 'deadline';
  /** Interfaces found unreachable before the run, with the transport error. */
  unreachable?: Partial<Record<Interface, string>>;
}

export const EXIT_CODE = { conformant: 0, nonConformant: 1, config: 2, incomplete: 3, interrupted: 130 } as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Why required checks were not judged, grouped coarsely for the status line (by cause; any other: inconclusive). */
const UNJUDGED_WORDS: Partial<Record<Cause, string>> = { ...NOT_JUDGED_WORDS, blocked: 'blocked by a prerequisite' };

/** An unreachable interface, as the run's reasons say it. */
export const unreachableWords = (i: Interface): string => `${i === 'rest' ? 'REST' : 'JSON-RPC'} target unreachable`;

/** The first words of the reason given when no required check was judged at all. */
export const NOTHING_JUDGED = 'nothing judged';

/**
 * The run status, derived once, from the outcomes (outcome.ts) and the root causes decided with
 * them (root-causes.ts). non-conformant: a check that fails the run (outcome `failed`), or an
 * unreachable target: each counted once, as its root. incomplete: none of those, but a
 * required check was not judged, no required check was judged at all (a selection or a scope
 * that left nothing to judge is never a pass), --require full with a scope that is not full, or
 * the run stopped early. conformant: every required check in scope judged and none failed.
 * Skipped checks leave the status alone as long as something was judged. A stale expectation
 * (a listed known failure that passed) is news about the expectations file, not about the
 * target, which passed: it leaves the status alone too, and every report lists it.
 */
export function deriveStatus(
  { checks: results, roots }: DecidedRoots,
  facts: RunFacts,
  scope?: Pick<RunScope, 'full' | 'required' | 'leftOut' | 'interfaces' | 'signer' | 'coverage'>,
): { status: RunStatus; reasons: string[] } {
  const reasons: string[] = [];
  // The roots that fail the run: the checks that failed it, each its own root (a check standing in
  // for an unreachable interface is that interface's root), then the interfaces not reached.
  const failed = roots.filter((r) => r.failsRun && r.result && !r.unreachable);
  if (failed.length) reasons.push(`${plural(failed.length, 'required check')} failed`);
  for (const { unreachable: i } of roots) if (i) reasons.push(`${unreachableWords(i)}${facts.unreachable?.[i] ? `: ${facts.unreachable[i]}` : ''}`);
  const nonConformant = reasons.length > 0;

  // Each check's effect says it: an unreachable interface already fails the run, so its checks have none.
  const unjudged = results.filter((r) => r.effect === 'incomplete');
  if (unjudged.length) {
    const kinds = new Map<string, number>();
    for (const k of unjudged.map((r) => (r.cause && UNJUDGED_WORDS[r.cause]) ?? 'inconclusive')) kinds.set(k, (kinds.get(k) ?? 0) + 1);
    reasons.push(`${plural(unjudged.length, 'required check')} not judged (${[...kinds].map(([k, n]) => `${k}: ${n}`).join(', ')})`);
  }
  if (!results.some((r) => r.level === 'required' && JUDGED_OUTCOMES.has(r.outcome))) {
    const skipped = results.filter((r) => r.level === 'required' && r.outcome === 'skipped').length;
    reasons.push(
      `${NOTHING_JUDGED}: no required check came to a verdict (${plural(skipped, 'required check')} skipped${unjudged.length ? `, ${unjudged.length} not judged` : ''})`,
    );
  }
  if (scope?.required === 'full' && !scope.full) reasons.push(`--require full: ${scopeLimits(scope).join('; ')}`);
  if (facts.interrupted) reasons.push(`run stopped early: ${facts.interrupted}`);
  // A check that fails the run without a reason above (none today) still fails it: the status never overstates.
  const failsRun = nonConformant || results.some((r) => r.effect === 'fails-run');
  return { status: failsRun ? 'non-conformant' : reasons.length ? 'incomplete' : 'conformant', reasons };
}

/**
 * The exit code of a status: 0 conformant, 1 non-conformant, 3 incomplete, and 130 for a run a
 * signal interrupted. A run its deadline stopped is what its status says: incomplete (exit 3), or
 * non-conformant (exit 1) when a check had already failed it; status line, exit line and exit
 * code always agree.
 */
export function exitCodeFor(status: RunStatus, facts: Pick<RunFacts, 'stoppedBy'>): number {
  if (facts.stoppedBy === 'signal') return EXIT_CODE.interrupted;
  return EXIT_OF_STATUS[status];
}

/** What writing the reports did: all written, or not (why, in words). */
export type Writes = { written: true } | { written: false; why: string };

/**
 * The exit code a run ends with: one function of its sealed verdict and what the writes did. The
 * sealed code when every report was written. When they were not, the verdict stands in the
 * console, but a job reading the exit code must not take a run whose reports (or certificate) are
 * missing for a pass: a failure keeps its 1, an interrupt its 130, anything else is 2.
 */
export function runExitCode(sealed: { exitCode: number }, writes: Writes): number {
  if (writes.written) return sealed.exitCode;
  return sealed.exitCode === EXIT_CODE.nonConformant || sealed.exitCode === EXIT_CODE.interrupted ? sealed.exitCode : EXIT_CODE.config;
}

export const EXIT_OF_STATUS: Readonly<Record<RunStatus, number>> = {
  conformant: EXIT_CODE.conformant,
  'non-conformant': EXIT_CODE.nonConformant,
  incomplete: EXIT_CODE.incomplete,
};

/** One sentence per exit code: --help, docs/results.md and every report say the same. */
export const EXIT_SENTENCES: Readonly<Record<number, string>> = {
  [EXIT_CODE.conformant]: 'conformant — every required check in scope was judged and none failed',
  [EXIT_CODE.nonConformant]: 'non-conformant — a check failed the run or a target was unreachable',
  [EXIT_CODE.config]: 'bad invocation or configuration — nothing was judged (or the reports could not be written)',
  [EXIT_CODE.incomplete]: 'incomplete — nothing failed, but not everything in scope was judged (so too a run its deadline stopped first)',
  [EXIT_CODE.interrupted]: 'interrupted by a signal — the reports hold what was measured until then',
};

/** The exit code in words, as the console, summary.md, report.html and junit print it. */
export function exitWords(code: number): string {
  return EXIT_SENTENCES[code] ? `exit ${code}: ${EXIT_SENTENCES[code]}` : `exit ${code}`;
}

/** What the headline may read beyond status and scope: the run's facts and its checks, when at hand. */
export type HeadlineFacts = { status: RunStatus; scope: RunScope; checks?: Judged[] } & RunFacts;

/**
 * The one headline every reporter prints: what happened, then the scope. An interrupted run says
 * so; an unreachable target is named once per interface; a run that judged nothing, or left
 * required checks unjudged, says that rather than the scope it meant to judge; otherwise the
 * status with the scope it holds for ("conformant — pre-confirmed state not judged (no
 * --signer-key) (profile dedicated)").
 */
export function statusLine(doc: HeadlineFacts): string {
  const scope = scopeWords(doc.scope);
  const checks = doc.checks ?? [];
  if (doc.stoppedBy === 'signal')
    return `interrupted — ${doc.interrupted ?? 'stopped by a signal'}: partial results, ${doc.status} as far as it went (${scope})`;
  if (doc.stoppedBy === 'deadline') return `${doc.status} — ${doc.interrupted ?? 'the run deadline passed'}: partial results (${scope})`;
  const down = unreachableInterfaces(checks, { unreachable: doc.unreachable });
  if (down.length) {
    const names = down.map((i) => (i === 'rest' ? 'REST' : 'JSON-RPC'));
    return `${doc.status} — ${names.join(' and ')} target${down.length > 1 ? 's' : ''} unreachable`;
  }
  if (doc.status === 'incomplete' && doc.checks) {
    if (!checks.some((r) => r.level === 'required' && JUDGED_OUTCOMES.has(r.outcome)))
      return `incomplete — ${NOTHING_JUDGED}: no required check came to a verdict (${scope})`;
    // As the status reasons count them: each result whose effect leaves the run incomplete.
    const unjudged = checks.filter((r) => r.effect === 'incomplete').length;
    if (unjudged) return `incomplete — ${plural(unjudged, 'required check')} not judged (${scope})`;
  }
  return `${doc.status} — ${scope}`;
}

/** The facts stored in a results document, for re-deriving its status (verify-certificate). */
export function factsOf(doc: RunFacts): RunFacts {
  return { interrupted: doc.interrupted, stoppedBy: doc.stoppedBy, unreachable: doc.unreachable };
}

/** The exit codes as --help prints them: the sentences of EXIT_SENTENCES. */
export const EXIT_CODES_HELP = Object.entries(EXIT_SENTENCES)
  .map(([code, words], i) => `${i === 0 ? 'exit codes: ' : '            '}${code.padEnd(4)}${words}`)
  .join('\n');
