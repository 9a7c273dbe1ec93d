import type { CheckResult } from '../../harness/runner';
import type { Exchange } from '../../harness/transcript';

export function verdictOf(r: CheckResult): string {
  if (r.expectation?.outcome === 'expected-failure') return 'failed (expected)';
  if (r.expectation?.outcome === 'unexpected-pass') return 'passed (UNEXPECTED: listed as a known failure)';
  if (r.status === 'failed' && r.level === 'advisory') return 'failed (advisory)';
  return r.status;
}

export function json(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x), 2);
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

/** Expected vs actual and the section, in the words of the failure. */
export function failureText(r: CheckResult): string {
  const lines = [`${r.id} — ${r.title}`, `  spec section: ${r.failedSection ?? r.section}${r.failedSection && r.failedSection !== r.section ? ` (check cites ${r.section})` : ''}`, `  ${r.status}: ${r.reason}`];
  if (r.expected !== undefined) lines.push(`  expected: ${JSON.stringify(r.expected)}`);
  if (r.actual !== undefined) lines.push(`  actual:   ${JSON.stringify(r.actual)?.slice(0, 500)}`);
  if (r.expectation) lines.push(`  expectation: ${r.expectation.reason}${r.expectation.link ? ` (${r.expectation.link})` : ''}`);
  return lines.join('\n');
}
