import type { CheckResult } from '../../harness/runner';
import { jsonSafe } from '../../harness/json';
import type { Exchange } from '../../harness/transcript';
import { isRunFailure, primarySection } from '../results';

/** How a reader sorts a result: what fails the run first, what was left out last. */
export type Outcome = 'run-failure' | 'advisory' | 'expected' | 'passed' | 'inconclusive' | 'blocked' | 'skipped' | 'out-of-scope';

export function outcomeOf(r: CheckResult): Outcome {
  if (isRunFailure(r)) return 'run-failure';
  if (r.expectation?.outcome === 'expected-failure') return 'expected';
  if (r.status === 'failed') return 'advisory';
  if (r.status === 'inconclusive') return blockerWords(r) ? 'blocked' : 'inconclusive';
  if (r.status === 'skipped') return r.outOfScope ? 'out-of-scope' : 'skipped';
  return 'passed';
}

/** What kept a check from being judged, in words: the root check's id, or the unreachable interface. */
export function blockerWords(r: CheckResult): string | undefined {
  if (r.status !== 'inconclusive') return undefined;
  if (r.cause === 'blocked') return r.blockedBy;
  if (r.cause === 'unreachable') return `target unreachable: ${r.unreachable}`;
  return undefined;
}

/** "k/N answers failed" for a sampled check that judged an answer (--samples), '' otherwise: numbers only, safe in any format. */
export function answersWords(r: Pick<CheckResult, 'samples'>): string {
  if (!r.samples?.judged) return '';
  return `${Math.trunc(Number(r.samples.failed))}/${Math.trunc(Number(r.samples.n))} answers failed`;
}

/** A known failure that passed: the expectations file is stale (it fails the run). */
export const isStale = (r: CheckResult) => r.expectation?.outcome === 'unexpected-pass';

/** The count categories every reporter states: each check in exactly one, so the counts add up to the total and agree with the status. */
export interface OutcomeCounts {
  passed: number;
  /** Fail the run: required failures no expectation covers. */
  failed: number;
  /** Known failures: listed in the expectations file, failed as expected. */
  known: number;
  /** Stale expectations: listed as known failures, but passed (they fail the run). */
  stale: number;
  /** Advisory checks that failed (never fail the run). */
  advisory: number;
  notJudged: number;
  skipped: number;
  total: number;
}

export function outcomeCounts(checks: CheckResult[]): OutcomeCounts {
  const c: OutcomeCounts = { passed: 0, failed: 0, known: 0, stale: 0, advisory: 0, notJudged: 0, skipped: 0, total: checks.length };
  for (const r of checks) {
    if (isStale(r)) c.stale++;
    else {
      const o = outcomeOf(r);
      if (o === 'run-failure') c.failed++;
      else if (o === 'expected') c.known++;
      else if (o === 'advisory') c.advisory++;
      else if (o === 'passed') c.passed++;
      else if (o === 'inconclusive' || o === 'blocked') c.notJudged++;
      else c.skipped++;
    }
  }
  return c;
}

/** "3 passed, 0 failed, 2 known failures, …": the categories that are not empty (passed and failed always). */
export function countLine(c: OutcomeCounts): string {
  const parts = [`${c.passed} passed`, `${c.failed} failed`];
  if (c.stale) parts.push(`${c.stale} stale expectation${c.stale === 1 ? '' : 's'} (known failure${c.stale === 1 ? '' : 's'} now passing)`);
  if (c.known) parts.push(`${c.known} known failure${c.known === 1 ? '' : 's'}`);
  if (c.advisory) parts.push(`${c.advisory} advisory warning${c.advisory === 1 ? '' : 's'}`);
  parts.push(`${c.notJudged} not judged`, `${c.skipped} skipped`);
  return `${parts.join(', ')} of ${c.total} checks`;
}

/** An outcome in a word or two, as report.html and compare print it. */
export const OUTCOME_WORDS: Record<Outcome, string> = {
  'run-failure': 'FAILED',
  advisory: 'failed (advisory)',
  expected: 'failed (expected)',
  passed: 'passed',
  inconclusive: 'not judged',
  blocked: 'not judged (blocked)',
  skipped: 'skipped',
  'out-of-scope': 'out of scope',
};

