// The runner's formats, as the Actions toolkit (@actions/core) writes them: workflow commands on
// stdout (`::name key=value::message`), file commands in $GITHUB_OUTPUT, and the
// `::stop-commands::` fence around the suite's own output.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { forTerminal } from '../cli/inert-text';

/**
 * Text for the step log made inert by the suite's own rule (forTerminal: control characters and
 * bidi overrides as pictures, the `##[` and `::` command forms broken): a root cause's reason is
 * the target's text, and an ESC, BEL or C1 control in it would reach the log as the terminal
 * sequence it is. A carriage return stays one: the toolkit's escaping writes it %0D.
 */
const inert = (text: string): string => text.split('\r').map(forTerminal).join('\r');

const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * `::name key=value,…::message`, every part made inert and escaped for where it stands; but the
 * value of `::add-mask::`, which must reach the runner exactly as the secret is.
 */
export function command(name: string, properties: Record<string, string | undefined>, message: string): string {
  const shown = name === 'add-mask' ? (s: string) => s : inert;
  const props = Object.entries(properties)
    .filter((p): p is [string, string] => p[1] !== undefined && p[1] !== '')
    .map(([k, v]) => `${k}=${escapeProperty(shown(v))}`)
    .join(',');
  return `::${name}${props ? ' ' + props : ''}::${escapeData(shown(message))}${os.EOL}`;
}

/** A `name<<delimiter` block for $GITHUB_OUTPUT (toolkit's prepareKeyValueMessage). */
export function keyValue(name: string, value: string | number): string {
  const delimiter = `ghadelimiter_${randomUUID()}`;
  const text = String(value);
  if (name.includes(delimiter) || text.includes(delimiter)) throw new Error(`unexpected delimiter in output ${name}`);
  return `${name}<<${delimiter}${os.EOL}${text}${os.EOL}${delimiter}${os.EOL}`;
}

/** A per-check line of the suite's console where no terminal is: `[n/total] ✓ pass id …`, or the fix under a failure. */
const CHECK_LINE = /^\[\s*\d+\/(\d+)\] /;
const HINT_LINE = /^ {6}\S/;

export interface Fence {
  open(): void;
  close(): void;
  /** Before each line of the suite's stdout: the group opens at the first per-check line and ends at the first line after them. */
  beforeLine(line: string): void;
  /** Close the group if it is open (the suite's output ended inside it). */
  end(): void;
}

/**
 * The suite's output, fenced by `::stop-commands::` so a target's text echoed in a line can never
 * be read as a workflow command. The per-check lines are folded in one group of the log, opened
 * and closed by the Action's own `::group::`/`::endgroup::`, written between two fences (each with
 * a fresh token) so the runner reads them as commands. `log` writes one of the Action's lines.
 */
export function fencedOutput(log: (line: string) => void): Fence {
  let token = '';
  let group: 'before' | 'open' | 'after' = 'before';
  const open = () => {
    token = randomUUID();
    log(`::stop-commands::${token}${os.EOL}`);
  };
  const close = () => log(`::${token}::${os.EOL}`);
  const own = (line: string) => {
    close();
    log(line);
    open();
  };
  const end = () => {
    if (group !== 'open') return;
    own(`::endgroup::${os.EOL}`);
    group = 'after';
  };
  return {
    open,
    close,
    end,
    beforeLine(line) {
      const check = CHECK_LINE.exec(line);
      if (group === 'before' && check) {
        own(`::group::${check[1]} checks, one line each${os.EOL}`);
        group = 'open';
      } else if (group === 'open' && !check && !HINT_LINE.test(line)) end();
    },
  };
}
