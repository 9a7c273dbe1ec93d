// The gate never touches the verdict. A result holds two kinds of fields: the suite's own (its id,
// status, level, cause, statements, violated, outcome, effect, blockedBy, …), which decide and
// state the verdict, and strings that came from outside (what a target answered, input echoed in
// a reason, the expectations file's words). Only the second kind is masked: a credential that
// spells part of "failed" is masked in what the target said, never in the suite's own fields.
import { VALUE_CAP_BYTES, type CheckResult, type SampleFailure } from './result';
import type { Redactor } from './redact';
import { cutBytes, detached, mapJson } from './json';

/** The fields of a result that may carry what came from outside, masked whole (values deep, member names too). */
export const OUTSIDE_FIELDS = ['reason', 'expected', 'actual', 'hint', 'notes', 'metrics', 'exchanges'] as const satisfies ReadonlyArray<keyof CheckResult>;

type Maskable = Partial<Pick<CheckResult, (typeof OUTSIDE_FIELDS)[number] | 'expectation' | 'outOfScope' | 'samples'>>;

function maskFailure(f: SampleFailure, redactor: Redactor): SampleFailure {
  const out: SampleFailure = { ...f, reason: redactor.text(f.reason), exchanges: redactor.value(f.exchanges) };
  if ('expected' in f) out.expected = redactor.value(f.expected);
  if ('actual' in f) out.actual = redactor.value(f.actual);
  return out;
}

/**
 * `r` with every string that came from outside masked (a copy; `r` is not changed), and its own
 * fields as they were. Bigints in the masked values become decimal strings (Redactor.value).
 */
export function maskOutside<T extends Maskable>(r: T, redactor: Redactor): T {
  const out: T = { ...r };
  const fields = out as Record<string, unknown>;
  for (const k of OUTSIDE_FIELDS) if (fields[k] !== undefined) fields[k] = redactor.value(fields[k]);
  if (out.expectation) {
    const { reason, link } = out.expectation;
    out.expectation = { ...out.expectation, reason: redactor.text(reason), ...(link !== undefined ? { link: redactor.text(link) } : {}) };
  }
  // The flag is the suite's; the words may quote a --grep pattern the user gave.
  if (out.outOfScope) out.outOfScope = { ...out.outOfScope, words: redactor.text(out.outOfScope.words) };
  if (out.samples?.failures) out.samples = { ...out.samples, failures: out.samples.failures.map((f) => maskFailure(f, redactor)) };
  return out;
}

/**
 * A check's result as the runner keeps it: its outside strings masked (maskOutside), every string
 * detached (kept past the check, no string may pin a large answer it was cut from), and reasons
 * and notes bounded like values (expected/actual were, in errorDetail).
 */
export function sealedResult(r: CheckResult, redactor: Redactor): CheckResult {
  const result = mapJson(maskOutside(r, redactor), (x) => (typeof x === 'string' ? detached(x) : x)) as CheckResult;
  result.reason = cutBytes(result.reason, VALUE_CAP_BYTES).text;
  if (result.notes) result.notes = result.notes.map((n) => cutBytes(n, VALUE_CAP_BYTES).text);
  return result;
}
