// The pre-confirmation model (Base with Flashblocks): transactions accepted into anvil's pool
// are visible at "pending" at once; a timer seals a block every blockTimeMs.
//
// anvil --no-mining already answers eth_getTransactionCount / eth_getCode / eth_estimateGas at
// "pending" from its pool, but eth_getBlockReceipts("pending") is null. Receipts are real
// ones: under the exclusive lock we snapshot, mine the pool into a temporary block, read its
// receipts, revert, and resubmit the raw transactions in block order (evm_revert drops mined
// transactions from the pool). Raw bytes come from what the gateway saw submitted, else from
// eth_getRawTransactionByHash (about 1 ms per transaction, so worth avoiding). Nobody else
// talks to anvil meanwhile, so the temporary block and the briefly emptied pool are never
// observable through us. Results are cached per pool state; a seal starts an empty block.
import type { Hex } from 'viem';
import { AnvilRpc, RpcError, type Json, type Upstream } from './rpc';

export interface PreconfOptions {
  blockTimeMs: number;
  log: (line: string) => void;
}

interface Block {
  number: Hex;
  transactions: Hex[];
}

/** Bound on remembered raw transactions (replaced or dropped ones are never sealed). */
const MAX_REMEMBERED = 50_000;
/**
 * anvil answers a batch with futures::join_all, which polls up to 30 futures in order and
 * uses FuturesOrdered above that; with larger batches we measured cross-sender swaps.
 */
const RESUBMIT_CHUNK = 30;

interface Receipt {
  transactionHash: Hex;
  from: Hex;
}

export class Preconf {
  /** Bumped on every pool change we see; part of the pending-receipts cache key. */
  private poolVersion = 0;
  private readonly rawByHash = new Map<string, Hex>();
  private cache?: { key: string; receipts: Json[] };
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private refreshQueued = false;
  private ticking?: Promise<void>;

  constructor(
    private readonly upstream: Upstream,
    private readonly opts: PreconfOptions,
  ) {}

  poolChanged(): void {
    this.poolVersion += 1;
  }

  /**
   * A transaction entered the pool through the gateway. The pre-confirmed block is rebuilt
   * right away, as a sequencer publishes it, rather than when someone first asks: a reader
   * then finds it ready. Submissions that arrive while one rebuild waits share it.
   */
  accepted(hash: Hex, raw?: Hex): void {
    if (raw) {
      this.rawByHash.set(hash.toLowerCase(), raw);
      if (this.rawByHash.size > MAX_REMEMBERED) this.rawByHash.delete(this.rawByHash.keys().next().value as string);
    }
    this.poolChanged();
    if (this.refreshQueued || this.stopped) return;
    this.refreshQueued = true;
    setImmediate(() => {
      if (this.stopped) return;
      this.pendingReceipts((): void => void (this.refreshQueued = false)).catch((err: Error) =>
        this.opts.log(`pending receipts: refresh failed: ${err.message}`),
      );
    });
  }

  /** Starts sealing on a fixed cadence (ticks that fall behind are skipped, not queued). */
  start(): void {
    const origin = Date.now();
    const schedule = (): void => {
      if (this.stopped) return;
      const elapsed = Date.now() - origin;
      const wait = this.opts.blockTimeMs - (elapsed % this.opts.blockTimeMs);
      this.timer = setTimeout(() => {
        this.ticking = this.seal()
          .then(() => undefined)
          .catch((err: Error) => this.opts.log(`seal failed: ${err.message}`))
          .finally(schedule);
      }, wait);
      this.timer.unref();
    };
    schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    // Wait out a rebuild or seal in flight, so anvil is not stopped under it.
    await this.upstream.exclusive(async () => undefined);
  }

  /** Seals the pending block now; returns its number. */
  seal(): Promise<Hex> {
    return this.upstream.exclusive((raw) => this.mine(raw));
  }

  /** Runs fn with exclusive access to anvil, then seals; for scenario controls. */
  sealWith<T>(fn: (raw: AnvilRpc) => Promise<T>): Promise<T> {
    return this.upstream.exclusive(async (raw) => {
      try {
        return await fn(raw);
      } finally {
        await this.mine(raw);
      }
    });
  }

