// The Action's inputs (action.yml `inputs:`) as the suite takes them: each stands for one of the
// suite's flags (src/cli/options.ts, whose variable it is passed as), the values a log line must
// not show, and the suite's command line, environment and report directory.
import path from 'node:path';
import { OPTIONS } from '../cli/options';
import { isPlainPart } from '../harness/url-parts';
import { shellWords, WordsError } from './words';
import { pushAll } from '../harness/many';

type Flag = (typeof OPTIONS)[number][0];

/**
 * Each of the Action's inputs that stands for a flag of the suite, with that flag. The flag's
 * variable (OPTIONS) is how the input reaches the suite, and how the suite's messages that name
 * the flag or the variable are said in the inputs' terms.
 */
export const FLAG_OF_INPUT = {
  'base-url': 'base-url',
  'rpc-url': 'rpc-url',
  profile: 'profile',
  'signer-key': 'signer-key',
  headers: 'header',
  'rest-headers': 'rest-header',
  'rpc-headers': 'rpc-header',
  secrets: 'secret',
  expectations: 'expectations',
  openapi: 'openapi',
  require: 'require',
  certify: 'certify',
  'cert-sign-key': 'sign-key',
  'report-dir': 'report-dir',
} as const satisfies Record<string, Flag>;

export type FlaggedInput = keyof typeof FLAG_OF_INPUT;

/** The suite's variable for a flag, from its one table of flags. */
export function variableOf(flag: Flag): string {
  const row = OPTIONS.find(([f]) => f === flag);
  if (!row?.[1]) throw new Error(`the suite's flag --${flag} has no variable`);
  return row[1];
}

/**
 * The suite reads the PEM itself from this variable (beside --sign-key's CERT_SIGN_KEY_FILE, a
 * path): the cert-sign-key input is a secret's value, never a file in the workspace.
 */
export const CERT_SIGN_KEY_VARIABLE = 'CERT_SIGN_KEY';

/**
 * The inputs passed to the suite in its environment (never on the command line, where a process
 * list would show them), each as its flag's variable. `require` and `certify` become flags;
 * `report-dir` is resolved against the workspace first (reportDirOf).
 */
export const ENV_OF_INPUT: Readonly<Record<string, string>> = Object.fromEntries(
  (Object.entries(FLAG_OF_INPUT) as Array<[FlaggedInput, Flag]>)
    .filter(([name]) => !['require', 'certify', 'report-dir'].includes(name))
    .map(([name, flag]) => [name, name === 'cert-sign-key' ? CERT_SIGN_KEY_VARIABLE : variableOf(flag)]),
);

/** Every input action.yml declares: those standing for a flag, and those that steer the step. */
export const INPUTS = [...Object.keys(FLAG_OF_INPUT), 'fail-on-incomplete', 'args'] as const;
type InputName = FlaggedInput | (typeof INPUTS)[number];

export type Env = NodeJS.ProcessEnv;

/** An input as the runner passes it: INPUT_<NAME>, upper case, spaces as underscores, trimmed. */
export const input = (env: Env, name: InputName): string => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();

/** A mistake in the inputs: one `::error`, exit 2. */
export class ConfigError extends Error {}

function booleanInput(env: Env, name: InputName, fallback: boolean): boolean {
  const v = input(env, name);
  if (v === '') return fallback;
  if (/^(true|yes|on|1)$/i.test(v)) return true;
  if (/^(false|no|off|0)$/i.test(v)) return false;
  throw new ConfigError(`input ${name}: expected true or false`);
}

const lines = (v: string): string[] =>
  v
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * Every value a log line must not show: the signer key, the certificate's signing key, each
 * header's value (and its credential after a scheme such as "Bearer"), the `secrets` input, and
 * what in a URL may be a key (userinfo, every path segment and query part that is not plain by
 * the rule every URL the suite publishes follows, isPlainPart; query values of 8 characters or more).
 */
