// What the Action says, from what the suite wrote: the suite's messages in the inputs' terms, and
// one annotation per root cause read from results.json (the suite's `outcome` of each check and
// its root causes, stored once; nothing is judged again here).
import type { ReaderCheck, ReaderDocument } from '../verdict/reader';
import { violatedSection } from '../harness/result';
import type { Interface } from '../harness/check';
import os from 'node:os';
import { mdText } from '../cli/inert-text';
import { command } from './commands';
import { CERT_SIGN_KEY_VARIABLE, FLAG_OF_INPUT, variableOf, type FlaggedInput } from './inputs';

/** One annotation's message at most (results.json is already bounded and redacted; this keeps the log readable). */
const MAX_MESSAGE = 2000;

/** What the Action reads of results.json: the checks and the root causes, as the suite stored them. */
export type StoredVerdict = Pick<ReaderDocument, 'checks' | 'rootCauses'>;

/** A root cause that fails the run: its interface, or its check; and the checks it covers. */
export interface FailingRoot {
  interface?: Interface;
  check?: ReaderCheck;
  reason: string;
  covers: string[];
}

/**
 * The root causes that fail the run, as results.json stores them (rootCauses, written once by the
 * suite this Action ran): each with its check, when it is one, and the checks it covers. Nothing is
 * worked out again here; those covering checks come first, then the independent failures.
 */
export function storedRootCauses(doc: StoredVerdict): FailingRoot[] {
  const byId = new Map(doc.checks.map((c) => [c.id, c]));
  const roots = doc.rootCauses
    .filter((r) => r.effect === 'fails-run')
    .map((r) => ({ interface: r.interface, check: r.check === undefined ? undefined : byId.get(r.check), reason: r.reason, covers: r.checks }));
  return [...roots.filter((r) => r.covers.length > 0), ...roots.filter((r) => r.covers.length === 0)];
}

/** What to do about the run's roots, as results.json stores them (an interface's: --max-rps when throttled, the header flag when credentials were refused), each said once. */
export function rootHints(doc: Pick<ReaderDocument, 'rootCauses'>): string[] {
  return [...new Set(doc.rootCauses.map((r) => r.hint).filter((h): h is string => typeof h === 'string' && h.length > 0))];
}

export const list = (ids: string[], max = 12): string => `${ids.slice(0, max).join(', ')}${ids.length > max ? ` and ${ids.length - max} more` : ''}`;

/** One `::error` per root cause: what broke, the checks it covers, and how to see it again (its curl line, or the summary). */
export function annotation(root: FailingRoot, summaryLink: string): string {
  const check = root.check;
  const parts: string[] = [];
  let title: string;
  if (root.interface) {
    const name = root.interface === 'rest' ? 'REST' : 'JSON-RPC';
    title = `${name} target unreachable`;
    parts.push(`${name} target unreachable${root.reason ? `: ${root.reason}` : ''}`);
  } else if (check) {
    title = `${check.id} (spec ${violatedSection(check)})`;
    parts.push(`${check.title}: ${check.reason}`);
    if (check.hint) parts.push(`fix: ${check.hint}`);
  } else {
    // A root naming a check results.json does not hold: said as stored.
    title = 'conformance: root cause';
    parts.push(root.reason);
  }
  if (root.covers.length) parts.push(`covers ${root.covers.length} check(s) not judged because of it: ${list(root.covers)}`);
  // The suite's words name its flags (`run with --profile public`); a workflow's author sets inputs.
  // The curl line is left as it is: its $BASE_URL and $RPC_URL are shell variables to export.
  const said = inInputTerms(parts.join('\n'));
  const curl = check?.exchanges.find((e) => typeof e.curl === 'string')?.curl;
  const message = `${said}\n${curl ? `repro: ${curl}` : `details: ${summaryLink}`}`;
  return command('error', { title }, message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE - 1) + '…' : message);
}

/** A suite message as a workflow's author reads it: `signer-key:` (the input) where the suite names `--signer-key (or SIGNER_PRIVATE_KEY)`. */
export function inInputTerms(message: string): string {
  let text = message;
  for (const [name, flag] of Object.entries(FLAG_OF_INPUT) as Array<[FlaggedInput, (typeof FLAG_OF_INPUT)[FlaggedInput]]>) {
    const variable = variableOf(flag);
    // The trailing colon of `--flag (or VAR): …` is the input's own: `signer-key: …`.
    text = text
      .replace(new RegExp(`--${flag} \\(or ${variable}\\):?`, 'g'), `${name}:`)
      .replace(new RegExp(`--${flag}(?![\\w-]):?`, 'g'), `${name}:`)
      .replace(new RegExp(`(?<![\\w-])${variable}(?![\\w-]):?`, 'g'), `${name}:`);
  }
  return text.replace(new RegExp(`${CERT_SIGN_KEY_VARIABLE}(?![\\w-]):?`, 'g'), 'cert-sign-key:');
}

/**
 * The step summary of a run that wrote no report: its status and the suite's own lines, each a
 * quote in the Markdown of summary.md's prose (mdText): those lines may quote the target (a
 * WWW-Authenticate challenge, an answer's words), so no link, autolink, image or HTML of its own.
 */
export function noReportSummary(status: string, exitCode: number, said: readonly string[]): string {
  const quoted = said.length ? said.map((l) => `> ${mdText(l)}`).join(`${os.EOL}>${os.EOL}`) + os.EOL + os.EOL : '';
  return `# Tokenized stocks conformance: ${status} (exit ${exitCode})${os.EOL}${os.EOL}${quoted}No report was written: see the step's log.${os.EOL}`;
}
