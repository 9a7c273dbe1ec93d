// The steps of loadConfig (config.ts), one setting or one rule each: the command line parsed against
// OPTIONS, then each value read from its flag, else from its environment variable, and validated.
// Every error is a ConfigError that names the flag and its variable and never prints key material.
import { parseArgs } from 'node:util';
import { GROUPS, type Group, type Profile } from '../harness/check';
import { REQUIRED_SCOPES, type RequiredScope } from '../verdict/scope';
import { ConfigError } from './config-error';
import { MIN_SECRET_LENGTH, NUMBER_RANGE, parseDuration, parseHeader, parsePositiveInt, quoted } from './config-values';
import { DEFAULTS, OPTIONS } from './options';
import { didYouMean, foreignVariables, nearMissVariables } from './suggest';
import { parseUrl } from './url-flags';
import { pushAll } from '../harness/many';

const BOOLEAN = new Set(['certify', 'list', 'help', 'version', 'archive', 'embedded', 'json']);
// Repeatable: each occurrence adds (a filter given twice selects what either selects), none is dropped.
const MULTIPLE = new Set(['header', 'rest-header', 'rpc-header', 'secret', 'only', 'grep']);

/** Where each setting comes from: the command line's values, else its environment variable. */
export interface Sources {
  values: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** A flag's value, else its variable's; an empty variable is unset. */
  get(flag: string): string | undefined;
  /** The flag's environment variable ('' for none). */
  envOf(flag: string): string;
}

/** The command line read against OPTIONS: an unknown flag is named with a suggestion before anything else is read. */
export function parseFlags(argv: string[]): Record<string, unknown> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [flag] of OPTIONS) options[flag] = { type: BOOLEAN.has(flag) ? 'boolean' : 'string', ...(MULTIPLE.has(flag) ? { multiple: true } : {}) };
  options.help.short = 'h';
  const flags = OPTIONS.map(([f]) => f);
  for (const token of parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true }).tokens ?? []) {
    if (token.kind === 'option' && !(token.name in options)) {
      throw new ConfigError(`unknown flag ${token.rawName}${didYouMean(token.name, flags, (f) => `--${f}`)} (see --help)`);
    }
  }
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError(`${(err as Error).message} (see --help)`);
  }
}

export function sourcesOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): Sources {
  const get = (flag: string): string | undefined => {
    const v = values[flag];
    if (typeof v === 'string') return v;
    const row = OPTIONS.find(([f]) => f === flag);
    const fromEnv = row && row[1] ? env[row[1]] : undefined;
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  };
  const envOf = (flag: string): string => OPTIONS.find(([f]) => f === flag)?.[1] ?? '';
  return { values, env, get, envOf };
}

/**
 * --base-url or --rpc-url. An empty URL is never "no URL": a CI secret that is missing would
 * otherwise silently turn a run against staging into a run against the embedded reference,
 * reported conformant.
 */
export function urlOf(src: Sources, flag: 'base-url' | 'rpc-url', name: 'BASE_URL' | 'RPC_URL'): ReturnType<typeof parseUrl> | undefined {
  const { values, env } = src;
  const fromFlag = values[flag];
  if (typeof fromFlag === 'string' && !fromFlag.trim()) throw new ConfigError(`--${flag} is empty: give a URL, or leave the flag out`);
  if (typeof fromFlag !== 'string' && env[name] !== undefined && !env[name]!.trim()) {
    throw new ConfigError(
      `${name} is set but empty (a missing CI secret?): set it to a URL, or unset it; the embedded reference target runs only when neither BASE_URL nor RPC_URL is set`,
    );
  }
  const value = src.get(flag);
  return value === undefined ? undefined : parseUrl(value, flag, name);
}

/** --profile (RPC_PROFILE), in any case and with blanks around it, as --require and --only are read. */
export function profileOf(src: Sources): Profile {
  const given = src.get('profile') ?? 'dedicated';
  const profile = given.trim().toLowerCase();
  if (profile !== 'public' && profile !== 'dedicated')
    throw new ConfigError(`--profile (or RPC_PROFILE): ${quoted(given)} is not one of public, dedicated${didYouMean(profile, ['public', 'dedicated'])}`);
  return profile;
}

