import { statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { GROUPS, type Group, type Profile } from '../harness/check';
import { REQUIRED_SCOPES, type RequiredScope } from './results';
import { didYouMean, foreignVariables, isCi, nearMissVariables } from './suggest';
import { KeyError, loadSigningKey, MAX_KEY_FILE_BYTES, type SigningKey } from './certificate/dsse';
import { readRegularText, UnreadableFile } from '../harness/regular-file';

import { ConfigError } from './config-error';
import { parseSignerKey } from './keys';
import { fromUserDir } from './paths';
import { parseUrl } from './url-flags';
import { DEFAULTS, OPTIONS } from './options';
import { CERTIFY_SAMPLES } from '../harness/sampling';

export { ConfigError };
export { MAX_TIMER_MS, MIN_SECRET_LENGTH, NUMBER_RANGE, parseDuration, parseHeader, parsePositiveInt, quoted } from './config-values';
import { secretRuleBroken } from './secret-rules';
import { NUMBER_RANGE, parseDuration, parseHeader, parsePositiveInt, quoted, MIN_SECRET_LENGTH } from './config-values';

export interface RunConfig {
  baseUrl?: string;
  rpcUrl?: string;
  /**
   * True when no URL was given: the embedded reference target is started for the run. An
   * --openapi document alone is judged alone: the reference is not the team's API.
   */
  embedded: boolean;
  /** Under CI (CI=true, GITHUB_ACTIONS=true): a run with no target is refused unless --embedded asks for the reference. */
  ci: boolean;
  /** What the user should hear but that does not stop the run (a near-miss variable outside CI). */
  warnings: string[];
  profile: Profile;
  signerKey?: `0x${string}`;
  reportDir: string;
  only: Set<Group>;
  grep?: RegExp;
  timeoutMs: number;
  deadlineMs: number;
  concurrency: number;
  restHeaders: Record<string, string>;
  rpcHeaders: Record<string, string>;
  navMaxAgeSec?: number;
  clockSkewSec: number;
  maxSpendWei: bigint;
  expectationsFile?: string;
  /** The API's published OpenAPI document: an http(s) URL, or a file path made absolute (relative to the working directory). */
  openapi?: string;
  blockTimeMs: number;
  /** Also write certificate.json, predicate.json and badge.svg beside the reports. */
  certify: boolean;
  /** Sign the certificate with this key (--sign-key, CERT_SIGN_KEY_FILE or CERT_SIGN_KEY); needs --certify. */
  signKey?: SigningKey;
  /** Extra values to redact (--secret / SECRETS) that the heuristics cannot recognise. */
  secrets: string[];
  /** Flashblock interval of the embedded reference target (its default when not given); 0 = instant. */
  flashblockMs?: number;
  /** --max-rps: requests per second across the whole run; undefined = no cap. */
  maxRps?: number;
  /** --samples: answers per read-only question (1: one, as before; --certify without --samples: CERTIFY_SAMPLES). */
  samples: number;
  /** --archive: require state and history at any block (pruned-history errors fail instead of skipping). */
  archive: boolean;
  /** --require full: a run that leaves an interface, a group or the signer out of scope is incomplete (exit 3). */
  require: RequiredScope;
  /** --json: the run's document on stdout, the human lines on stderr. */
  json: boolean;
  list: boolean;
  help: boolean;
  version: boolean;
}

const BOOLEAN = new Set(['certify', 'list', 'help', 'version', 'archive', 'embedded', 'json']);
const MULTIPLE = new Set(['header', 'rest-header', 'rpc-header', 'secret']);
/** Flags that only ask a question (--help, --list, --version): no environment variable on purpose. */
export const QUESTIONS: ReadonlySet<string> = new Set(['list', 'help', 'version']);
/**
 * --openapi: a URL (fetched once before the checks run, see loadDocument) or a readable file,
 * resolved against the working directory now so that a typo is a configuration error.
 */
function parseOpenApiSource(value: string, env: NodeJS.ProcessEnv): string {
  if (/^https?:\/\//i.test(value)) {
    const { url, authorization } = parseUrl(value, 'openapi', 'OPENAPI');
    if (authorization)
      throw new ConfigError(
        '--openapi (or OPENAPI): credentials in the URL are not supported; serve the document from the --base-url origin and give them with --rest-header',
      );
    return url;
  }
  const file = path.resolve(fromUserDir(value, env));
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    // Reported below with the path as given.
  }
  if (!isFile) throw new ConfigError(`--openapi (or OPENAPI): no readable file ${value} (resolved to ${file})`);
  return file;
}

