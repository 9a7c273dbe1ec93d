// What a reader (a report, the jest adapter, the certificate and badge, compare, the Action) is
// given: the stored verdict without a check's raw status, level or cause. Those are the facts the
// outcome and effect were decided from (outcome.ts); a reader that had them could decide again and
// disagree with the run, so the type does not carry them and the compiler refuses the reading.
import type { Cause } from '../harness/verdict';
import type { RunDocument } from './document';
import { isUnjudged, type Judged } from './outcome';

/** A check as readers see it: what results.json stores, minus status, level and cause (and the runner's blocker, decided in the seal), plus what was decided from them. */
export type ReaderCheck = Omit<Judged, 'status' | 'level' | 'cause' | 'blocker'> & {
  /** The check's level as stated: anything but `advisory` is required (read as outcome.ts reads it, fails closed). */
  required: boolean;
  /** Why it was not judged, when its outcome is `not-judged` or `blocked`. */
  notJudgedBecause?: Cause;
};

/** results.json as readers see it: the run's sealed fields, each check as a ReaderCheck. */
export type ReaderDocument = Omit<RunDocument, 'checks'> & { checks: ReaderCheck[] };

/** The one place a judged result becomes a reader's check; the raw fields are left behind, not just hidden. */
export function readerCheck(r: Judged): ReaderCheck {
  const { status: _status, level, cause, blocker: _blocker, ...rest } = r;
  return { ...rest, required: level !== 'advisory', ...(cause !== undefined && isUnjudged(r.outcome) ? { notJudgedBecause: cause } : {}) };
}

/** The one place a stored document becomes the readers' view. */
export function readerDocument(doc: RunDocument): ReaderDocument {
  return { ...doc, checks: doc.checks.map(readerCheck) };
}

/** A level in words, for reports that print it. */
export const levelWord = (c: Pick<ReaderCheck, 'required'>): 'required' | 'advisory' => (c.required ? 'required' : 'advisory');
