// The root causes as results.json stores them (src/verdict/seal.ts), in the shape the reports print:
// each with its root check's result when the root is a check, and the checks it covers. Read only:
// nothing here decides what a root is or what it does to the run.
import type { ReaderCheck, ReaderDocument } from '../../verdict/reader';
import type { Outcome } from '../../verdict/outcome';
import type { RootCauseRecord } from '../../verdict/document';
import type { RunStatus } from '../../verdict/status';

export interface StoredRoot {
  record: RootCauseRecord;
  id: string;
  /** The root check's result, when the root is a check. */
  result?: ReaderCheck;
  /** Stored effect `fails-run`. */
  failsRun: boolean;
  /** The ids of the checks it covers. */
  blocked: string[];
  /** The interface, when the root is one. */
  unreachable?: RootCauseRecord['interface'];
  reason: string;
}

/**
 * The stored root causes, in the order reports show them: those that fail the run first, and among
 * them the roots that cover checks (folded under them) before the independent failures.
 */
export function storedRoots(doc: Pick<ReaderDocument, 'rootCauses' | 'checks'>): StoredRoot[] {
  const byId = new Map(doc.checks.map((c) => [c.id, c]));
  const rank = (r: RootCauseRecord) => (r.effect === 'fails-run' ? 0 : 2) + (r.checks.length > 0 ? 0 : 1);
  return [...doc.rootCauses]
    .sort((a, b) => rank(a) - rank(b))
    .map((record) => {
      const result = record.check === undefined ? undefined : byId.get(record.check);
      return {
        record,
        id: record.id,
        ...(result ? { result } : {}),
        failsRun: record.effect === 'fails-run',
        blocked: record.checks,
        ...(record.interface ? { unreachable: record.interface } : {}),
        reason: record.reason,
      };
    });
}

/** The ids of every check a stored root covers: reports list them under their root, never again on their own. */
export function coveredByRoots(doc: Pick<ReaderDocument, 'rootCauses'>): ReadonlySet<string> {
  return new Set(doc.rootCauses.flatMap((r) => r.checks));
}

/** Outcomes of a check that failed (a rule was broken), whatever that does to the run. */
const FAILURE_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['failed', 'warning', 'known-failure']);

/** The stored outcome says a rule was broken (failed, advisory warning, known failure). */
export const isFailure = (r: Pick<ReaderCheck, 'outcome'>): boolean => FAILURE_OUTCOMES.has(r.outcome);

/** Each run status read as a kind, for colour and tone: a lookup of the stored status, never a decision. */
export const STATUS_TONE: Readonly<Record<RunStatus, 'good' | 'warn' | 'bad'>> = { conformant: 'good', incomplete: 'warn', 'non-conformant': 'bad' };