/** A transaction key (0x + 64 hex, what --signer-key takes), with or without its 0x. */
const TRANSACTION_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/**
 * A value given where a path is expected that is key material, not a path: a transaction key, a
 * PEM, or one long line of base64. Named for what it looks like, never echoed.
 */
function keyGivenAsPath(value: string, source: string): ConfigError | undefined {
  const v = value.trim();
  if (TRANSACTION_KEY.test(v))
    return new ConfigError(`${source}: the value looks like a transaction key (not shown): did you mean --signer-key (or SIGNER_PRIVATE_KEY)?`);
  if (/-----BEGIN|[\r\n]/.test(v) || (v.length >= 40 && /^[A-Za-z0-9+=]+$/.test(v)))
    return new ConfigError(
      `${source}: this variable takes a path to a PEM file, and the value looks like the key itself (not shown); give the PEM in CERT_SIGN_KEY instead, or the path here`,
    );
  return undefined;
}

/** The certificate's signing key: a PEM file (--sign-key, CERT_SIGN_KEY_FILE) or the PEM itself (CERT_SIGN_KEY). Never echoed. */
function signingKeyOf(file: string | undefined, pem: string | undefined, env: NodeJS.ProcessEnv): SigningKey | undefined {
  if (file !== undefined && pem?.trim()) throw new ConfigError('--sign-key (or CERT_SIGN_KEY_FILE) and CERT_SIGN_KEY are both set: give the key once');
  let text = pem?.trim() ? pem : undefined;
  const source = file !== undefined ? `--sign-key (or CERT_SIGN_KEY_FILE) ${file}` : 'CERT_SIGN_KEY';
  if (file !== undefined) {
    try {
      text = readRegularText(path.resolve(fromUserDir(file, env)), MAX_KEY_FILE_BYTES, source);
    } catch (err) {
      if (err instanceof UnreadableFile) throw new ConfigError(err.message);
      throw err;
    }
  }
  if (text === undefined) return undefined;
  if (pem?.trim() && TRANSACTION_KEY.test(pem.trim()))
    throw new ConfigError('CERT_SIGN_KEY: the value looks like a transaction key (not shown): did you mean SIGNER_PRIVATE_KEY (or --signer-key)?');
  try {
    return loadSigningKey(text, source);
  } catch (err) {
    if (err instanceof KeyError) throw new ConfigError(err.message);
    throw err;
  }
}