export function secretsOf(env: Env): string[] {
  const out = new Set<string>();
  const add = (v: string | undefined) => {
    if (v && v.length >= 4) out.add(v);
  };
  const key = input(env, 'signer-key');
  add(key);
  if (key.startsWith('0x')) add(key.slice(2));
  for (const name of ['headers', 'rest-headers', 'rpc-headers'] as const) {
    for (const line of lines(input(env, name))) {
      const value = line.slice(line.indexOf(':') + 1).trim();
      add(value);
      add(value.split(/\s+/).pop());
    }
  }
  for (const v of lines(input(env, 'secrets')).flatMap((l) => l.split(','))) add(v.trim());
  // A PEM: the runner masks line by line, so each line of the key's body.
  for (const line of lines(input(env, 'cert-sign-key'))) if (!line.startsWith('-----')) add(line);
  for (const name of ['base-url', 'rpc-url'] as const) {
    let url: URL;
    try {
      url = new URL(input(env, name));
    } catch {
      continue;
    }
    const addPart = (raw: string) => {
      add(raw);
      try {
        add(decodeURIComponent(raw));
      } catch {
        // not percent-encoding: masked as written
      }
    };
    addPart(url.username);
    addPart(url.password);
    for (const [part, v] of url.searchParams) {
      if (!isPlainPart(part)) add(part);
      // A plain word is masked only when long: the runner hides a mask in every line, so `base` would go everywhere.
      if (v.length >= 8 || !isPlainPart(v)) add(v);
    }
    for (const segment of url.pathname.split('/')) if (!isPlainPart(segment)) addPart(segment);
  }
  return [...out];
}

const workspaceOf = (env: Env): string => env.GITHUB_WORKSPACE || process.cwd();

/** The value of the last --report-dir in the args input (`--report-dir out` or `--report-dir=out`), as the suite's parser takes it; undefined without one. */
function reportDirInArgs(words: string[]): string | undefined {
  let dir: string | undefined;
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '--report-dir' && i + 1 < words.length) dir = words[++i];
    else if (words[i].startsWith('--report-dir=')) dir = words[i].slice('--report-dir='.length);
  }
  return dir;
}

/** The suite's words from the args input, or none when they do not split (plan says why). */
export function suiteArgs(env: Env): string[] {
  try {
    return shellWords(input(env, 'args'));
  } catch {
    return [];
  }
}

/**
 * Where the suite writes: the report-dir input, or the folder a --report-dir in args names (the
 * suite takes a flag over REPORT_DIR), so the report-dir output and the step summary follow it.
 */
export const reportDirOf = (env: Env): string =>
  path.resolve(workspaceOf(env), reportDirInArgs(suiteArgs(env)) ?? (input(env, 'report-dir') || 'conformance-report'));

/** The suite's environment from the inputs (REPORT_DIR aside): the runner's, without the inputs, with each given input as its variable. */
export function suiteEnv(env: Env): Env {
  const passed = new Set(Object.values(ENV_OF_INPUT));
  const childEnv: Env = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('INPUT_') && !passed.has(k)) childEnv[k] = v;
  for (const [name, variable] of Object.entries(ENV_OF_INPUT)) {
    const v = input(env, name as FlaggedInput);
    if (v) childEnv[variable] = v; // relative paths: the suite runs in the workspace
  }
  return childEnv;
}

export interface Plan {
  workspace: string;
  reportDir: string;
  args: string[];
  childEnv: Env;
  failOnIncomplete: boolean;
}

/** The suite's command line and environment from the inputs; a ConfigError for inputs the step refuses. */
export function plan(env: Env): Plan {
  if (!input(env, 'base-url') && !input(env, 'rpc-url')) {
    // The CLI would judge its embedded reference target: a green run about nothing you meant to judge.
    throw new ConfigError('base-url and rpc-url are both empty (a missing secret?): give at least one');
  }
  const childEnv = suiteEnv(env);
  const reportDir = reportDirOf(env);
  childEnv[variableOf('report-dir')] = reportDir;
  const args: string[] = [];
  if (booleanInput(env, 'certify', false)) args.push(`--${FLAG_OF_INPUT.certify}`);
  const requirement = input(env, 'require');
  if (requirement) args.push(`--${FLAG_OF_INPUT.require}`, requirement);
  try {
    pushAll(args, shellWords(input(env, 'args')));
  } catch (err) {
    if (err instanceof WordsError) throw new ConfigError(`input args: ${err.message}`);
    throw err;
  }
  return { workspace: workspaceOf(env), reportDir, args, childEnv, failOnIncomplete: booleanInput(env, 'fail-on-incomplete', true) };
}
