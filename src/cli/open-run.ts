/**
 * The one way to open a run: configuration → target → clients → run environment. The CLI (main.ts),
 * `verify-certificate --live` (certificate/live.ts) and the jest adapter (through main) all come
 * here, so the secrets are registered with the egress gate once, the published OpenAPI document is
 * read once, and the target is probed the same way for each.
 */
import { AnswerBudget, loadHttpClient, RateLimiter } from '../harness/http';
import { DocumentUnavailable, loadDocument, type OpenApiDocument } from '../harness/openapi-document';
import type { SealGrid } from '../harness/check';
import type { RunEnv } from '../harness/runner';
import { createSigner, SpendBudget, warmSigner } from '../harness/signer';
import { compileSchemas } from '../harness/schemas';
import { loadSpec } from '../harness/spec-rules';
import type { RunConfig } from './config';
import type { Egress } from './egress';
import { takeOrStart } from './reference-process';
import { credentialsRefusedMessage, probe } from './target';

/** What stopped a run from opening: a document that cannot be had or a URL that answers as the other interface (configuration mistakes), or a target that did not start. */
export class OpenRunError extends Error {
  override name = 'OpenRunError';
  constructor(
    readonly stage: 'openapi' | 'target' | 'misdirected' | 'credentials',
    message: string,
  ) {
    super(message);
  }
}

export interface RunTarget {
  baseUrl?: string;
  rpcUrl?: string;
  signerKey?: `0x${string}`;
  /** Where its seals fall, when the target is the embedded reference (CheckSettings.sealGrid). */
  sealGrid?: SealGrid;
  stop(): Promise<void>;
}

export interface OpenedRun {
  target: RunTarget;
  env: RunEnv;
}

export interface OpenRunOptions {
  signal: AbortSignal;
  /** Where the `target:` line and "unreachable" notes go (the console); nothing is said without it. */
  say?: { out(line: string): void; err(line: string): void };
  /** Settings that come from elsewhere than the configuration (a certificate's profile and archive). */
  settings?: Partial<Pick<RunEnv['settings'], 'profile' | 'archive'>>;
  /** Never start the embedded reference (a re-check judges a target that exists). */
  remoteOnly?: boolean;
}

/** The first line of the console output: what is being judged, so an embedded run is never mistaken for a deployment. */
async function openTarget(cfg: RunConfig, gate: Egress, opts: OpenRunOptions): Promise<RunTarget> {
  if (!cfg.embedded || opts.remoteOnly) {
    const shown = (url: string | undefined, flag: string) => (url ? gate.redactor.publicUrl(url) : `none (no ${flag})`);
    opts.say?.out(`target: REST ${shown(cfg.baseUrl, '--base-url')}, JSON-RPC ${shown(cfg.rpcUrl, '--rpc-url')} (profile ${cfg.profile})\n`);
    return { baseUrl: cfg.baseUrl, rpcUrl: cfg.rpcUrl, signerKey: cfg.signerKey, stop: async () => {} };
  }
  // A process of its own: the reference's CPU and memory are not the suite's (reference-process.ts).
  const starting = takeOrStart({ profile: cfg.profile, blockTimeMs: cfg.blockTimeMs, flashblockMs: cfg.flashblockMs });
  // While it starts, this process loads what its first requests and the pre-confirmation pass need
  // at once (the reference's block clock runs from its answer, and the pass's first attempt must
  // be sent early enough in that block to see the transactions pre-confirmed before the seal),
  // reads what the run's document quotes at its end, and compiles the schemas its first checks
  // validate against.
  loadHttpClient();
  warmSigner();
  loadSpec();
  compileSchemas();
  const ref = await starting;
  opts.say?.out(
    `target: the embedded reference target (no BASE_URL or RPC_URL given), up in ${ref.startupMs} ms: REST ${ref.baseUrl}, JSON-RPC ${ref.rpcUrl} (profile ${ref.profile}, block time ${ref.blockTimeMs} ms, flashblocks ${ref.flashblockMs ? `every ${ref.flashblockMs} ms` : 'off'})\n`,
  );
  return {
    baseUrl: ref.baseUrl,
    rpcUrl: ref.rpcUrl,
    signerKey: cfg.signerKey ?? ref.signerKey,
    ...(ref.sealGrid ? { sealGrid: ref.sealGrid } : {}),
    stop: () => ref.stop(),
  };
}