/** Build the run configuration from flags over environment (which dotenv filled from .env). */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): RunConfig {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [flag] of OPTIONS) options[flag] = { type: BOOLEAN.has(flag) ? 'boolean' : 'string', ...(MULTIPLE.has(flag) ? { multiple: true } : {}) };
  options.help.short = 'h';
  const flags = OPTIONS.map(([f]) => f);
  for (const token of parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true }).tokens ?? []) {
    if (token.kind === 'option' && !(token.name in options)) {
      throw new ConfigError(`unknown flag ${token.rawName}${didYouMean(token.name, flags, (f) => `--${f}`)} (see --help)`);
    }
  }
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError(`${(err as Error).message} (see --help)`);
  }
  const get = (flag: string): string | undefined => {
    const v = values[flag];
    if (typeof v === 'string') return v;
    const row = OPTIONS.find(([f]) => f === flag);
    const fromEnv = row && row[1] ? env[row[1]] : undefined;
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  };
  const envOf = (flag: string): string => OPTIONS.find(([f]) => f === flag)?.[1] ?? '';

  // An empty folder is never "here": `--report-dir "$OUT"` with OUT unset would write the reports
  // into the working directory and clear a badge.svg or certificate.json the user keeps there.
  const reportDirFlag = values['report-dir'];
  if (typeof reportDirFlag === 'string' && !reportDirFlag.trim())
    throw new ConfigError(`--report-dir is empty: give a folder (default ${DEFAULTS.reportDir}), or leave the flag out`);

  // An empty URL is never "no URL": a CI secret that is missing would otherwise silently turn
  // a run against staging into a run against the embedded reference, reported conformant.
  const url = (flag: 'base-url' | 'rpc-url', name: 'BASE_URL' | 'RPC_URL') => {
    const fromFlag = values[flag];
    if (typeof fromFlag === 'string' && !fromFlag.trim()) throw new ConfigError(`--${flag} is empty: give a URL, or leave the flag out`);
    if (typeof fromFlag !== 'string' && env[name] !== undefined && !env[name]!.trim()) {
      throw new ConfigError(
        `${name} is set but empty (a missing CI secret?): set it to a URL, or unset it; the embedded reference target runs only when neither BASE_URL nor RPC_URL is set`,
      );
    }
    const value = get(flag);
    return value === undefined ? undefined : parseUrl(value, flag, name);
  };
  const base = url('base-url', 'BASE_URL');
  const rpc = url('rpc-url', 'RPC_URL');
  const baseUrl = base?.url;
  const rpcUrl = rpc?.url;

  const profile = get('profile') ?? 'dedicated';
  if (profile !== 'public' && profile !== 'dedicated')
    throw new ConfigError(`--profile (or RPC_PROFILE): ${quoted(profile)} is not one of public, dedicated${didYouMean(profile, ['public', 'dedicated'])}`);

  const signerKeyRaw = get('signer-key');
  const signerKey = signerKeyRaw === undefined ? undefined : parseSignerKey(signerKeyRaw);

  const onlyRaw = get('only');
  const only = new Set<Group>(GROUPS);
  if (onlyRaw !== undefined) {
    only.clear();
    for (const g of onlyRaw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!GROUPS.includes(g as Group)) throw new ConfigError(`--only (or ONLY): ${quoted(g)} is not one of ${GROUPS.join(', ')}${didYouMean(g, GROUPS)}`);
      only.add(g as Group);
    }
    if (only.size === 0) throw new ConfigError('--only (or ONLY): name at least one group');
  }

  let grep: RegExp | undefined;
  const grepRaw = get('grep');
  if (grepRaw !== undefined) {
    try {
      grep = new RegExp(grepRaw);
    } catch (err) {
      throw new ConfigError(`--grep (or GREP): ${(err as Error).message}`);
    }
  }

  const headers = (flag: string): Record<string, string> => {
    const out: Record<string, string> = {};
    const lines: string[] = [];
    const fromFlag = values[flag];
    if (Array.isArray(fromFlag)) lines.push(...(fromFlag as string[]));
    else if (envOf(flag) && env[envOf(flag)]) lines.push(...env[envOf(flag)]!.split(/\r?\n/).filter((l) => l.trim()));
    for (const line of lines) {
      const [name, value] = parseHeader(line, flag, envOf(flag));
      out[name] = value;
    }
    return out;
  };
  const common = headers('header');

  // SECRETS: one per line when the value has several lines (a secret may contain a comma), else comma-separated.
  const secretList = (values.secret as string[] | undefined) ?? (env.SECRETS ?? '').split(env.SECRETS?.includes('\n') ? '\n' : ',').map((s) => s.trim());
  const givenSecrets = secretList.filter((s) => s !== '');
  if (givenSecrets.some((s) => s.length < MIN_SECRET_LENGTH)) {
    throw new ConfigError(
      `--secret (or SECRETS): a value shorter than ${MIN_SECRET_LENGTH} characters cannot be redacted without mangling ordinary text (value not shown)`,
    );
  }
  const broken = givenSecrets.map(secretRuleBroken).find((rule) => rule !== undefined);
  if (broken) throw new ConfigError(`--secret (or SECRETS): a value cannot be masked without garbling the suite's own words: ${broken} (value not shown)`);

  let maxSpendWei: bigint = DEFAULTS.maxSpendWei;
  const spend = get('max-spend-wei');
  if (spend !== undefined) {
    if (!/^\d+$/.test(spend)) throw new ConfigError(`--max-spend-wei (or MAX_SPEND_WEI): ${quoted(spend)} is not a non-negative integer`);
    maxSpendWei = BigInt(spend);
    // A balance is a uint256: a larger cap is a typo, not a budget.
    if (maxSpendWei >= 2n ** 256n) throw new ConfigError('--max-spend-wei (or MAX_SPEND_WEI): out of range (at most 2^256-1 wei)');
  }

  const num = (flag: keyof typeof NUMBER_RANGE, fallback: number): number => {
    const v = get(flag);
    return v === undefined ? fallback : parsePositiveInt(v, flag, envOf(flag));
  };
  const dur = (flag: string): number | undefined => {
    const v = get(flag);
    return v === undefined ? undefined : parseDuration(v, flag, envOf(flag));
  };

  // A boolean flag with an environment variable: ARCHIVE=1/true/yes or 0/false/no.
  const archiveEnv = env.ARCHIVE?.trim().toLowerCase();
  if (archiveEnv && !/^(1|true|yes|0|false|no)$/.test(archiveEnv))
    throw new ConfigError(`--archive (or ARCHIVE): ${quoted(env.ARCHIVE!)} is not one of 1, true, yes, 0, false, no`);
  const archive = values.archive === true || /^(1|true|yes)$/.test(archiveEnv ?? '');
  const maxRpsRaw = get('max-rps');
  const requiredScope = (get('require') ?? 'none').trim().toLowerCase();
  if (!REQUIRED_SCOPES.includes(requiredScope as RequiredScope))
    throw new ConfigError(
      `--require (or REQUIRE): ${quoted(get('require')!)} is not one of ${REQUIRED_SCOPES.join(', ')}${didYouMean(requiredScope, REQUIRED_SCOPES)}`,
    );
  const blockTimeMs = num('block-time', DEFAULTS.blockTimeMs);
  // 0 is meaningful here (no flashblocks), so not num() alone, which wants a positive integer.
  const flashblockMs = get('flashblock-ms') === undefined ? undefined : get('flashblock-ms') === '0' ? 0 : num('flashblock-ms', DEFAULTS.flashblockMs);
  if (flashblockMs !== undefined && flashblockMs >= blockTimeMs) {
    throw new ConfigError(`--flashblock-ms (or FLASHBLOCK_MS): ${flashblockMs} is out of range (0, or 10 to the block time minus 1: ${blockTimeMs - 1})`);
  }
  const openapi = get('openapi') !== undefined ? parseOpenApiSource(get('openapi')!, env) : undefined;

  const signKeyPath = get('sign-key');
  const lookAlike =
    signKeyPath === undefined ? undefined : keyGivenAsPath(signKeyPath, typeof values['sign-key'] === 'string' ? '--sign-key' : 'CERT_SIGN_KEY_FILE');
  if (lookAlike) throw lookAlike;
  const certify = values.certify === true || /^(1|true|yes)$/i.test(env.CERTIFY ?? '');
  // A key in the environment is ambient (a CI secret for the runs that certify); the flag is a request.
  if (typeof values['sign-key'] === 'string' && !certify) throw new ConfigError('--sign-key signs the certificate: add --certify (or CERTIFY=1)');
  const signKey = certify ? signingKeyOf(get('sign-key'), env.CERT_SIGN_KEY, env) : undefined;

  const ci = isCi(env);
  const warnings: string[] = [];
  // A misspelt variable is a URL or a key that silently is not there: under CI, where nobody reads
  // a warning, it stops the run; by hand it is said once and the run goes on.
  const known = [...OPTIONS.map(([flag, variable]) => [flag, variable] as const), ['', 'CERT_SIGN_KEY'] as const];
  for (const { given, meant } of nearMissVariables(env, known)) {
    const words = `${given} is set, but the suite reads ${meant}: did you mean ${meant}?`;
    if (ci && env[meant] === undefined) throw new ConfigError(`${words} (under CI a misspelt variable is an error: rename it)`);
    warnings.push(`warning: ${words}`);
  }
  warnings.push(...foreignVariables(env, rpcUrl !== undefined));
  const embeddedEnv = env.EMBEDDED?.trim().toLowerCase();
  if (embeddedEnv && !/^(1|true|yes|0|false|no)$/.test(embeddedEnv))
    throw new ConfigError(`--embedded (or EMBEDDED): ${quoted(env.EMBEDDED!)} is not one of 1, true, yes, 0, false, no`);
  const embeddedFlag = values.embedded === true || /^(1|true|yes)$/.test(embeddedEnv ?? '');
  const noTarget = baseUrl === undefined && rpcUrl === undefined && openapi === undefined;
  if (embeddedFlag && !noTarget)
    throw new ConfigError(
      '--embedded (or EMBEDDED) judges the embedded reference target: leave out --base-url, --rpc-url and --openapi, or leave out --embedded',
    );
  // Under CI a run about nothing the job meant to judge must not show green: the reference is asked for by name.
  if (noTarget && ci && !embeddedFlag && values.list !== true && values.help !== true && values.version !== true) {
    throw new ConfigError(
      `no target under CI: neither --base-url nor --rpc-url (BASE_URL, RPC_URL) is set, so only the embedded reference target could be judged. Give the URLs of the target to judge, or --embedded (EMBEDDED=1) to judge the reference on purpose${env.ETH_RPC_URL?.trim() ? '. ETH_RPC_URL is set but not read: pass --rpc-url "$ETH_RPC_URL" to judge that node' : ''}`,
    );
  }

  return {
    baseUrl,
    rpcUrl,
    embedded: noTarget,
    ci,
    warnings,
    profile,
    signerKey,
    // Relative paths are the user's: from the directory the command was run in (INIT_CWD under npm run).
    reportDir: fromUserDir(get('report-dir') ?? DEFAULTS.reportDir, env),
    only,
    grep,
    timeoutMs: num('timeout-ms', DEFAULTS.timeoutMs),
    deadlineMs: num('deadline-ms', DEFAULTS.deadlineMs),
    concurrency: num('concurrency', DEFAULTS.concurrency),
    restHeaders: { ...(base?.authorization ? { Authorization: base.authorization } : {}), ...common, ...headers('rest-header') },
    rpcHeaders: { ...(rpc?.authorization ? { Authorization: rpc.authorization } : {}), ...common, ...headers('rpc-header') },
    navMaxAgeSec: dur('nav-max-age'),
    clockSkewSec: dur('clock-skew') ?? DEFAULTS.clockSkewSec,
    maxSpendWei,
    expectationsFile: get('expectations'),
    openapi,
    blockTimeMs,
    certify,
    ...(signKey ? { signKey } : {}),
    secrets: givenSecrets,
    flashblockMs,
    ...(maxRpsRaw !== undefined ? { maxRps: parsePositiveInt(maxRpsRaw, 'max-rps', 'MAX_RPS') } : {}),
    // A certificate speaks for the whole fleet behind the URL: it samples unless told otherwise.
    samples: num('samples', certify ? CERTIFY_SAMPLES : 1),
    archive,
    require: requiredScope as RequiredScope,
    json: values.json === true,
    list: values.list === true,
    help: values.help === true,
    version: values.version === true,
  };
}
