// Which checks a report lists where: by outcome, by spec section, skipped ones by reason.
import type { ReaderCheck, ReaderDocument } from '../../verdict/reader';
import { sectionOf, type Outcome, type SectionCounts } from '../../verdict/outcome';

/** Checks of the document with the given outcomes, in report order. */
export function withOutcome(checks: ReaderCheck[], ...outcomes: Outcome[]): ReaderCheck[] {
  return checks.filter((r) => outcomes.includes(r.outcome));
}

export interface SectionGroup extends SectionCounts {
  checks: ReaderCheck[];
}

/** The document's stored per-section counts, each with its checks (listed under the section of their first statement). */
export function bySection(doc: Pick<ReaderDocument, 'sections' | 'checks'>): SectionGroup[] {
  return doc.sections.map((s) => ({ ...s, checks: doc.checks.filter((c) => sectionOf(c) === s.section) }));
}

/** Skipped checks grouped by reason: out-of-scope ones (the user's choice) apart from nothing-to-judge ones. */
export function skippedByReason(checks: ReaderCheck[]): Array<{ reason: string; outOfScope: boolean; ids: string[] }> {
  const groups = new Map<string, { reason: string; outOfScope: boolean; ids: string[] }>();
  for (const c of checks) {
    if (c.outcome !== 'skipped') continue;
    const reason = c.outOfScope?.words ?? c.reason.split('\n')[0];
    const key = `${c.outOfScope ? 'o' : 's'}:${reason}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { reason, outOfScope: !!c.outOfScope, ids: [] }));
    g.ids.push(c.id);
  }
  return [...groups.values()].sort((a, b) => Number(b.outOfScope) - Number(a.outOfScope) || b.ids.length - a.ids.length);
}

/** A list of ids cut to `max`, with how many more. */
export function idList(ids: string[], max = 6): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} … (+${ids.length - max} more)`;
}
