/**
 * How one check's result reads as a jest test. The outcome, its effect and the root causes are the
 * run's, stored in results.json; this only says which of jest's states carries them. A check that
 * fails the run fails the test. One whose effect leaves the run incomplete fails too: jest has no
 * state for "not judged" that would keep CI from reading it as green; one covered by a root cause
 * that fails the run (an unreachable target, a failed root check) says so. Every test not judged
 * states the run's stored status and exit code, never one worked out from the check. A stale
 * expectation passes, with the news that the expectations file lists it.
 */
import type { ReaderCheck, ReaderDocument } from '../../verdict/reader';
import { isUnjudged } from '../../verdict/outcome';
import { failureText } from '../reporters/failure-text';
import { EXIT_CODE, exitWords, unreachableWords } from '../../verdict/status';
import { quoted } from '../../harness/spec-rules';

export type JestOutcome = { kind: 'pass'; warning?: string } | { kind: 'skip'; reason: string } | { kind: 'fail'; message: string };

/** The failure text of the reports, with the last exchange's curl line to reproduce it. */
export function failureMessage(r: ReaderCheck): string {
  const lines = [failureText(r, quoted([r]))];
  const last = r.exchanges.at(-1);
  if (last) lines.push(`  reproduce: ${last.curl}`, `  (${r.exchangeCount} exchange(s) recorded in results.json and report.html)`);
  return lines.join('\n');
}

/**
 * `run`: the run's stored verdict (results.json `rootCauses`, `status`, `exitCode`): a check one of
 * its roots covers, and the status and exit code a test not judged states (the run's, never one
 * worked out from this check alone: a throttled check of a run a failure made non-conformant says exit 1).
 */
export function jestOutcome(r: ReaderCheck, run: Pick<ReaderDocument, 'rootCauses' | 'status' | 'exitCode'>): JestOutcome {
  const runWords = `the run is ${run.status} (the CLI exits ${run.exitCode})`;
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
      // A root that fails the run (an unreachable target, a failed check) covers it: not the same words as a check left unjudged.
      const root = run.rootCauses.find((x) => x.effect === 'fails-run' && x.checks.includes(r.id));
      if (root?.interface)
        return {
          kind: 'fail',
          message: `${unreachableWords(root.interface)}: ${runWords}\n${failureText(r)}`,
        };
      // Only a check not judged whose stored effect is none passes; an outcome or effect outside the
      // vocabulary (a results.json bent on its way) fails closed. Its words: the root check that
      // fails the run when one covers it, and the run's stored status and exit code.
      if (r.effect !== 'none' || !isUnjudged(r.outcome))
        return {
          kind: 'fail',
          message: `${root ? `NOT JUDGED: blocked by ${root.check ?? root.id}, which fails the run` : 'INCONCLUSIVE, not a verdict on the target'}: ${runWords}\n${failureText(r)}`,
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