export function verdictOf(r: CheckResult): string {
  if (r.expectation?.outcome === 'expected-failure') return 'failed (expected)';
  if (r.expectation?.outcome === 'unexpected-pass') return 'passed (UNEXPECTED: listed as a known failure)';
  if (r.status === 'failed' && r.level === 'advisory') return 'failed (advisory)';
  const by = blockerWords(r);
  if (by) return `not judged (blocked by ${by})`;
  if (r.outOfScope) return `skipped (out of scope: ${r.outOfScope.words})`;
  return r.status;
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
 * The statements a check enforces, quoted on one line (texts from results.json's statement
 * table): `4.5.2 "With …"; 1.4.1 "Each …"`. Undefined when the table has none of them.
 */
export function quoteStatements(r: Pick<CheckResult, 'statements'>, texts: Record<string, string> = {}): string | undefined {
  const quoted = (r.statements ?? []).filter((id) => texts[id]).map((id) => `${id} "${texts[id]}"`);
  return quoted.length ? quoted.join('; ') : undefined;
}

/** Expected vs actual, the section and the statements, in the words of the failure. */
export function failureText(r: CheckResult, texts?: Record<string, string>): string {
  const lines = [
    `${r.id} — ${r.title}`,
    `  spec section: ${r.failedSection ?? r.section}${r.failedSection && r.failedSection !== r.section ? ` (check cites ${r.section})` : ''}`,
  ];
  const quoted = quoteStatements(r, texts);
  if (quoted) lines.push(`  enforces: ${quoted}`);
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

/** Section titles of spec 1.0.0, so a reader of a section table need not open the spec. */
const SECTION_TITLES: Record<string, string> = {
  '1': 'What the service does',
  '2': 'Resources and their fields',
  '2.1': 'Tokenized equity token',
  '2.2': 'List response',
  '2.3': 'Error status (rpcStatus)',
  '2.4': 'Receipt object',
  '2.5': 'Transaction object',
  '3': 'States and transitions',
  '4': 'Endpoints',
  '4.1': 'REST: list tokenized stocks',
  '4.2': 'JSON-RPC common envelope',
  '4.3': 'eth_getBlockReceipts',
  '4.4': 'eth_estimateGas',
  '4.5': 'eth_getTransactionCount',
  '4.6': 'eth_getCode',
  '5': 'Authentication',
  '6': 'Events',
  '7': 'Errors',
  '8': 'Limits',
  '9': 'Versioning',
};

export function sectionTitle(section: string): string {
  return SECTION_TITLES[section] ?? SECTION_TITLES[section.split('.')[0]] ?? '';
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

export interface SectionGroup {
  section: string;
  title: string;
  passed: number;
  failed: number;
  inconclusive: number;
  skipped: number;
  checks: CheckResult[];
}

/** Checks grouped by their primary spec section, in the spec's order, with counts. */
export function bySection(checks: CheckResult[]): SectionGroup[] {
  const groups = new Map<string, SectionGroup>();
  for (const c of checks) {
    const s = primarySection(c);
    let g = groups.get(s);
    if (!g) groups.set(s, (g = { section: s, title: sectionTitle(s), passed: 0, failed: 0, inconclusive: 0, skipped: 0, checks: [] }));
    g[c.status] += 1;
    g.checks.push(c);
  }
  return [...groups.values()].sort((a, b) => compareSections(a.section, b.section));
}

/** Skipped checks grouped by reason: out-of-scope ones (the user's choice) apart from nothing-to-judge ones. */
export function skippedByReason(checks: CheckResult[]): Array<{ reason: string; outOfScope: boolean; ids: string[] }> {
  const groups = new Map<string, { reason: string; outOfScope: boolean; ids: string[] }>();
  for (const c of checks) {
    if (c.status !== 'skipped') continue;
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

/** Why a run-failing check fails the run, in words (an unexpected pass has no failure reason of its own). */
export function rootReason(r: CheckResult): string {
  return r.expectation?.outcome === 'unexpected-pass'
    ? `passes, but the expectations file lists it as a known failure (${r.expectation.reason}): the file is stale`
    : r.reason;
}
