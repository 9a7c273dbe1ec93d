// The embedded reference target: a real anvil node with the tokenized-stock contracts,
// a JSON-RPC gateway (rpcUrl) that adds the pre-confirmation model and the profile rules,
// and the REST listing (baseUrl). Everything binds 127.0.0.1.
import { startAnvil, type AnvilProcess } from './anvil';
import { deployCatalog } from './contracts/deploy';
import { createControls, type Controls } from './controls';
import { startGateway, type Profile } from './gateway';
import { Preconf } from './preconf';
import { startRestServer } from './rest-server';
import { AnvilRpc, Upstream } from './rpc';
import { CHAIN_ID, DEFAULT_BLOCK_TIME_MS, SIGNER_ADDRESS, SIGNER_KEY } from './defaults';

export type { Controls } from './controls';
export type { Profile } from './gateway';
export { CHAIN_ID, DEFAULT_BLOCK_TIME_MS, SIGNER_ADDRESS, SIGNER_KEY } from './defaults';

export interface ReferenceOptions {
  profile?: Profile;
  /** Block seal interval; default 2000 (Base). */
  blockTimeMs?: number;
  /** 0 (default) picks a free port. */
  portRest?: number;
  portRpc?: number;
  /** Also serve the dev-only scenario endpoints under {baseUrl}/_dev/. Default false. */
  controls?: boolean;
  log?: (line: string) => void;
}

export interface ReferenceTarget {
  baseUrl: string;
  rpcUrl: string;
  profile: Profile;
  signerKey: `0x${string}`;
  chainId: number;
  /** Raw anvil, for runs that bypass the gateway. */
  anvilUrl: string;
  anvilPid: number;
  /** Wall-clock start-up time. */
  startupMs: number;
  tokens: Array<{ address: `0x${string}`; symbol: string; isin: string; feed: `0x${string}` }>;
  controls: Controls;
  stop(): Promise<void>;
}

export async function startReference(opts: ReferenceOptions = {}): Promise<ReferenceTarget> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const profile = opts.profile ?? 'dedicated';
  const blockTimeMs = opts.blockTimeMs ?? DEFAULT_BLOCK_TIME_MS;
  if (profile !== 'public' && profile !== 'dedicated') throw new Error(`unknown profile ${String(profile)}`);
  if (!Number.isInteger(blockTimeMs) || blockTimeMs < 10) throw new Error(`blockTimeMs must be an integer >= 10, got ${blockTimeMs}`);

  const cleanups: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch((err: Error) => log(`stop: ${err.message}`));
  };

  try {
    const anvil: AnvilProcess = await startAnvil({ chainId: CHAIN_ID, log });
    cleanups.push(() => anvil.stop());
    // Belt and braces next to the pipe guard in anvil.ts: on a normal exit, signal anvil now.
    const onExit = (): void => {
      try {
        process.kill(anvil.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    process.once('exit', onExit);
    cleanups.push(async () => void process.off('exit', onExit));
    log(`anvil pid ${anvil.pid} on ${anvil.url}`);

    const raw = new AnvilRpc(anvil.url);
    const upstream = new Upstream(raw);
    const owner = SIGNER_ADDRESS;
    const tokens = await deployCatalog(raw, owner, new Date());

    const preconf = new Preconf(upstream, { blockTimeMs, log });
    cleanups.push(() => preconf.stop());
    const controls = createControls({ upstream, preconf, tokens, owner });

    const gateway = await startGateway({ upstream, preconf, profile, port: opts.portRpc ?? 0, log });
    cleanups.push(() => gateway.close());
    const rest = await startRestServer({
      upstream,
      tokens: tokens.map((t) => t.address),
      controls: opts.controls ? controls : undefined,
      port: opts.portRest ?? 0,
      log,
    });
    cleanups.push(() => rest.close());
    preconf.start();

    const startupMs = Math.round(performance.now() - started);
    log(`reference target ready in ${startupMs} ms (profile ${profile}, block time ${blockTimeMs} ms, ${tokens.length} tokens)`);

    let stopping: Promise<void> | undefined;
    return {
      baseUrl: `http://127.0.0.1:${rest.port}`,
      rpcUrl: `http://127.0.0.1:${gateway.port}`,
      profile,
      signerKey: SIGNER_KEY,
      chainId: CHAIN_ID,
      anvilUrl: anvil.url,
      anvilPid: anvil.pid,
      startupMs,
      tokens,
      controls,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
