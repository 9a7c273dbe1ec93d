import type { CheckResult } from '../../harness/runner';
import { violatedSection, violatedSections } from '../../harness/result';
import { jsonSafe } from '../../harness/json';
import type { Exchange } from '../../harness/transcript';
import { isUnjudged, OUTCOMES, sectionOf, type Judged, type Outcome, type OutcomeCounts, type SectionCounts } from '../../verdict/outcome';
import type { RunDocument } from '../../verdict/document';

/** What kept a check from being judged, in words: the root check's id, or the unreachable interface. */
export function blockerWords(r: Judged): string | undefined {
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

/** An outcome in a word or two, as report.html and compare print it. */
export const OUTCOME_WORDS: Record<Outcome, string> = {
  failed: 'FAILED',
  'stale-expectation': 'passed (stale expectation)',
  warning: 'failed (advisory)',
  'known-failure': 'failed (known)',
  'not-judged': 'not judged',
  blocked: 'not judged (blocked)',
  passed: 'passed',
  skipped: 'skipped',
};

/** The stored outcome in words, with the fact beside it that a reader needs (blocker, scope left out). */
export function verdictOf(r: Judged): string {
  switch (r.outcome) {
    case 'known-failure':
      return 'failed (expected)';
    case 'stale-expectation':
      return 'passed (UNEXPECTED: listed as a known failure)';
    case 'warning':
      return 'failed (advisory)';
    case 'failed':
      return 'failed';
    case 'passed':
      return 'passed';
    default: {
      const by = blockerWords(r);
      if (by) return `not judged (blocked by ${by})`;
      if (r.outOfScope) return `skipped (out of scope: ${r.outOfScope.words})`;
      return r.outcome === 'skipped' ? 'skipped' : 'inconclusive';
    }
  }
}

/** Checks of the document with the given outcomes, in report order. */
export function withOutcome(checks: Judged[], ...outcomes: Outcome[]): Judged[] {
  return checks.filter((r) => outcomes.includes(r.outcome));
}

/** Text made safe inside HTML, SVG or XML text and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Indented JSON; bigints as the harness's jsonSafe writes them (decimal strings). */
export function json(v: unknown): string {
  return JSON.stringify(jsonSafe(v), null, 2);
}

/** The exchange as a person reads it: request line, headers, body; status, headers, body; curl. */
export function exchangeText(e: Exchange): string {
  const lines = [`> ${e.request.method} ${e.request.url}`];
  for (const [k, v] of Object.entries(e.request.headers)) lines.push(`> ${k}: ${v}`);
  if (e.request.body !== undefined) lines.push('>', `> ${e.request.body}`);
  if (e.response) {
    lines.push(`< HTTP ${e.response.status}  (${e.durationMs} ms)`);
    for (const [k, v] of Object.entries(e.response.headers)) lines.push(`< ${k}: ${v}`);
    lines.push('<', `< ${e.response.body}`);
  } else {
    lines.push(`! no response: ${e.error ?? 'unknown'}  (${e.durationMs} ms)`);
  }
  lines.push('', `reproduce: ${e.curl}`);
  return lines.join('\n');
}

/**
 * The statements a failure violated (results.json `violated`), or else those the check enforces,
 * quoted on one line (texts from results.json's statement table): `4.5.2 "With …"; 1.4.1 "Each …"`.
 * Undefined when the table has none of them.
 */
export function quoteStatements(r: Pick<CheckResult, 'statements' | 'violated'>, texts: Record<string, string> = {}): string | undefined {
  const ids = r.violated?.length ? r.violated : (r.statements ?? []);
  const quoted = ids.filter((id) => texts[id]).map((id) => `${id} "${texts[id]}"`);
  return quoted.length ? quoted.join('; ') : undefined;
}

export { violatedSection, violatedSections };

/** How the quoted statements are introduced: what a failure violated, or what the check enforces. */
export const quoteLabel = (r: Pick<CheckResult, 'violated'>): string => (r.violated?.length ? 'violated' : 'enforces');

/** Expected vs actual, the section and the statements, in the words of the failure. */
export function failureText(r: CheckResult, texts?: Record<string, string>): string {
  const lines = [`${r.id} — ${r.title}`, `  spec section: ${violatedSection(r)}${violatedSection(r) !== r.section ? ` (check cites ${r.section})` : ''}`];
  const quoted = quoteStatements(r, texts);
  if (quoted) lines.push(`  ${quoteLabel(r)}: ${quoted}`);
  lines.push(`  ${r.status}: ${r.reason}`);
  if (r.expected !== undefined) lines.push(`  expected: ${JSON.stringify(r.expected)}`);
  if (r.actual !== undefined) lines.push(`  actual:   ${JSON.stringify(r.actual)?.slice(0, 500)}`);
  if (r.hint) lines.push(`  hint: ${r.hint}`);
  if (r.expectation) lines.push(`  expectation: ${r.expectation.reason}${r.expectation.link ? ` (${r.expectation.link})` : ''}`);
  return lines.join('\n');
}

/** Expected vs actual on one line, cut to fit, or undefined when the check recorded neither. */
export function expectedVsActual(r: CheckResult, max = 160): string | undefined {
  if (r.expected === undefined && r.actual === undefined) return undefined;
  const cut = (v: unknown) => {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > max ? `${s.slice(0, max)}…` : s;
  };
  return `expected ${cut(r.expected)}, actual ${cut(r.actual)}`;
}

export interface SectionGroup extends SectionCounts {
  checks: Judged[];
}

/** The document's stored per-section counts, each with its checks (listed under the section of their first statement). */
export function bySection(doc: Pick<RunDocument, 'sections' | 'checks'>): SectionGroup[] {
  return doc.sections.map((s) => ({ ...s, checks: doc.checks.filter((c) => sectionOf(c) === s.section) }));
}

/** Skipped checks grouped by reason: out-of-scope ones (the user's choice) apart from nothing-to-judge ones. */
export function skippedByReason(checks: Judged[]): Array<{ reason: string; outOfScope: boolean; ids: string[] }> {
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

/** A result's reason, in words (a stale expectation has no failure reason of its own). */
export function rootReason(r: Judged): string {
  return r.outcome === 'stale-expectation' && r.expectation
    ? `passes, but the expectations file lists it as a known failure (${r.expectation.reason}): the file is stale`
    : r.reason;
}