/** A repeatable flag's values (each occurrence), else its variable's value; none when neither is given. */
function repeated(src: Sources, flag: string): string[] {
  const fromFlag = src.values[flag];
  if (Array.isArray(fromFlag)) return fromFlag as string[];
  const fromEnv = src.get(flag);
  return fromEnv === undefined ? [] : [fromEnv];
}

/** --only: the groups to run (all by default); repeated or comma-separated, the union; names in any case. */
export function groupsOf(src: Sources): Set<Group> {
  const given = repeated(src, 'only');
  if (given.length === 0) return new Set<Group>(GROUPS);
  const only = new Set<Group>();
  for (const g of given
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean)) {
    const group = g.toLowerCase() as Group;
    if (!GROUPS.includes(group)) throw new ConfigError(`--only (or ONLY): ${quoted(g)} is not one of ${GROUPS.join(', ')}${didYouMean(g, GROUPS)}`);
    only.add(group);
  }
  if (only.size === 0) throw new ConfigError('--only (or ONLY): name at least one group');
  return only;
}

/** --grep: one regular expression; repeated, the ids that match any of them. */
export function grepOf(src: Sources): RegExp | undefined {
  const given = repeated(src, 'grep');
  if (given.length === 0) return undefined;
  try {
    for (const pattern of given) new RegExp(pattern);
    // Each a group of its own, so `a|b` given once and `c` given again stay two alternatives.
    return new RegExp(given.length === 1 ? given[0] : given.map((p) => `(?:${p})`).join('|'));
  } catch (err) {
    throw new ConfigError(`--grep (or GREP): ${(err as Error).message}`);
  }
}

/** --header, --rest-header or --rpc-header (repeatable), else its variable: one header per line. */
export function headersOf(src: Sources, flag: string): Record<string, string> {
  const { values, env, envOf } = src;
  const out: Record<string, string> = {};
  const lines: string[] = [];
  const fromFlag = values[flag];
  if (Array.isArray(fromFlag)) pushAll(lines, fromFlag as string[]);
  else if (envOf(flag) && env[envOf(flag)])
    pushAll(
      lines,
      env[envOf(flag)]!.split(/\r?\n/).filter((l) => l.trim()),
    );
  for (const line of lines) {
    const [name, value] = parseHeader(line, flag, envOf(flag));
    out[name] = value;
  }
  return out;
}

/** --secret (or SECRETS): each value long enough to mask (it is masked only in what came from outside, never in the suite's own words). */
export function secretsOf(src: Sources): string[] {
  const { values, env } = src;
  // SECRETS: one per line when the value has several lines (a secret may contain a comma), else comma-separated.
  const secretList = (values.secret as string[] | undefined) ?? (env.SECRETS ?? '').split(env.SECRETS?.includes('\n') ? '\n' : ',').map((s) => s.trim());
  const givenSecrets = secretList.filter((s) => s !== '');
  if (givenSecrets.some((s) => s.length < MIN_SECRET_LENGTH)) {
    throw new ConfigError(
      `--secret (or SECRETS): a value shorter than ${MIN_SECRET_LENGTH} characters cannot be redacted without mangling ordinary text (value not shown)`,
    );
  }
  return givenSecrets;
}

export function maxSpendOf(src: Sources): bigint {
  const spend = src.get('max-spend-wei');
  if (spend === undefined) return DEFAULTS.maxSpendWei;
  if (!/^\d+$/.test(spend)) throw new ConfigError(`--max-spend-wei (or MAX_SPEND_WEI): ${quoted(spend)} is not a non-negative integer`);
  const maxSpendWei = BigInt(spend);
  // A balance is a uint256: a larger cap is a typo, not a budget.
  if (maxSpendWei >= 2n ** 256n) throw new ConfigError('--max-spend-wei (or MAX_SPEND_WEI): out of range (at most 2^256-1 wei)');
  return maxSpendWei;
}

export function numberOf(src: Sources, flag: keyof typeof NUMBER_RANGE, fallback: number): number {
  const v = src.get(flag);
  return v === undefined ? fallback : parsePositiveInt(v, flag, src.envOf(flag));
}

export function durationOf(src: Sources, flag: string): number | undefined {
  const v = src.get(flag);
  return v === undefined ? undefined : parseDuration(v, flag, src.envOf(flag));
}

