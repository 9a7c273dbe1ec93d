import { statSync } from 'node:fs';
import path from 'node:path';
import type { Group, Profile } from '../harness/check';
import type { RequiredScope } from '../verdict/scope';
import { isCi } from './suggest';
import { KeyError, loadSigningKey, MAX_KEY_FILE_BYTES, type SigningKey } from './signing-keys';
import { readRegularText, UnreadableFile } from '../harness/regular-file';

import { ConfigError } from './config-error';
import { parseSignerKey } from './keys';
import { fromUserDir } from './paths';
import { parseUrl } from './url-flags';
import { DEFAULTS } from './options';
import { CERTIFY_SAMPLES } from '../harness/sampling';
import {
  checkEmbedded,
  durationOf,
  flashblockMsOf,
  grepOf,
  groupsOf,
  headersOf,
  maxSpendOf,
  numberOf,
  parseFlags,
  profileOf,
  requiredScopeOf,
  secretsOf,
  sourcesOf,
  switchOf,
  urlOf,
  variableWarnings,
  type Sources,
} from './config-sources';

export { ConfigError };
export { MAX_TIMER_MS, MIN_SECRET_LENGTH, NUMBER_RANGE, parseDuration, parseHeader, parsePositiveInt, quoted } from './config-values';
import { parsePositiveInt } from './config-values';

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

/**
 * --report-dir, from the directory the command was run in (INIT_CWD under npm run). Given empty it
 * is refused: `--report-dir "$OUT"` with OUT unset wrote the reports into the working directory and
 * cleared a badge.svg or certificate.json kept there. REPORT_DIR set empty is unset, as other variables are.
 */
function reportDirOf({ values, env, get }: Sources): string {
  const given = values['report-dir'];
  if (typeof given === 'string' && !given.trim())
    throw new ConfigError(`--report-dir is empty: give a folder (default ${DEFAULTS.reportDir}), or leave the flag out`);
  return fromUserDir(get('report-dir') ?? DEFAULTS.reportDir, env);
}

/** --certify and the key that signs the certificate (--sign-key, CERT_SIGN_KEY_FILE or CERT_SIGN_KEY). */
function certificationOf(src: Sources): { certify: boolean; signKey?: SigningKey } {
  const { values, env, get } = src;
  const signKeyPath = get('sign-key');
  const lookAlike =
    signKeyPath === undefined ? undefined : keyGivenAsPath(signKeyPath, typeof values['sign-key'] === 'string' ? '--sign-key' : 'CERT_SIGN_KEY_FILE');
  if (lookAlike) throw lookAlike;
  const certify = switchOf(src, 'certify', 'CERTIFY');
  // A key in the environment is ambient (a CI secret for the runs that certify); the flag is a request.
  if (typeof values['sign-key'] === 'string' && !certify) throw new ConfigError('--sign-key signs the certificate: add --certify (or CERTIFY=1)');
  return { certify, signKey: certify ? signingKeyOf(get('sign-key'), env.CERT_SIGN_KEY, env) : undefined };
}

/**
 * Build the run configuration from flags over environment (which dotenv filled from .env): each
 * setting read and validated in turn (config-sources.ts), so the first mistake is the one reported.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): RunConfig {
  const values = parseFlags(argv);
  const src = sourcesOf(values, env);
  const { get } = src;
  const base = urlOf(src, 'base-url', 'BASE_URL');
  const rpc = urlOf(src, 'rpc-url', 'RPC_URL');
  const baseUrl = base?.url;
  const rpcUrl = rpc?.url;
  const profile = profileOf(src);
  const signerKeyRaw = get('signer-key');
  const signerKey = signerKeyRaw === undefined ? undefined : parseSignerKey(signerKeyRaw);
  const only = groupsOf(src);
  const grep = grepOf(src);
  const common = headersOf(src, 'header');
  const secrets = secretsOf(src);
  const maxSpendWei = maxSpendOf(src);
  const archive = switchOf(src, 'archive', 'ARCHIVE');
  const maxRpsRaw = get('max-rps');
  const requiredScope = requiredScopeOf(src);
  const blockTimeMs = numberOf(src, 'block-time', DEFAULTS.blockTimeMs);
  const flashblockMs = flashblockMsOf(src, blockTimeMs);
  const openapi = get('openapi') !== undefined ? parseOpenApiSource(get('openapi')!, env) : undefined;
  const { certify, signKey } = certificationOf(src);
  const ci = isCi(env);
  const warnings = variableWarnings(env, ci, rpcUrl !== undefined);
  const noTarget = baseUrl === undefined && rpcUrl === undefined && openapi === undefined;
  checkEmbedded(src, noTarget, ci);

  return {
    baseUrl,
    rpcUrl,
    embedded: noTarget,
    ci,
    warnings,
    profile,
    signerKey,
    reportDir: reportDirOf(src),
    only,
    grep,
    timeoutMs: numberOf(src, 'timeout-ms', DEFAULTS.timeoutMs),
    deadlineMs: numberOf(src, 'deadline-ms', DEFAULTS.deadlineMs),
    concurrency: numberOf(src, 'concurrency', DEFAULTS.concurrency),
    restHeaders: { ...(base?.authorization ? { Authorization: base.authorization } : {}), ...common, ...headersOf(src, 'rest-header') },
    rpcHeaders: { ...(rpc?.authorization ? { Authorization: rpc.authorization } : {}), ...common, ...headersOf(src, 'rpc-header') },
    navMaxAgeSec: durationOf(src, 'nav-max-age'),
    clockSkewSec: durationOf(src, 'clock-skew') ?? DEFAULTS.clockSkewSec,
    maxSpendWei,
    expectationsFile: get('expectations'),
    openapi,
    blockTimeMs,
    certify,
    ...(signKey ? { signKey } : {}),
    secrets,
    flashblockMs,
    ...(maxRpsRaw !== undefined ? { maxRps: parsePositiveInt(maxRpsRaw, 'max-rps', 'MAX_RPS') } : {}),
    // A certificate speaks for the whole fleet behind the URL: it samples unless told otherwise.
    samples: numberOf(src, 'samples', certify ? CERTIFY_SAMPLES : 1),
    archive,
    require: requiredScope,
    json: values.json === true,
    list: values.list === true,
    help: values.help === true,
    version: values.version === true,
  };
}
