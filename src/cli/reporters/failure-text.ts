// A failure in words: the statements it violated, expected vs actual, the hint and the expectation.
import type { CheckResult } from '../../harness/runner';
import { violatedSection } from '../../harness/result';
import { observationText } from '../../harness/observation';
import type { ReaderCheck } from '../../verdict/reader';

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

/** How the quoted statements are introduced: what a failure violated, or what the check enforces. */
export const quoteLabel = (r: Pick<CheckResult, 'violated'>): string => (r.violated?.length ? 'violated' : 'enforces');

/** Expected vs actual, the section and the statements, in the words of the failure. */
export function failureText(r: ReaderCheck, texts?: Record<string, string>): string {
  const lines = [`${r.id} — ${r.title}`, `  spec section: ${violatedSection(r)}${violatedSection(r) !== r.section ? ` (check cites ${r.section})` : ''}`];
  const quoted = quoteStatements(r, texts);
  if (quoted) lines.push(`  ${quoteLabel(r)}: ${quoted}`);
  lines.push(`  ${r.outcome}: ${r.reason}`);
  if (r.expected !== undefined) lines.push(`  expected: ${observationText(r.expected)}`);
  if (r.actual !== undefined) lines.push(`  actual:   ${observationText(r.actual)}`);
  if (r.hint) lines.push(`  hint: ${r.hint}`);
  if (r.expectation) lines.push(`  expectation: ${r.expectation.reason}${r.expectation.link ? ` (${r.expectation.link})` : ''}`);
  return lines.join('\n');
}

/** Expected vs actual on one line, cut to fit, or undefined when the check recorded neither. */
export function expectedVsActual(r: Pick<CheckResult, 'expected' | 'actual'>, max = 160): string | undefined {
  if (r.expected === undefined && r.actual === undefined) return undefined;
  const cut = (v: CheckResult['expected']) => {
    const s = v === undefined ? '—' : observationText(v);
    return s.length > max ? `${s.slice(0, max)}…` : s;
  };
  return `expected ${cut(r.expected)}, actual ${cut(r.actual)}`;
}
