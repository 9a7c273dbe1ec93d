// What each result means for the run, decided once, here: every check gets one outcome, the run
// counts them, and every report (console, summary.md, report.html, junit.xml, the jest adapter,
// the certificate, compare, the Action) reads those stored fields instead of deciding again.
import { sectionOfStatement } from '../harness/check';
import type { CheckResult } from '../harness/result';
import { loadSpec } from '../harness/spec-rules';

/**
 * The outcome vocabulary, in the order reports list them (what fails the run first).
 * - `failed`: a required check failed and no expectation covers it: it fails the run.
 * - `stale-expectation`: the expectations file lists it as a known failure, but it passed: news
 *   every report shows; the target passed, so it does not make the run non-conformant.
 * - `warning`: an advisory check failed (never fails the run).
 * - `known-failure`: a failure the expectations file lists.
 * - `not-judged`: inconclusive for any cause but `blocked` (throttled, stopped, unreachable, …),
 *   or never begun because the run stopped first (status `skipped`, cause `stopped`): in scope,
 *   and not judged.
 * - `blocked`: inconclusive because the root check named in `blockedBy` failed.
 * - `passed`.
 * - `skipped`: out of scope, deselected by --only/--grep, or nothing to judge.
 */
export const OUTCOMES = ['failed', 'stale-expectation', 'warning', 'known-failure', 'not-judged', 'blocked', 'passed', 'skipped'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * What an outcome does to the run, decided with it (decideEffect) and stored beside it, so that no
 * reader works it out again from status, level and cause:
 * - `fails-run`: the run is non-conformant because of it (a required failure; the check standing
 *   in for an unreachable interface);
 * - `incomplete`: it keeps the run from being conformant without failing it (a required check not
 *   judged; a result whose status is outside the vocabulary, whatever its level);
 * - `none`: the run's status does not depend on it (a pass, a skip, an advisory warning, a known
 *   failure, a stale expectation, an advisory check not judged, and a check not judged because its
 *   interface was unreachable: that failure is counted once, by the interface's root cause).
 */
export const EFFECTS = ['fails-run', 'incomplete', 'none'] as const;
export type Effect = (typeof EFFECTS)[number];

/** The statuses a result may hold: any other is read as nothing the suite stated (fails closed). */
const STATUSES: ReadonlySet<string> = new Set(['passed', 'failed', 'skipped', 'inconclusive']);

/**
 * Causes whose root is an interface, counted once by that root (root-causes.ts): the checks they
 * left unjudged have no effect of their own. `unreachable` only: its root fails the run. Any other
 * cause, including interface-level ones outside the spec (refused credentials, a gateway down),
 * leaves a required check unjudged with effect `incomplete`, so a root not yet drawn for it can
 * never make the run read as conformant.
 */
const COUNTED_BY_INTERFACE_ROOT: ReadonlySet<string> = new Set(['unreachable']);

/** The expectations file as judge() reads it (expectations.ts loads it): the known failures of the target. */
export interface KnownFailures {
  expectations: ReadonlyArray<{ id: string; reason: string; link?: string }>;
}

/** A result with its outcome and effect decided: what results.json stores and every reporter reads. */
export type Judged = CheckResult & { outcome: Outcome; effect: Effect };

/** Checks per outcome; every outcome is present, and the counts sum to the number of checks. */
export type OutcomeCounts = Record<Outcome, number>;

/** One spec section's counts, by the section of each check's first statement, titled from specs/rules.yaml. */
export interface SectionCounts {
  section: string;
  title: string;
  counts: OutcomeCounts;
}

/** The one decision: what a result (its expectation already applied) means for the run. */
export function decideOutcome(r: Pick<CheckResult, 'status' | 'level' | 'cause' | 'expectation'>): Outcome {
  if (r.expectation?.outcome === 'unexpected-pass') return 'stale-expectation';
  if (r.expectation?.outcome === 'expected-failure') return 'known-failure';
  switch (r.status) {
    case 'failed':
      // Only a check stated advisory warns: a level outside the vocabulary is read as required (fails closed).
      return r.level === 'advisory' ? 'warning' : 'failed';
    case 'inconclusive':
      return r.cause === 'blocked' ? 'blocked' : 'not-judged';
    case 'skipped':
      // Not begun because the run stopped first (deadline, signal): in scope and not judged, never "nothing to judge".
      return r.cause === 'stopped' ? 'not-judged' : 'skipped';
    case 'passed':
      return 'passed';
    default:
      // A status outside the vocabulary (a bug, or a record bent on its way) fails closed: never a pass.
      return 'not-judged';
  }
}

/** What an outcome does to the run (see EFFECTS), decided from the same facts as the outcome itself. */
export function decideEffect(r: Pick<CheckResult, 'status' | 'level' | 'cause'>, outcome: Outcome): Effect {
  if (!STATUSES.has(r.status)) return 'incomplete';
  if (outcome === 'failed') return 'fails-run';
  if (!isUnjudged(outcome)) return 'none';
  if (r.cause !== undefined && COUNTED_BY_INTERFACE_ROOT.has(r.cause)) return 'none';
  return r.level === 'advisory' ? 'none' : 'incomplete';
}

/** The outcome and its effect, decided together. */
export function decide(r: Pick<CheckResult, 'status' | 'level' | 'cause' | 'expectation'>): { outcome: Outcome; effect: Effect } {
  const outcome = decideOutcome(r);
  return { outcome, effect: decideEffect(r, outcome) };
}

/**
 * A result as the run reports it: the expectations file applied to it (a listed failure is known,
 * a listed pass is a stale expectation), then its outcome decided. Called once per result, as it
 * comes, so the console streams a known failure as known.
 */
export function judge(r: CheckResult, expectations?: KnownFailures): Judged {
  const e = expectations?.expectations.find((x) => x.id === r.id);
  let expectation = r.expectation;
  if (e && (r.status === 'failed' || r.status === 'passed'))
    expectation = { reason: e.reason, ...(e.link ? { link: e.link } : {}), outcome: r.status === 'failed' ? 'expected-failure' : 'unexpected-pass' };
  const out = expectation ? { ...r, expectation } : r;
  return { ...out, ...decide(out) };
}

export function emptyCounts(): OutcomeCounts {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as OutcomeCounts;
}

export function countOutcomes(checks: ReadonlyArray<Pick<Judged, 'outcome'>>): OutcomeCounts {
  const c = emptyCounts();
  for (const r of checks) c[r.outcome]++;
  return c;
}

/** The section a check is counted and listed under: that of the first statement it enforces. */
export function sectionOf(r: Pick<CheckResult, 'statements'>): string {
  return sectionOfStatement(r.statements[0] ?? '0.0');
}

let titles: Map<string, string> | undefined;

/** A section's title from specs/rules.yaml (the one source); an entry without a heading takes its parent's. */
export function sectionTitle(section: string): string {
  titles ??= new Map(loadSpec().sections.flatMap((e) => (e.title ? [[e.id, e.title] as const] : [])));
  for (let s = section; s; s = s.includes('.') ? s.slice(0, s.lastIndexOf('.')) : '') {
    const t = titles.get(s);
    if (t !== undefined) return t;
  }
  return '';
}

/** "4.10" after "4.9": sections compare as numbers, part by part. */
export function compareSections(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** Counts per section, in the spec's order. */
export function countSections(checks: ReadonlyArray<Pick<Judged, 'outcome' | 'statements'>>): SectionCounts[] {
  const out = new Map<string, SectionCounts>();
  for (const r of checks) {
    const section = sectionOf(r);
    let s = out.get(section);
    if (!s) out.set(section, (s = { section, title: sectionTitle(section), counts: emptyCounts() }));
    s.counts[r.outcome]++;
  }
  return [...out.values()].sort((a, b) => compareSections(a.section, b.section));
}

/** Outcomes that are a verdict on the target (the others say it was not judged). */
export const JUDGED_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['failed', 'stale-expectation', 'warning', 'known-failure', 'passed']);

/** Outcomes that leave a check not judged. */
export const isUnjudged = (o: Outcome): boolean => o === 'not-judged' || o === 'blocked';