/**
 * Open a run of `cfg`: its secrets registered with `gate` (before any request), the OpenAPI
 * document read, the target started or named, probed, and the environment the runner takes.
 * Throws OpenRunError for a document that cannot be had or a target that does not start; the
 * caller stops the target (`target.stop()`) when the run is over.
 */
export async function openRun(cfg: RunConfig, gate: Egress, opts: OpenRunOptions): Promise<OpenedRun> {
  gate.registerConfig(cfg);
  const redactor = gate.redactor;
  let openapi: OpenApiDocument | undefined;
  try {
    // Once, before anything else: a document that cannot be had is a mistake in the configuration.
    openapi = cfg.openapi
      ? await loadDocument(cfg.openapi, { baseUrl: cfg.baseUrl, headers: cfg.restHeaders, http: { timeoutMs: cfg.timeoutMs, redactor, signal: opts.signal } })
      : undefined;
  } catch (err) {
    if (!(err instanceof DocumentUnavailable)) throw err;
    throw new OpenRunError('openapi', `--openapi (or OPENAPI): ${redactor.text(cfg.openapi!)}: ${redactor.text(err.message)}`);
  }
  let target: RunTarget;
  try {
    target = await openTarget(cfg, gate, opts);
  } catch (err) {
    throw new OpenRunError('target', `the embedded reference target could not start: ${redactor.text((err as Error).message)}`);
  }
  redactor.add(target.signerKey);
  try {
    const limiter = cfg.maxRps ? new RateLimiter(cfg.maxRps) : undefined;
    // Stopped while the target was asked (a signal, the run's deadline): what the probe missed is no
    // finding. The run goes on to its verdict as any stopped run does (every check skipped, cause
    // stopped: incomplete, or interrupted for a signal), its reports written.
    const found = await probe(target, cfg, redactor, limiter, opts.signal);
    const { unreachable, misdirected, refused, seen } = opts.signal.aborted ? {} : found;
    // A dedicated node refusing the credentials as the run opens: a mistake in the configuration
    // (credentials are outside the spec), said once with what to check. On a public profile the
    // refusal is 5.2's to judge, once (interface-facts.ts).
    if (refused?.rpc && (opts.settings?.profile ?? cfg.profile) === 'dedicated')
      throw new OpenRunError('credentials', credentialsRefusedMessage(refused.rpc, Object.keys(cfg.rpcHeaders).length > 0));
    // A URL that answers as the other interface (or a web server's page) is one mistake in the
    // configuration, not dozens of spec failures: said once with its fix, nothing judged.
    const wrong = Object.values(misdirected ?? {});
    if (wrong.length) throw new OpenRunError('misdirected', wrong.join('\nconformance: '));
    for (const [k, why] of Object.entries(unreachable ?? {})) opts.say?.err(`conformance: ${k} target unreachable: ${why}\n`);
    const env: RunEnv = {
      baseUrl: target.baseUrl,
      rpcUrl: target.rpcUrl,
      restHeaders: cfg.restHeaders,
      rpcHeaders: cfg.rpcHeaders,
      settings: {
        profile: opts.settings?.profile ?? cfg.profile,
        clockSkewSec: cfg.clockSkewSec,
        navMaxAgeSec: cfg.navMaxAgeSec,
        timeoutMs: cfg.timeoutMs,
        openapi,
        archive: opts.settings?.archive ?? cfg.archive,
        samples: cfg.samples,
        ...(target.sealGrid ? { sealGrid: target.sealGrid } : {}),
      },
      redactor,
      signer: target.signerKey ? createSigner(target.signerKey, new SpendBudget(cfg.maxSpendWei)) : undefined,
      unreachable,
      // Found down by a check after the probe was answered (then the checks after it are not judged at once).
      gateway: {},
      signal: opts.signal,
      limiter,
      // Every answer the checks read counts against one budget (RUN_ANSWER_BYTES).
      answers: new AnswerBudget(),
      // What the probe read is evidence too: the list's checks judge that answer.
      ...(seen ? { openedWith: seen } : {}),
    };
    return { target, env };
  } catch (err) {
    await target.stop();
    throw err;
  }
}
