'use strict';
// The GitHub Action's entry point (action.yml, `runs.main`). Plain CommonJS with no dependency,
// so the runner can start it from a bare checkout of this repository. It:
//   1. registers every secret input with `::add-mask::`, before printing anything else;
//   2. makes sure the suite is built in the action's own directory (npm ci from the lock file,
//      then bin/build.js) when the checkout has no dist/;
//   3. runs the suite with the inputs as its environment variables (never on the command line,
//      where a process list would show them), its output fenced by `::stop-commands::` so a
//      target's text echoed in a log line can never be read as a workflow command;
//   4. appends summary.md to the step summary (without a report: the suite's own message, in the
//      inputs' terms), writes one `::error` per root cause that fails the run (from results.json:
//      the checks it covers, its curl line), sets the outputs, and exits non-zero exactly when the
//      run fails.
// Every write after the `::add-mask::` lines goes through output.js: the suite's egress gate once
// the suite is built, so the log, the step summary and the outputs hold no secret the suite knows.
// The formats are those of the Actions toolkit (@actions/core): workflow commands on stdout,
// file commands in $GITHUB_OUTPUT / $GITHUB_STEP_SUMMARY.
const { spawnSync, spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { annotation, inInputTerms, list, rootHints, storedRootCauses, shellWords, WordsError } = require('./messages');
const { Output } = require('./output');

const ACTION_DIR = path.resolve(__dirname, '..');
const SUITE_ENTRY = path.join(ACTION_DIR, 'dist', 'src', 'cli', 'run.js');
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** GitHub shows at most this many annotations of one step. */
const MAX_ANNOTATIONS = 10;

// ---- workflow commands (toolkit's command.ts) ---------------------------------------------

const TERMINAL = path.join(ACTION_DIR, 'dist', 'src', 'cli', 'egress-terminal.js');
/**
 * Text for the step log made inert by the suite's own rule (forTerminal: control characters and
 * bidi overrides as pictures, the `##[` and `::` command forms broken), once the suite is built: a
 * root cause's reason is the target's text, and an ESC, BEL or C1 control in it reached the log as
 * the terminal sequence it is. Before the build the Action writes only its own fixed text.
 */
function inert(text) {
  if (!fs.existsSync(TERMINAL)) return String(text);
  const { forTerminal } = require(TERMINAL);
  // A carriage return stays one: the toolkit's escaping writes it %0D.
  return String(text).split('\r').map(forTerminal).join('\r');
}

const escapeData = (s) => String(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * `::name key=value,…::message`, every part made inert and escaped for where it stands; but the
 * value of `::add-mask::`, which must reach the runner exactly as the secret is.
 */
function command(name, properties, message) {
  const shown = name === 'add-mask' ? String : inert;
  const props = Object.entries(properties)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${escapeProperty(shown(v))}`)
    .join(',');
  return `::${name}${props ? ' ' + props : ''}::${escapeData(shown(message))}${os.EOL}`;
}

/** A `name<<delimiter` block for $GITHUB_OUTPUT (toolkit's prepareKeyValueMessage). */
function keyValue(name, value) {
  const delimiter = `ghadelimiter_${randomUUID()}`;
  const text = String(value);
  if (name.includes(delimiter) || text.includes(delimiter)) throw new Error(`unexpected delimiter in output ${name}`);
  return `${name}<<${delimiter}${os.EOL}${text}${os.EOL}${delimiter}${os.EOL}`;
}

// ---- inputs --------------------------------------------------------------------------------

/** An input as the runner passes it: INPUT_<NAME>, upper case, spaces as underscores, trimmed. */
const input = (env, name) => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();

function booleanInput(env, name, fallback) {
  const v = input(env, name);
  if (v === '') return fallback;
  if (/^(true|yes|on|1)$/i.test(v)) return true;
  if (/^(false|no|off|0)$/i.test(v)) return false;
  // Not quoted: before the suite is built, nothing the Action writes may carry an input's value (output.js).
  throw new ConfigError(`input ${name}: expected true or false`);
}

class ConfigError extends Error {}

const lines = (v) =>
  v
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * A URL part that cannot be a key: a word of letters, `-` and `_` of at most 16 characters (maybe
 * with `.json`, `.yaml` or `.yml`), a version (`v2`) or a number of at most 8 digits. Mirrors
 * PLAIN_PART and publicUrl in src/harness/redact.ts (the rule for every URL the suite publishes),
 * which this file cannot import: change both together.
 */
const PLAIN_PART = /^([A-Za-z][A-Za-z_-]{0,15}(\.(json|ya?ml))?|v\d{1,2}|\d{1,8})$/;

/**
 * Every value a log line must not show: the signer key, the certificate's signing key, each
 * header's value (and its credential after a scheme such as "Bearer"), the `secrets` input, and
 * what in a URL may be a key (userinfo, every path segment and query part that is not a plain
 * word, query values of 8 characters or more).
 */
function secretsOf(env) {
  const out = new Set();
  const add = (v) => {
    if (v && v.length >= 4) out.add(v);
  };
  const key = input(env, 'signer-key');
  add(key);
  if (key.startsWith('0x')) add(key.slice(2));
  for (const name of ['headers', 'rest-headers', 'rpc-headers']) {
    for (const line of lines(input(env, name))) {
      const value = line.slice(line.indexOf(':') + 1).trim();
      add(value);
      add(value.split(/\s+/).pop());
    }
  }
  for (const v of lines(input(env, 'secrets')).flatMap((l) => l.split(','))) add(v.trim());
  // A PEM: the runner masks line by line, so each line of the key's body.
  for (const line of lines(input(env, 'cert-sign-key'))) if (!line.startsWith('-----')) add(line);
  for (const name of ['base-url', 'rpc-url']) {
    let url;
    try {
      url = new URL(input(env, name));
    } catch {
      continue;
    }
    const addPart = (raw) => {
      add(raw);
      try {
        add(decodeURIComponent(raw));
      } catch {
        // not percent-encoding: masked as written
      }
    };
    addPart(url.username);
    addPart(url.password);
    for (const [name, v] of url.searchParams) {
      if (!PLAIN_PART.test(name)) add(name);
      // A plain word is masked only when long: the runner hides a mask in every line, so `base` would go everywhere.
      if (v.length >= 8 || !PLAIN_PART.test(v)) add(v);
    }
    for (const segment of url.pathname.split('/')) if (segment && !PLAIN_PART.test(segment)) addPart(segment);
  }
  return [...out];
}

/** The suite's own environment variables, one per input; an empty input leaves the variable unset. */
const ENV_OF_INPUT = {
  'base-url': 'BASE_URL',
  'rpc-url': 'RPC_URL',
  profile: 'RPC_PROFILE',
  'signer-key': 'SIGNER_PRIVATE_KEY',
  headers: 'HEADERS',
  'rest-headers': 'REST_HEADERS',
  'rpc-headers': 'RPC_HEADERS',
  secrets: 'SECRETS',
  expectations: 'EXPECTATIONS',
  openapi: 'OPENAPI',
  'cert-sign-key': 'CERT_SIGN_KEY',
};

/** Every input action.yml declares: those above, and those that become flags or steer the step. */
const INPUTS = [...Object.keys(ENV_OF_INPUT), 'certify', 'require', 'fail-on-incomplete', 'report-dir', 'args'];

const workspaceOf = (env) => env.GITHUB_WORKSPACE || process.cwd();

/** The value of the last --report-dir in the args input (`--report-dir out` or `--report-dir=out`), as the suite's parser takes it; undefined without one. */
function reportDirInArgs(words) {
  let dir;
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '--report-dir' && i + 1 < words.length) dir = words[++i];
    else if (words[i].startsWith('--report-dir=')) dir = words[i].slice('--report-dir='.length);
  }
  return dir;
}

/**
 * Where the suite writes: the report-dir input, or the folder a --report-dir in args names (the
 * suite takes a flag over REPORT_DIR), so the report-dir output and the step summary follow it.
 */
const reportDirOf = (env) => path.resolve(workspaceOf(env), reportDirInArgs(suiteArgs(env)) ?? (input(env, 'report-dir') || 'conformance-report'));

/** Every file the suite writes into its report directory (src/cli/write-reports.ts writeReports, with --certify). */
const REPORT_FILES = ['results.json', 'junit.xml', 'summary.md', 'report.html', 'certificate.json', 'predicate.json', 'badge.svg'];

/** The suite's environment from the inputs (REPORT_DIR aside). */
function suiteEnv(env) {
  const childEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('INPUT_') && !Object.values(ENV_OF_INPUT).includes(k)) childEnv[k] = v;
  for (const [name, variable] of Object.entries(ENV_OF_INPUT)) {
    const v = input(env, name);
    if (v) childEnv[variable] = v; // relative paths: the suite runs in the workspace
  }
  return childEnv;
}

/** The suite's words from the args input, or none when they do not split (plan says why). */
function suiteArgs(env) {
  try {
    return shellWords(input(env, 'args'));
  } catch {
    return [];
  }
}

/** The suite's command line and environment from the inputs. */
function plan(env) {
  const workspace = workspaceOf(env);
  if (!input(env, 'base-url') && !input(env, 'rpc-url')) {
    // The CLI would judge its embedded reference target: a green run about nothing you meant to judge.
    throw new ConfigError('base-url and rpc-url are both empty (a missing secret?): give at least one');
  }
  const childEnv = suiteEnv(env);
  const reportDir = reportDirOf(env);
  childEnv.REPORT_DIR = reportDir;
  const args = [];
  if (booleanInput(env, 'certify', false)) args.push('--certify');
  const requirement = input(env, 'require');
  if (requirement) args.push('--require', requirement);
  try {
    args.push(...shellWords(input(env, 'args')));
  } catch (err) {
    if (err instanceof WordsError) throw new ConfigError(`input args: ${err.message}`);
    throw err;
  }
  return { workspace, reportDir, args, childEnv, failOnIncomplete: booleanInput(env, 'fail-on-incomplete', true) };
}

// ---- the verdict ---------------------------------------------------------------------------

const STATUS_OF_CODE = { 0: 'conformant', 1: 'non-conformant', 2: 'configuration-error', 3: 'incomplete', 130: 'interrupted' };

/**
 * Whether the step fails, from the suite's exit code: only 0 (and 3 when allowed) passes. An exit 3
 * passes only beside a results.json that says incomplete (`status`, undefined when none was
 * written): without one, or beside another status, the suite stopped on an error it did not
 * expect (a defect of the suite), which fail-on-incomplete: false must not show green.
 */
function fails(exitCode, failOnIncomplete, status) {
  if (exitCode === 0) return false;
  if (exitCode === 3) return failOnIncomplete || status !== 'incomplete';
  return true;
}

// ---- building the suite in the action's directory ------------------------------------------

/** npm next to the running node when it ships one, else the one on PATH. */
function npmCommand() {
  const beside = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  return fs.existsSync(beside) ? [process.execPath, beside] : ['npm'];
}

function sh(argv, what) {
  // Its output reaches the log before the gate exists (it is what builds the gate): so it is given none of the inputs.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INPUT_')));
  // A process's exit code (spawnSync names it status), not a verdict.
  const { error, status: code } = spawnSync(argv[0], argv.slice(1), {
    cwd: ACTION_DIR,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (error || code !== 0) throw new ConfigError(`${what} failed in ${ACTION_DIR}: ${error?.message ?? `exit ${code}`}`);
}

/**
 * A checkout of the action (what `uses:` downloads) has no dist/. Build it: `npm ci` from the
 * lock file (no install script runs; the optional anvil is left out: the action always judges a
 * remote target), then the TypeScript transpile.
 */
function ensureBuilt(io) {
  if (fs.existsSync(SUITE_ENTRY)) return;
  io.log(`::group::Building the suite in ${ACTION_DIR}${os.EOL}`);
  try {
    if (!fs.existsSync(path.join(ACTION_DIR, 'node_modules', 'typescript'))) {
      sh([...npmCommand(), 'ci', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund'], 'npm ci');
    }
    sh([process.execPath, path.join(ACTION_DIR, 'bin', 'build.js')], 'the build (bin/build.js)');
  } finally {
    io.log(`::endgroup::${os.EOL}`);
  }
}

// ---- the step ------------------------------------------------------------------------------

/** The suite's own lines on stderr (`conformance: …`), kept (bounded) to say in the annotation why it refused its configuration. */
const MAX_SAID = 10;

/** A per-check line of the suite's console where no terminal is: `[n/total] ✓ pass id …`, or the fix under a failure. */
const CHECK_LINE = /^\[\s*\d+\/\d+\] /;
const HINT_LINE = /^ {6}\S/;

/**
 * The suite's output, fenced by `::stop-commands::` so a target's text echoed in a line can never
 * be read as a workflow command. The per-check lines are folded in one group of the log, opened
 * and closed by the Action's own `::group::`/`::endgroup::`, written between two fences (each with
 * a fresh token) so the runner reads them as commands.
 */
function fencedOutput(io) {
  let token;
  let group = 'before';
  const open = () => {
    token = randomUUID();
    io.log(`::stop-commands::${token}${os.EOL}`);
  };
  const close = () => io.log(`::${token}::${os.EOL}`);
  const own = (line) => {
    close();
    io.log(line);
    open();
  };
  return {
    open,
    close,
    /** Before each line of the suite's stdout: the group opens at the first per-check line and ends at the first line after them. */
    beforeLine(line) {
      if (group === 'before' && CHECK_LINE.test(line)) {
        own(`::group::${line.match(/\/(\d+)\]/)[1]} checks, one line each${os.EOL}`);
        group = 'open';
      } else if (group === 'open' && !CHECK_LINE.test(line) && !HINT_LINE.test(line)) this.end();
    },
    /** Close the group if it is open (the suite's output ended inside it). */
    end() {
      if (group !== 'open') return;
      own(`::endgroup::${os.EOL}`);
      group = 'after';
    },
  };
}

function runSuite(args, cwd, env, io, fence) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE_ENTRY, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const said = [];
    const out = io.forward(
      'stdout',
      () => {},
      (l) => fence.beforeLine(l),
    );
    const err = io.forward('stderr', (l) => {
      if (l.startsWith('conformance: ') && said.length < MAX_SAID) said.push(l.slice('conformance: '.length));
    });
    child.stdout.setEncoding('utf8').on('data', (d) => out.take(d));
    child.stderr.setEncoding('utf8').on('data', (d) => err.take(d));
    // A cancelled job signals this process: the suite stops cleanly and writes its reports (exit 130).
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('error', (e) => resolve({ code: 2, error: e.message, said }));
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      out.end();
      err.end();
      fence.end();
      resolve({ code: code ?? (signal ? 130 : 2), said });
    });
  });
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

async function main(env = process.env, out = process.stdout, err = process.stderr) {
  const io = new Output(out, err);
  // First, before any other line: the runner hides these values from every later log line.
  for (const secret of secretsOf(env)) io.mask(command('add-mask', {}, secret));
  // The gate knows what the suite will be given: its environment, its command line, each part of `secrets`.
  const openGate = () => io.open(suiteArgs(env), suiteEnv(env), input(env, 'secrets'));
  openGate();

  let exitCode;
  let reportDir = '';
  let failOnIncomplete = true;
  let doc;
  let stopped; // the reason is already annotated
  let refused = []; // the suite's own words when it refused its configuration
  try {
    // First, before anything can stop the step: no report an earlier run left (a persistent
    // workspace) may speak for this one, since a workflow uploads the directory and may attest its
    // predicate.json whatever this step's outcome.
    for (const f of REPORT_FILES) fs.rmSync(path.join(reportDirOf(env), f), { force: true });
    const p = plan(env);
    ({ reportDir, failOnIncomplete } = p);
    ensureBuilt(io);
    if (!openGate()) throw new ConfigError(`the build left no ${path.relative(ACTION_DIR, SUITE_ENTRY)}`);
    const fence = fencedOutput(io);
    fence.open();
    const r = await runSuite(p.args, p.workspace, p.childEnv, io, fence);
    fence.close();
    if (r.error) io.log(command('error', { title: 'conformance' }, `the suite did not start: ${r.error}`));
    stopped = Boolean(r.error);
    exitCode = r.code;
    doc = readJson(path.join(reportDir, 'results.json'));
    if (!doc && exitCode === 2) refused = r.said.map(inInputTerms);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.log(command('error', { title: 'conformance' }, e.message));
    refused = [e.message];
    exitCode = 2;
    stopped = true;
  }

  const summary = reportDir && fs.existsSync(path.join(reportDir, 'summary.md')) ? fs.readFileSync(path.join(reportDir, 'summary.md'), 'utf8') : undefined;
  if (env.GITHUB_STEP_SUMMARY) {
    // Without a report, the suite's own message (in the inputs' terms) is what the reader needs: the fix is in it.
    const said = refused.length ? refused.map((l) => `> ${l.replace(/[<>&`*_[\]|\\]/g, (c) => `\\${c}`)}`).join(`${os.EOL}>${os.EOL}`) + os.EOL + os.EOL : '';
    io.append(
      env.GITHUB_STEP_SUMMARY,
      summary ??
        `# Tokenized stocks conformance: ${STATUS_OF_CODE[exitCode] ?? 'stopped'} (exit ${exitCode})${os.EOL}${os.EOL}${said}No report was written: see the step's log.${os.EOL}`,
      'the step summary ($GITHUB_STEP_SUMMARY)',
    );
  }

  const failed = fails(exitCode, failOnIncomplete, doc?.status);
  // The step summary's anchor for the failures, when the runner says where this run is.
  const summaryLink =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
      : 'the step summary (What fails the run)';
  const roots = doc ? storedRootCauses(doc) : [];
  // GitHub shows 10 annotations of a step: past that, the tenth names the rest rather than being lost.
  const annotations = roots
    .slice(0, roots.length > MAX_ANNOTATIONS ? MAX_ANNOTATIONS - 1 : MAX_ANNOTATIONS)
    .map((root) => annotation(root, summaryLink, command));
  if (roots.length > MAX_ANNOTATIONS) {
    const rest = roots.slice(MAX_ANNOTATIONS - 1).map((r) => r.check?.id ?? `${r.interface} target unreachable`);
    annotations.push(command('error', { title: `conformance: ${rest.length} more root causes` }, `${list(rest, 40)}: see ${summaryLink}`));
  }
  for (const a of annotations) io.log(a);
  const reasons = (doc?.statusReasons ?? []).join('; ');
  const hints = doc ? inInputTerms(rootHints(doc).join('; ')) : '';
  const status = doc?.status ?? STATUS_OF_CODE[exitCode] ?? 'stopped';
  if (failed && annotations.length === 0 && !stopped) {
    const why =
      exitCode === 2
        ? refused.length
          ? refused.join('; ')
          : 'the suite refused its configuration: see its message in the log'
        : doc
          ? `${reasons}${hints ? ` — ${hints}` : ''}`
          : 'the suite stopped without a report (an unexpected error is a defect of the suite): see its message in the log';
    io.log(command('error', { title: `conformance: ${status}` }, `exit ${exitCode}${why ? `: ${why}` : ''}`));
  }
  if (!failed && exitCode === 3)
    io.log(
      command(
        'warning',
        { title: 'conformance: incomplete' },
        `nothing failed, but not everything in scope was judged${reasons ? `: ${reasons}` : ''}${hints ? ` — ${hints}` : ''} (fail-on-incomplete is false)`,
      ),
    );

  if (env.GITHUB_OUTPUT) {
    // One append per output: a value the gate withholds (a report-dir named after a secret) leaves the others set.
    for (const [name, value] of [
      ['status', status],
      ['exit-code', exitCode],
      ['report-dir', reportDir],
    ])
      io.append(env.GITHUB_OUTPUT, keyValue(name, value), `output ${name} ($GITHUB_OUTPUT)`);
  }
  if (io.withheld.length) {
    // Fail closed: what the gate withheld is named, never what it held.
    io.log(command('error', { title: 'conformance action' }, `withheld (it would still have carried a secret): ${[...new Set(io.withheld)].join(', ')}`));
    return exitCode || 1;
  }
  return failed ? exitCode || 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      // A crash: the gate, when the suite is built, still sees the message (it may quote an input).
      const io = new Output();
      io.open(suiteArgs(process.env), suiteEnv(process.env), input(process.env, 'secrets'));
      io.log(command('error', { title: 'conformance action' }, String(err?.stack ?? err)));
      process.exitCode = 1;
    },
  );
}

module.exports = { INPUTS, REPORT_FILES, main, command, keyValue, fails, shellWords, inInputTerms };