/** A boolean flag with an environment variable (--archive, ARCHIVE; --embedded, EMBEDDED; --certify, CERTIFY): the variable is 1/true/yes or 0/false/no, a typo refused. */
export function switchOf(src: Sources, flag: 'archive' | 'embedded' | 'certify', variable: 'ARCHIVE' | 'EMBEDDED' | 'CERTIFY'): boolean {
  const fromEnv = src.env[variable]?.trim().toLowerCase();
  if (fromEnv && !/^(1|true|yes|0|false|no)$/.test(fromEnv))
    throw new ConfigError(`--${flag} (or ${variable}): ${quoted(src.env[variable]!)} is not one of 1, true, yes, 0, false, no`);
  return src.values[flag] === true || /^(1|true|yes)$/.test(fromEnv ?? '');
}

export function requiredScopeOf(src: Sources): RequiredScope {
  const requiredScope = (src.get('require') ?? 'none').trim().toLowerCase();
  if (!REQUIRED_SCOPES.includes(requiredScope as RequiredScope))
    throw new ConfigError(
      `--require (or REQUIRE): ${quoted(src.get('require')!)} is not one of ${REQUIRED_SCOPES.join(', ')}${didYouMean(requiredScope, REQUIRED_SCOPES)}`,
    );
  return requiredScope as RequiredScope;
}

/** --flashblock-ms: 0 is meaningful here (no flashblocks), so not numberOf() alone, which wants a positive integer; below the block time. */
export function flashblockMsOf(src: Sources, blockTimeMs: number): number | undefined {
  const flashblockMs =
    src.get('flashblock-ms') === undefined ? undefined : src.get('flashblock-ms') === '0' ? 0 : numberOf(src, 'flashblock-ms', DEFAULTS.flashblockMs);
  if (flashblockMs !== undefined && flashblockMs >= blockTimeMs) {
    throw new ConfigError(`--flashblock-ms (or FLASHBLOCK_MS): ${flashblockMs} is out of range (0, or 10 to the block time minus 1: ${blockTimeMs - 1})`);
  }
  return flashblockMs;
}

/**
 * A misspelt variable is a URL or a key that silently is not there: under CI, where nobody reads
 * a warning, it stops the run; by hand it is said once and the run goes on. Variables of other
 * tools the suite does not read are said too.
 */
export function variableWarnings(env: NodeJS.ProcessEnv, ci: boolean, hasRpcUrl: boolean): string[] {
  const warnings: string[] = [];
  const known = [...OPTIONS.map(([flag, variable]) => [flag, variable] as const), ['', 'CERT_SIGN_KEY'] as const];
  for (const { given, meant } of nearMissVariables(env, known)) {
    const words = `${given} is set, but the suite reads ${meant}: did you mean ${meant}?`;
    if (ci && env[meant] === undefined) throw new ConfigError(`${words} (under CI a misspelt variable is an error: rename it)`);
    warnings.push(`warning: ${words}`);
  }
  pushAll(warnings, foreignVariables(env, hasRpcUrl));
  return warnings;
}

/**
 * The embedded reference target runs when no target is given (`noTarget`). --embedded asks for it by
 * name, so it cannot stand beside a target; under CI a run about nothing the job meant to judge must
 * not show green, so there the reference is asked for by name.
 */
export function checkEmbedded(src: Sources, noTarget: boolean, ci: boolean): void {
  const { values, env } = src;
  const embeddedFlag = switchOf(src, 'embedded', 'EMBEDDED');
  if (embeddedFlag && !noTarget)
    throw new ConfigError(
      '--embedded (or EMBEDDED) judges the embedded reference target: leave out --base-url, --rpc-url and --openapi, or leave out --embedded',
    );
  if (noTarget && ci && !embeddedFlag && values.list !== true && values.help !== true && values.version !== true) {
    throw new ConfigError(
      `no target under CI: neither --base-url nor --rpc-url (BASE_URL, RPC_URL) is set, so only the embedded reference target could be judged. Give the URLs of the target to judge, or --embedded (EMBEDDED=1) to judge the reference on purpose${env.ETH_RPC_URL?.trim() ? '. ETH_RPC_URL is set but not read: pass --rpc-url "$ETH_RPC_URL" to judge that node' : ''}`,
    );
  }
}
