'use strict';
// What the Action says, from what the suite wrote: the `args` input split into words, the suite's
// messages in the inputs' terms, and one annotation per root cause read from results.json (the
// suite's `outcome` of each check; nothing is judged again here). Plain CommonJS, no dependency.

/** One annotation's message at most (results.json is already bounded and redacted; this keeps the log readable). */
const MAX_MESSAGE = 2000;

/** `args` that no shell would split either (a quote left open). */
class WordsError extends Error {}

/**
 * `args` split into words as a POSIX shell splits them, without running one: single quotes keep
 * everything, double quotes keep all but `\\`, `\"`, `\$` and `` \` `` escapes, a backslash outside
 * quotes keeps the next character (and drops a newline). No expansion of any kind: `$HOME` stays text.
 */
function shellWords(text) {
  const words = [];
  let word = null;
  let i = 0;
  const put = (c) => (word = (word ?? '') + c);
  while (i < text.length) {
    const c = text[i++];
    if (c === "'") {
      const end = text.indexOf("'", i);
      if (end < 0) throw new WordsError('a single quote is not closed');
      put(text.slice(i, end));
      i = end + 1;
    } else if (c === '"') {
      let closed = false;
      put('');
      while (i < text.length) {
        const d = text[i++];
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '\\' && i < text.length && '\\"$`\n'.includes(text[i])) {
          const e = text[i++];
          if (e !== '\n') put(e);
        } else put(d);
      }
      if (!closed) throw new WordsError('a double quote is not closed');
    } else if (c === '\\') {
      if (i < text.length) {
        const e = text[i++];
        if (e !== '\n') put(e);
      }
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else put(c);
  }
  if (word !== null) words.push(word);
  return words;
}

/** The sections of the statements a failure violated (4.2 for 4.2.1, 2.1 for 2.1.r4), as the suite's reports show them; the check's own without any. */
const violatedSections = (c) =>
  [...new Set((c.violated?.length ? c.violated : (c.statements ?? [])).map((id) => id.slice(0, id.lastIndexOf('.'))))].join(', ') || c.section;

/**
 * The root causes that fail the run, as results.json stores them (rootCauses, written once by the
 * suite this Action ran): each with its check, when it is one, and the checks it covers. Nothing is
 * worked out again here; those covering checks come first, then the independent failures.
 */
function storedRootCauses(doc) {
  const byId = new Map((doc.checks ?? []).map((c) => [c.id, c]));
  const roots = (doc.rootCauses ?? [])
    .filter((r) => r.effect === 'fails-run')
    .map((r) => ({ interface: r.interface, check: r.check === undefined ? undefined : byId.get(r.check), reason: r.reason, covers: r.checks ?? [] }));
  return [...roots.filter((r) => r.covers.length > 0), ...roots.filter((r) => r.covers.length === 0)];
}

/** What to do about the run's roots, as results.json stores them (an interface's: --max-rps when throttled, the header flag when credentials were refused), each said once. */
function rootHints(doc) {
  return [...new Set((doc.rootCauses ?? []).map((r) => r.hint).filter((h) => typeof h === 'string' && h.length > 0))];
}

const list = (ids, max = 12) => `${ids.slice(0, max).join(', ')}${ids.length > max ? ` and ${ids.length - max} more` : ''}`;

/** One `::error` per root cause: what broke, the checks it covers, and how to see it again (its curl line, or the summary). */
function annotation(root, summaryLink, command) {
  const check = root.check;
  const parts = [];
  let title;
  if (root.interface) {
    const name = root.interface === 'rest' ? 'REST' : 'JSON-RPC';
    title = `${name} target unreachable`;
    parts.push(`${name} target unreachable${root.reason ? `: ${root.reason}` : ''}`);
  } else {
    title = `${check.id} (spec ${violatedSections(check)})`;
    parts.push(`${check.title}: ${check.reason}`);
    if (check.hint) parts.push(`fix: ${check.hint}`);
  }
  if (root.covers.length) parts.push(`covers ${root.covers.length} check(s) not judged because of it: ${list(root.covers)}`);
  // The suite's words name its flags (`run with --profile public`); a workflow's author sets inputs.
  // The curl line is left as it is: its $BASE_URL and $RPC_URL are shell variables to export.
  const said = inInputTerms(parts.join('\n'));
  const curl = check?.exchanges?.find((e) => typeof e.curl === 'string')?.curl;
  const message = `${said}\n${curl ? `repro: ${curl}` : `details: ${summaryLink}`}`;
  return command('error', { title }, message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE - 1) + '…' : message);
}

/** The Action's input for each of the suite's flags and variables it has one for. */
const INPUT_OF_FLAG = {
  'base-url': ['base-url', 'BASE_URL'],
  'rpc-url': ['rpc-url', 'RPC_URL'],
  profile: ['profile', 'RPC_PROFILE'],
  'signer-key': ['signer-key', 'SIGNER_PRIVATE_KEY'],
  header: ['headers', 'HEADERS'],
  'rest-header': ['rest-headers', 'REST_HEADERS'],
  'rpc-header': ['rpc-headers', 'RPC_HEADERS'],
  secret: ['secrets', 'SECRETS'],
  expectations: ['expectations', 'EXPECTATIONS'],
  openapi: ['openapi', 'OPENAPI'],
  require: ['require', 'REQUIRE'],
  certify: ['certify', 'CERTIFY'],
  'sign-key': ['cert-sign-key', 'CERT_SIGN_KEY_FILE'],
  'report-dir': ['report-dir', 'REPORT_DIR'],
};

/** A suite message as a workflow's author reads it: `signer-key:` (the input) where the suite names `--signer-key (or SIGNER_PRIVATE_KEY)`. */
function inInputTerms(message) {
  let text = String(message);
  for (const [flag, [name, variable]] of Object.entries(INPUT_OF_FLAG)) {
    // The trailing colon of `--flag (or VAR): …` is the input's own: `signer-key: …`.
    text = text
      .replace(new RegExp(`--${flag} \\(or ${variable}\\):?`, 'g'), `${name}:`)
      .replace(new RegExp(`--${flag}(?![\\w-]):?`, 'g'), `${name}:`)
      .replace(new RegExp(`(?<![\\w-])${variable}(?![\\w-]):?`, 'g'), `${name}:`);
  }
  return text.replace(/CERT_SIGN_KEY(?![\w-]):?/g, 'cert-sign-key:');
}

module.exports = { annotation, inInputTerms, list, rootHints, storedRootCauses, shellWords, WordsError };
