import { forTerminal } from '../egress-terminal';

/**
 * Text the target supplied is data on its way to a public place (a terminal, a CI log, a step
 * summary). These functions make it inert for each of those formats (HTML, SVG and XML: escapeHtml
 * here, and junit.ts's own for XML); a terminal and a CI log get forTerminal, beside the gate
 * (src/cli/egress-terminal.ts). Redaction happens earlier, in the clients: nothing here
 * hides a secret, it only stops text from acting as markup or as a command.
 */

/**
 * A copy of `value` with every string passed through `clean` (keys included), for a reporter
 * that prints parts of a result. Depth is bounded (results are capped already; this is a second
 * fence against a pathological value), and nothing is walked twice.
 */
export function cleanStrings<T>(value: T, clean: (s: string) => string, maxDepth = 64): T {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return clean(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= maxDepth) return '[nested too deeply to show]';
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[clean(k)] = walk(x, depth + 1);
    return out;
  };
  return walk(value, 0) as T;
}

/** The longest run of backticks in `s`. */
function longestBacktickRun(s: string): number {
  let longest = 0;
  for (const m of s.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}

/**
 * Target text as a Markdown code span: one line, delimited by more backticks than any run inside
 * it, padded with a space each side (CommonMark strips exactly one), so it can neither end the
 * span nor become a link, image, heading or HTML. In a table cell, pass `table` to escape pipes
 * (GFM splits cells before it parses code spans).
 */
export function mdCode(text: string, opts: { table?: boolean } = {}): string {
  let s = forTerminal(text).replace(/\r?\n/g, ' ');
  if (opts.table) s = s.replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestBacktickRun(s) + 1);
  return `${fence} ${s} ${fence}`;
}

/** Target text as a fenced Markdown block whose fence is longer than any backtick run inside. */
export function mdFence(text: string): string {
  const s = forTerminal(text);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(s) + 1));
  return `${fence}text\n${s}\n${fence}`;
}

/**
 * Prose that may carry target text (a reason, a transport error), as inert Markdown on one line.
 * Backslash escapes (CommonMark allows them before any ASCII punctuation) stop emphasis, code,
 * links, images, tables, raw HTML and entities; a leading list, quote or heading marker is
 * escaped too; a zero-width space breaks the URL, e-mail and `scheme:` forms GFM would turn into
 * links by itself.
 * Everything else stays as it was, so the file still reads well as plain text.
 */
export function mdText(text: string): string {
  return (
    forTerminal(text)
      .replace(/\r?\n/g, ' ')
      .replace(/[\\`*_[\]<>&|~#!]/g, (c) => `\\${c}`)
      .replace(/^(\s*)([-+=>])/, '$1\\$2')
      .replace(/^(\s*\d+)([.)])/, '$1\\$2')
      .replace(/:\/\//g, ':\u200b//')
      .replace(/\b(www)\./gi, '$1\u200b.')
      // GFM also links e-mail addresses and `mailto:`/`xmpp:` text: a zero-width space after `@` and
      // before the colon of anything shaped like a scheme (a word glued to what follows) breaks both.
      .replace(/@/g, '@\u200b')
      .replace(/\b([A-Za-z][A-Za-z0-9+.-]{0,31}):(?=[^\s\u200b])/g, '$1\u200b:')
  );
}

/**
 * Serialised JSON made inert for a CI log that prints it (`cat results.json`): JSON already
 * escapes C0 controls; C1 controls, bidi overrides and the `##[` command form are written as
 * \u escapes, which decode to the same string, so the data is unchanged.
 */
export function jsonForLogs(serialised: string): string {
  return serialised.replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]|#(?=#\[)/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Text made safe inside HTML, SVG or XML text and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
