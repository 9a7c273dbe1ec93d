// The gate never touches the verdict: of a result's fields only the strings that came from outside
// (what a target answered, input echoed in a reason, the expectations file's words) are masked,
// never the suite's own (id, status, cause, statements, …), whatever a credential spells.
import { VALUE_CAP_BYTES, type CheckResult } from './result';
import type { Redactor } from './redact';
import { cutBytes, detached, mapJson } from './json';

/** The fields of a result that may carry what came from outside, masked whole (values deep, member names too). */
export const OUTSIDE_FIELDS = ['reason', 'expected', 'actual', 'hint', 'notes', 'metrics', 'exchanges'] as const satisfies ReadonlyArray<keyof CheckResult>;

type Maskable = Partial<Pick<CheckResult, (typeof OUTSIDE_FIELDS)[number] | 'expectation' | 'outOfScope' | 'samples'>>;

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
  if (out.samples?.failures) out.samples = { ...out.samples, failures: out.samples.failures.map((f) => maskOutside(f, redactor)) };
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
