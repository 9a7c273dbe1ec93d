/**
 * How one check's result reads as a jest test. The verdict is the runner's; this only says which
 * of jest's states carries it. A required failure (or an expected failure that passed) fails the
 * test, as it fails the CLI's run. A required check left inconclusive fails too: the run is
 * incomplete, and jest has no state for "not judged" that would keep CI from reading it as green;
 * one left inconclusive by an unreachable target says so, since that makes the run non-conformant.
 */
import type { CheckResult } from '../../harness/runner';
import { failureText } from '../reporters/shared';
import { EXIT_CODE, isRunFailure, unreachableWords } from '../results';
import { quoted } from '../traceability';

export type JestOutcome = { kind: 'pass'; warning?: string } | { kind: 'skip'; reason: string } | { kind: 'fail'; message: string };

/** The failure text of the reports, with the last exchange's curl line to reproduce it. */
export function failureMessage(r: CheckResult): string {
  const lines = [failureText(r, quoted([r]))];
  const last = r.exchanges.at(-1);
  if (last) lines.push(`  reproduce: ${last.curl}`, `  (${r.exchangeCount} exchange(s) recorded in results.json and report.html)`);
  return lines.join('\n');
}

export function jestOutcome(r: CheckResult): JestOutcome {
  if (isRunFailure(r)) {
    if (r.status === 'passed')
      return {
        kind: 'fail',
        message: `${r.id} passed, but the expectations file lists it as a known failure (${r.expectation?.reason ?? 'no reason'}): remove the entry`,
      };
    return { kind: 'fail', message: failureMessage(r) };
  }
  switch (r.status) {
    case 'passed':
      return { kind: 'pass' };
    case 'skipped':
      return { kind: 'skip', reason: r.reason };
    case 'failed':
      // Advisory, or a known failure listed in the expectations file: reported, never fatal.
      return { kind: 'pass', warning: failureMessage(r) };
    case 'inconclusive':
      // An unreachable target fails the run (deriveStatus): not the same words as a check left unjudged.
      if (r.level === 'required' && r.cause === 'unreachable')
        return {
          kind: 'fail',
          message: `${r.unreachable ? unreachableWords(r.unreachable) : 'target unreachable'}: the run is not conformant (the CLI exits ${EXIT_CODE.nonConformant})\n${failureText(r)}`,
        };
      if (r.level === 'required')
        return {
          kind: 'fail',
          message: `INCONCLUSIVE, not a verdict on the target: the run is incomplete (the CLI exits ${EXIT_CODE.incomplete})\n${failureText(r)}`,
        };
      return { kind: 'pass', warning: `inconclusive (advisory): ${r.id}: ${r.reason}` };
  }
}
