// Target text made inert for a terminal or a CI log, beside the egress gate: the gate passes what
// the suite prints to stdout and stderr through it (keeping only the suite's own colour), the jest
// adapter its messages, the console report a result's strings. Nothing here hides a secret (the
// gate masks them); it only stops text from acting as a terminal sequence or a workflow command.

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
