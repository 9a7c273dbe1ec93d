// The pre-confirmation model (Base with Flashblocks): transactions accepted into anvil's pool
// are visible at "pending" at once; a timer seals a block every blockTimeMs.
//
// anvil --no-mining already answers eth_getTransactionCount / eth_getCode / eth_estimateGas at
// "pending" from its pool, but eth_getBlockReceipts("pending") is null. Receipts are real
// ones: under the exclusive lock we snapshot, mine the pool into a temporary block, read its
// receipts and raw transactions, revert, and resubmit the raw transactions in block order
// (evm_revert drops mined transactions from the pool). Nobody else talks to anvil meanwhile,
// so the temporary block and the briefly emptied pool are never observable through us.
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

interface Receipt {
  transactionHash: Hex;
  status: Hex;
}

export class Preconf {
  /** Bumped on every pool change we see; part of the pending-receipts cache key. */
  private poolVersion = 0;
  private cache?: { key: string; receipts: Json[] };
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private ticking?: Promise<void>;

  constructor(
    private readonly upstream: Upstream,
    private readonly opts: PreconfOptions,
  ) {}

  poolChanged(): void {
    this.poolVersion += 1;
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
  pendingReceipts(): Promise<Json[]> {
    return this.upstream.exclusive(async (raw) => {
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
    return raw.call<Hex>('eth_blockNumber');
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
      const block = await raw.call<Block>('eth_getBlockByNumber', ['latest', false]);
      const answers = await raw.batch<Json>([
        ['eth_getBlockReceipts', [block.number]],
        ...block.transactions.map((h): [string, Json[]] => ['eth_getRawTransactionByHash', [h]]),
      ]);
      receipts = answers[0] as unknown as Receipt[];
      rawTxs = answers.slice(1) as Hex[];
      if (rawTxs.some((tx) => typeof tx !== 'string')) throw new RpcError(-32603, 'raw transaction unavailable');
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
    // Same order as the block, so nonces stay contiguous and the sealed block matches.
    const answers = await raw.batchResponses(rawTxs.map((tx): [string, Json[]] => ['eth_sendRawTransaction', [tx]]));
    answers.forEach((a, i) => {
      if (a.error) this.opts.log(`pending receipts: could not restore ${receipts[i]?.transactionHash}: ${a.error.message}`);
    });
    return receipts as unknown as Json[];
  }
}
