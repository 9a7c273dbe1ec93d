// Target text made inert for where it goes: a terminal or a CI log (forTerminal; the egress gate
// passes every console line through forConsole, keeping only the suite's own colour), Markdown,
// HTML, SVG and XML (junit.ts has its own for XML). Nothing here hides a secret (the gate masks
// them, src/cli/egress.ts); it only stops text from acting as a terminal sequence, a workflow
// command or markup.

/**
 * C0 controls other than tab and newline (ESC starts terminal sequences, CR rewrites the line
 * a reader sees), DEL, and C1 controls (0x9b is a one-byte CSI for some terminals). Shown as
 * Unicode control pictures or U+FFFD so a reader still sees that something was there.
 */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** Bidirectional overrides and isolates reorder what a reader sees ("Trojan Source"). */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

function picture(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '\u2421' : '\ufffd';
}

export function stripControls(s: string): string {
  return s.replace(CONTROLS, picture).replace(BIDI, '\ufffd');
}

/**
 * What may stand before a workflow command on its line. GitHub's runner trims the line with .NET's
 * String.Trim() before it looks for `::`, which strips every Unicode White_Space character: tab,
 * vertical tab, form feed, space, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F,
 * U+205F, U+3000. JavaScript's \s adds U+FEFF; U+180E was whitespace in older Unicode; and the
 * zero-width characters U+200B–U+200D and U+2060 show nothing before a command. All of them are
 * skipped here: an extra zero-width space in a line that was not a command costs nothing.
 */
const COMMAND_LEAD = /^((?:[^\S\n]|[\u0085\u180e\u200b-\u200d\u2060])*):(?=:)/gm;

/**
 * GitHub's runner reads a log line whose first non-blank characters are `::` as a workflow
 * command (`::add-mask::`, `::error::`, `::stop-commands::`), and the older `##[command]` form
 * anywhere in a line. A zero-width space after the first character keeps the text readable and
 * the line inert.
 */
export function neutraliseWorkflowCommands(s: string): string {
  return s.replace(COMMAND_LEAD, '$1:\u200b').replace(/#(?=#\[)/g, '#\u200b');
}

/** Target text made safe for a terminal or a CI log. */
export function forTerminal(s: string): string {
  return neutraliseWorkflowCommands(stripControls(s));
}

/** What the console streams are given: only write (and isTTY, which decides colour). */
export interface OutStream {
  write(text: string): boolean;
  isTTY: boolean;
}

export interface Io {
  out: OutStream;
  err: OutStream;
}

/** The suite's own terminal sequences (colour, erase line after a carriage return): everything else that controls a terminal is shown inert. */
const OWN_SEQUENCE = /\r?\u001b\[2K|\u001b\[[0-9;]{0,12}m/g;

/** A console line: forTerminal but for the suite's own sequences. */
export function forConsole(text: string): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(OWN_SEQUENCE)) {
    out += forTerminal(text.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + forTerminal(text.slice(at));
}

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

/**
 * Text made safe inside HTML, SVG or XML text and attribute values: inert as a terminal or a CI
 * log would show it too (a report is read with `cat` and printed by CI steps as often as opened in
 * a browser; XML allows no C0 control but tab and newline), then no markup.
 */
export function escapeHtml(s: string): string {
  return forTerminal(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
