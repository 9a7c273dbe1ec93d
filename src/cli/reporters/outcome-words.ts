// Each check's stored outcome in words, as every report prints it: one word per outcome
// (OUTCOME_WORDS), shared by the console, summary.md, report.html, junit.xml and compare, and the
// counts line.
import type { ReaderCheck } from '../../verdict/reader';
import type { CheckResult } from '../../harness/runner';
import { isUnjudged, OUTCOMES, type Outcome, type OutcomeCounts } from '../../verdict/outcome';

/** What kept a check from being judged, in words: the root check's id, or the unreachable interface. */
export function blockerWords(r: ReaderCheck): string | undefined {
  if (!isUnjudged(r.outcome)) return undefined;
  // blockedBy is set only when a root check blocked it, unreachable only when its interface did.
  if (r.blockedBy) return r.blockedBy;
  if (r.unreachable) return `target unreachable: ${r.unreachable}`;
  return undefined;
}

/** "k/N answers failed" for a sampled check that judged an answer (--samples), '' otherwise: numbers only, safe in any format. */
export function answersWords(r: Pick<CheckResult, 'samples'>): string {
  if (!r.samples?.judged) return '';
  return `${Math.trunc(Number(r.samples.failed))}/${Math.trunc(Number(r.samples.n))} answers failed`;
}

/** "3 passed, 0 failed, 2 known failures, …": the stored counts that are not empty (passed, failed, not judged and skipped always). */
export function countLine(c: OutcomeCounts): string {
  const total = OUTCOMES.reduce((n, o) => n + c[o], 0);
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  const parts = [`${c.passed} passed`, `${c.failed} failed`];
  if (c['stale-expectation'])
    parts.push(`${n(c['stale-expectation'], 'stale expectation')} (known failure${c['stale-expectation'] === 1 ? '' : 's'} now passing)`);
  if (c['known-failure']) parts.push(n(c['known-failure'], 'known failure'));
  if (c.warning) parts.push(n(c.warning, 'advisory warning'));
  parts.push(`${c['not-judged'] + c.blocked} not judged${c.blocked ? ` (${c.blocked} blocked)` : ''}`, `${c.skipped} skipped`);
  return `${parts.join(', ')} of ${total} checks`;
}

/**
 * Each outcome in a word or two: the one map every report prints (report.html, compare, the
 * console, summary.md, junit.xml), in the vocabulary of the counts line (countLine) and of the
 * console's sections: "known", "stale expectation", "not judged".
 */
export const OUTCOME_WORDS: Readonly<Record<Outcome, string>> = {
  failed: 'failed',
  'stale-expectation': 'passed (stale expectation)',
  warning: 'failed (advisory)',
  'known-failure': 'failed (known)',
  'not-judged': 'not judged',
  blocked: 'not judged (blocked)',
  passed: 'passed',
  skipped: 'skipped',
};

/** The stored outcome in words (OUTCOME_WORDS), with the fact beside it that a reader needs: what blocked it, what scope left it out. */
export function verdictOf(r: ReaderCheck): string {
  const by = blockerWords(r);
  if (by) return `${OUTCOME_WORDS['not-judged']} (blocked by ${by})`;
  if (r.outOfScope && (r.outcome === 'skipped' || isUnjudged(r.outcome))) return `${OUTCOME_WORDS.skipped} (out of scope: ${r.outOfScope.words})`;
  return OUTCOME_WORDS[r.outcome];
}

/** A result's reason, in words (a stale expectation has no failure reason of its own). */
export function rootReason(r: ReaderCheck): string {
  return r.outcome === 'stale-expectation' && r.expectation
    ? `passes, but the expectations file lists it as a known failure (${r.expectation.reason}): the file is stale`
    : r.reason;
}