  /** Receipts of the current pre-confirmed block, in block order; [] when the pool is empty. */
  pendingReceipts(onLocked?: () => void): Promise<Json[]> {
    return this.upstream.exclusive(async (raw) => {
      onLocked?.(); // from here on, later submissions need a rebuild of their own
      const [latest, status] = await raw.batch<Json>([
        ['eth_blockNumber', []],
        ['txpool_status', []],
      ]);
      const pending = Number((status as { pending: Hex }).pending);
      // Transactions sent to anvil directly (not through the gateway) change these too.
      const key = `${this.poolVersion}/${String(latest)}/${JSON.stringify(status)}`;
      if (this.cache?.key === key) return this.cache.receipts;
      const receipts = pending === 0 ? [] : await this.simulate(raw);
      this.cache = { key, receipts };
      return receipts;
    });
  }

  private async mine(raw: AnvilRpc): Promise<Hex> {
    await raw.call('evm_mine');
    this.poolChanged();
    const block = await raw.call<Block>('eth_getBlockByNumber', ['latest', false]);
    for (const hash of block.transactions) this.rawByHash.delete(hash.toLowerCase());
    return block.number;
  }

  private async simulate(raw: AnvilRpc): Promise<Json[]> {
    const snapshot = await raw.call<Hex>('evm_snapshot');
    let receipts: Receipt[];
    let rawTxs: Hex[];
    try {
      await raw.call('evm_mine');
    } catch (err) {
      await raw.call('evm_revert', [snapshot]).catch(() => false);
      throw err;
    }
    try {
      receipts = await raw.call<Receipt[]>('eth_getBlockReceipts', ['latest']);
      const missing = receipts.map((r) => r.transactionHash).filter((h) => !this.rawByHash.has(h.toLowerCase()));
      const fetched = await raw.batch<Hex | null>(missing.map((h): [string, Json[]] => ['eth_getRawTransactionByHash', [h]]));
      missing.forEach((h, i) => {
        const tx = fetched[i];
        if (typeof tx !== 'string') throw new RpcError(-32603, `raw transaction ${h} unavailable`);
        this.rawByHash.set(h.toLowerCase(), tx);
      });
      rawTxs = receipts.map((r) => this.rawByHash.get(r.transactionHash.toLowerCase()) as Hex);
    } catch (err) {
      // Without the raw transactions a revert would lose them: keep the block instead, which
      // is simply an early seal.
      this.poolChanged();
      this.opts.log(`pending receipts: kept the block as sealed, could not read it back: ${(err as Error).message}`);
      throw err;
    }
    if (!(await raw.call<boolean>('evm_revert', [snapshot]))) {
      this.poolChanged();
      throw new RpcError(-32603, 'evm_revert refused; the pre-confirmed block was sealed early');
    }
    await this.restore(raw, rawTxs, receipts);
    return receipts as unknown as Json[];
  }

  /**
   * Puts the previewed transactions back into the pool in block order, so the sealed block
   * matches the preview. anvil runs the calls of a batch concurrently, which almost always
   * keeps their order but can swap two transactions of different senders; so check anvil's
   * own pending block and, if the order differs, drop them and resubmit one by one.
   */
  private async restore(raw: AnvilRpc, rawTxs: Hex[], receipts: Receipt[]): Promise<void> {
    const hashes = receipts.map((r) => r.transactionHash);
    for (let start = 0; start < rawTxs.length; start += RESUBMIT_CHUNK) {
      const chunk = rawTxs.slice(start, start + RESUBMIT_CHUNK);
      const answers = await raw.batchResponses(chunk.map((tx): [string, Json[]] => ['eth_sendRawTransaction', [tx]]));
      answers.forEach((a, i) => {
        if (a.error) this.opts.log(`pending receipts: could not restore ${hashes[start + i]}: ${a.error.message}`);
      });
    }
    // One sender's transactions are ordered by their nonces whatever the submission order.
    if (new Set(receipts.map((r) => r.from.toLowerCase())).size <= 1) return;
    const pending = await raw.call<Block | null>('eth_getBlockByNumber', ['pending', false]);
    const order = (pending?.transactions ?? []).slice(0, hashes.length).map((h) => h.toLowerCase());
    if (order.join() === hashes.map((h) => h.toLowerCase()).join()) return;
    this.opts.log('pending receipts: batch resubmission reordered the pool; resubmitting in sequence');
    await raw.batchResponses(hashes.map((h): [string, Json[]] => ['anvil_dropTransaction', [h]]));
    for (let i = 0; i < rawTxs.length; i++) {
      await raw.call('eth_sendRawTransaction', [rawTxs[i]]).catch((err: Error) => {
        this.opts.log(`pending receipts: could not restore ${hashes[i]}: ${err.message}`);
      });
    }
  }
}
