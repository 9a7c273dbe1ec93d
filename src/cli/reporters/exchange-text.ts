// An exchange as a person reads it (request, response, the curl line that reproduces it), and
// indented JSON as the reports print values.
import { jsonSafe } from '../../harness/json';
import type { Exchange } from '../../harness/transcript';

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
