// The embedded reference target: a real anvil node with the tokenized-stock contracts,
// a JSON-RPC gateway (rpcUrl) that adds the pre-confirmation model and the profile rules,
// and the REST listing (baseUrl). Everything binds 127.0.0.1.
import type { Server } from 'node:http';
import { startAnvil, type AnvilProcess } from './anvil';
import type { Controls } from './controls';
import type { Profile } from './gateway';
import type { BlockNumberMode } from './preconf';
import { CHAIN_ID, DEFAULT_BLOCK_TIME_MS, DEFAULT_FLASHBLOCK_MS, SIGNER_ADDRESS, SIGNER_KEY } from './defaults';

/** Empty blocks sealed on top of the deployment before the target serves (see startReference). */
const HISTORY_BLOCKS = 2;
export type { Controls } from './controls';
export type { Profile } from './gateway';
export type { BlockNumberMode } from './preconf';
export { CHAIN_ID, DEFAULT_BLOCK_TIME_MS, DEFAULT_FLASHBLOCK_MS, SIGNER_ADDRESS, SIGNER_KEY, ZERO_HASH } from './defaults';

export interface ReferenceOptions {
  profile?: Profile;
  /** Block seal interval; default 2000 (Base). */
  blockTimeMs?: number;
  /**
   * Flashblock interval: an accepted transaction shows at "pending" at the next flashblock;
   * default 200 (Base; 0 when blockTimeMs is 200 or less). 0: the instant model, visible at
   * "pending" as soon as accepted.
   */
  flashblockMs?: number;
  /**
   * Flashblocks a transaction waits beyond the next one (default 0), as when earlier
   * flashblocks are full or the first of a block carries only deposits. Needs flashblockMs > 0.
   */
  inclusionDelayFlashblocks?: number;
  /**
   * What eth_blockNumber reports: 'sealed' (default) the head; 'building' the block being
   * built once it has a flashblock, as some Flashblocks nodes do.
   */
  blockNumberMode?: BlockNumberMode;
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
  blockTimeMs: number;
  flashblockMs: number;
  inclusionDelayFlashblocks: number;
  blockNumberMode: BlockNumberMode;
  /** Where the sequencer's seals fall: every blockTimeMs from atMs (epoch milliseconds). */
  sealGrid: { atMs: number; everyMs: number };
  signerKey: `0x${string}`;
  chainId: number;
  /** The REST listing's own node http.Server (listening on baseUrl), for in-process tests. */
  restServer: Server;
  /** Raw anvil, for runs that bypass the gateway. */
  anvilUrl: string;
  anvilPid: number;
  /** Wall-clock start-up time. */
  startupMs: number;
  tokens: Array<{ address: `0x${string}`; symbol: string; isin: string; feed: `0x${string}` }>;
  controls: Controls;
  stop(): Promise<void>;
}

/**
 * The parts that load viem and undici, a few hundred milliseconds of a start-up: required once
 * anvil is spawned (startAnvil's onSpawned), so that they load while it boots.
 */
const loadParts = () => ({
  ...(require('./contracts/deploy') as typeof import('./contracts/deploy')),
  ...(require('./controls') as typeof import('./controls')),
  ...(require('./gateway') as typeof import('./gateway')),
  ...(require('./preconf') as typeof import('./preconf')),
  ...(require('./rest-server') as typeof import('./rest-server')),
  ...(require('./rpc') as typeof import('./rpc')),
});

export async function startReference(opts: ReferenceOptions = {}): Promise<ReferenceTarget> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const profile = opts.profile ?? 'dedicated';
  const blockTimeMs = opts.blockTimeMs ?? DEFAULT_BLOCK_TIME_MS;
  if (profile !== 'public' && profile !== 'dedicated') throw new Error(`unknown profile ${String(profile)}`);
  // Blocks too short for 200 ms flashblocks get none unless asked for (the instant model).
  const flashblockMs = opts.flashblockMs ?? (blockTimeMs > DEFAULT_FLASHBLOCK_MS ? DEFAULT_FLASHBLOCK_MS : 0);
  const inclusionDelayFlashblocks = opts.inclusionDelayFlashblocks ?? 0;
  const blockNumberMode = opts.blockNumberMode ?? 'sealed';
  if (!Number.isInteger(blockTimeMs) || blockTimeMs < 10) throw new Error(`blockTimeMs must be an integer >= 10, got ${blockTimeMs}`);
  if (!Number.isInteger(flashblockMs) || (flashblockMs !== 0 && (flashblockMs < 10 || flashblockMs >= blockTimeMs))) {
    throw new Error(`flashblockMs must be 0 or an integer from 10 to blockTimeMs - 1 (${blockTimeMs - 1}), got ${flashblockMs}`);
  }
  if (!Number.isInteger(inclusionDelayFlashblocks) || inclusionDelayFlashblocks < 0 || inclusionDelayFlashblocks > 1000) {
    throw new Error(`inclusionDelayFlashblocks must be an integer from 0 to 1000, got ${inclusionDelayFlashblocks}`);
  }
  if (inclusionDelayFlashblocks > 0 && flashblockMs === 0) throw new Error('inclusionDelayFlashblocks needs flashblockMs > 0');
  if (blockNumberMode !== 'sealed' && blockNumberMode !== 'building') throw new Error(`unknown blockNumberMode ${String(blockNumberMode)}`);

  const cleanups: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch((err: Error) => log(`stop: ${err.message}`));
  };

  try {
    let parts: ReturnType<typeof loadParts> | undefined;
    const anvil: AnvilProcess = await startAnvil({ chainId: CHAIN_ID, log, onSpawned: () => void (parts ??= loadParts()) });
    const { AnvilRpc, Upstream, deployCatalog, Preconf, createControls, startGateway, startRestServer } = (parts ??= loadParts());
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
    cleanups.push(() => raw.close());
    const upstream = new Upstream(raw);
    const owner = SIGNER_ADDRESS;
    const tokens = await deployCatalog(raw, owner, new Date());
    // A little history on top of the deployment block, as any live chain has: the suite's
    // history checks read state that differs over time from blocks at least 2 below the head.
    for (let i = 0; i < HISTORY_BLOCKS; i++) await raw.call('evm_mine');

    const preconf = new Preconf(upstream, { blockTimeMs, flashblockMs, inclusionDelayFlashblocks, blockNumberMode, log });
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
    const flashblocks = flashblockMs === 0 ? 'no flashblocks (instant pre-confirmation)' : `flashblocks every ${flashblockMs} ms`;
    log(`reference target ready in ${startupMs} ms (profile ${profile}, block time ${blockTimeMs} ms, ${flashblocks}, ${tokens.length} tokens)`);

    let stopping: Promise<void> | undefined;
    return {
      baseUrl: `http://127.0.0.1:${rest.port}`,
      rpcUrl: `http://127.0.0.1:${gateway.port}`,
      profile,
      blockTimeMs,
      flashblockMs,
      inclusionDelayFlashblocks,
      blockNumberMode,
      sealGrid: preconf.sealGrid!,
      signerKey: SIGNER_KEY,
      chainId: CHAIN_ID,
      restServer: rest.server,
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
