/**
 * How one check's result reads as a jest test. The outcome, its effect and the root causes are the
 * run's, stored in results.json; this only says which of jest's states carries them. A check that
 * fails the run fails the test. One whose effect leaves the run incomplete fails too: jest has no
 * state for "not judged" that would keep CI from reading it as green; one covered by a root cause
 * that fails the run (an unreachable target) says so, since that makes the run non-conformant. A
 * stale expectation passes, with the news that the expectations file lists it.
 */
import type { ReaderCheck, ReaderDocument } from '../../verdict/reader';
import { isUnjudged } from '../../verdict/outcome';
import { failureText } from '../reporters/failure-text';
import { EXIT_CODE, exitWords, unreachableWords } from '../../verdict/status';
import type { RootCauseRecord } from '../../verdict/document';
import { quoted } from '../../harness/spec-rules';

export type JestOutcome = { kind: 'pass'; warning?: string } | { kind: 'skip'; reason: string } | { kind: 'fail'; message: string };

/** The failure text of the reports, with the last exchange's curl line to reproduce it. */
export function failureMessage(r: ReaderCheck): string {
  const lines = [failureText(r, quoted([r]))];
  const last = r.exchanges.at(-1);
  if (last) lines.push(`  reproduce: ${last.curl}`, `  (${r.exchangeCount} exchange(s) recorded in results.json and report.html)`);
  return lines.join('\n');
}

/** `roots`: the run's stored root causes (results.json rootCauses), for a check one of them covers. */
export function jestOutcome(r: ReaderCheck, roots: readonly RootCauseRecord[]): JestOutcome {
  switch (r.outcome) {
    case 'failed':
      return { kind: 'fail', message: failureMessage(r) };
    case 'stale-expectation':
      return {
        kind: 'pass',
        warning: `${r.id} passed, but the expectations file lists it as a known failure (${r.expectation?.reason ?? 'no reason'}): remove the entry`,
      };
    case 'passed':
      return { kind: 'pass' };
    case 'skipped':
      return { kind: 'skip', reason: r.reason };
    case 'warning':
    case 'known-failure':
      // Advisory, or a known failure listed in the expectations file: reported, never fatal.
      return { kind: 'pass', warning: failureMessage(r) };
    default: {
      // A root that fails the run (an unreachable target) covers it: not the same words as a check left unjudged.
      const root = roots.find((x) => x.effect === 'fails-run' && x.interface !== undefined && x.checks.includes(r.id));
      if (root?.interface)
        return {
          kind: 'fail',
          message: `${unreachableWords(root.interface)}: the run is not conformant (the CLI exits ${EXIT_CODE.nonConformant})\n${failureText(r)}`,
        };
      // Only a check not judged whose stored effect is none passes; an outcome or effect outside the
      // vocabulary (a results.json bent on its way) fails closed, as an incomplete run.
      if (r.effect !== 'none' || !isUnjudged(r.outcome))
        return {
          kind: 'fail',
          message: `INCONCLUSIVE, not a verdict on the target: the run is incomplete (the CLI exits ${EXIT_CODE.incomplete})\n${failureText(r)}`,
        };
      return { kind: 'pass', warning: `inconclusive (advisory): ${r.id}: ${r.reason}` };
    }
  }
}

/** The run's own test, named for its status, when the run is not conformant: jest's summary then shows what the exit code says. */
export function runStatusTest(doc: Pick<ReaderDocument, 'headline' | 'statusReasons' | 'exitCode'>): { name: string; message: string } | undefined {
  if (doc.exitCode === EXIT_CODE.conformant) return undefined;
  return {
    name: `conformance run: ${doc.headline}`,
    message: [`${doc.headline} (${exitWords(doc.exitCode)})`, ...doc.statusReasons.map((r) => `  - ${r}`)].join('\n'),
  };
}

/**
 * Whether results.json was written by the run this jest started (at `startedMs`; a second of
 * clock slack): a start time it does not hold, or cannot be read, is never taken as this run's.
 */
export function isFromThisRun(doc: Pick<ReaderDocument, 'startedAt'>, startedMs: number): boolean {
  const at = typeof doc.startedAt === 'string' ? Date.parse(doc.startedAt) : NaN;
  return Number.isFinite(at) && Number.isFinite(startedMs) && at >= startedMs - 1000;
}
