// The pre-confirmed state of the reference's Flashblocks model (preconf.ts): the receipts of
// anvil's pool, read by mining it into a temporary block under the exclusive lock, reverting,
// and resubmitting its raw transactions in block order; cached until the pool or head changes.
import type { Hex } from 'viem';
import { AnvilRpc, isObject, RpcError, type Json } from './rpc';
import { ZERO_HASH } from './defaults';

export interface Block {
  number: Hex;
  transactions: Hex[];
}

export interface Receipt {
  transactionHash: Hex;
  from: Hex;
  [field: string]: Json;
}

/** Bound on remembered raw transactions (replaced or dropped ones are never sealed). */
const MAX_REMEMBERED = 50_000;
/**
 * anvil answers a batch with futures::join_all, which polls up to 30 futures in order and
 * uses FuturesOrdered above that; with larger batches we measured cross-sender swaps.
 */
export const RESUBMIT_CHUNK = 30;

export class PoolPreview {
  /** Bumped on every pool change we make; part of the pending-receipts cache key. */
  private poolVersion = 0;
  private readonly rawByHash = new Map<string, Hex>();
  private cache?: { key: string; receipts: Receipt[] };

  constructor(
    private readonly log: (line: string) => void,
    /** The preview could not be undone: the pool was sealed as a block, early. */
    private readonly sealedEarly: () => void,
  ) {}

  poolChanged(): void {
    this.poolVersion += 1;
  }

  /** The pool was sealed: its cached receipts are done with. */
  sealed(): void {
    this.poolChanged();
    this.cache = undefined;
  }

  /** Sealed transactions: their raw bytes are no longer needed to restore the pool. */
  forget(hashes: readonly string[]): void {
    for (const hash of hashes) this.rawByHash.delete(hash.toLowerCase());
  }

  /** The raw bytes of a transaction of the pool, as remembered. */
  rawOf(hash: string): Hex | undefined {
    return this.rawByHash.get(hash.toLowerCase());
  }

  remember(hash: string, raw: Hex): void {
    this.rawByHash.set(hash.toLowerCase(), raw);
    if (this.rawByHash.size > MAX_REMEMBERED) this.rawByHash.delete(this.rawByHash.keys().next().value as string);
  }

  /** Receipts of the pool, in block order; [] when empty. Call with the exclusive lock held. */
  async preview(raw: AnvilRpc): Promise<Receipt[]> {
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
  }

  private async simulate(raw: AnvilRpc): Promise<Receipt[]> {
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
        this.remember(h, tx);
      });
      rawTxs = receipts.map((r) => this.rawByHash.get(r.transactionHash.toLowerCase()) as Hex);
    } catch (err) {
      // Without the raw transactions a revert would lose them: keep the block instead, which
      // is simply an early seal.
      this.poolChanged();
      this.sealedEarly();
      this.log(`pending receipts: kept the block as sealed, could not read it back: ${(err as Error).message}`);
      throw err;
    }
    if (!(await raw.call<boolean>('evm_revert', [snapshot]))) {
      this.poolChanged();
      this.sealedEarly();
      throw new RpcError(-32603, 'evm_revert refused; the pre-confirmed block was sealed early');
    }
    await this.restore(raw, rawTxs, receipts);
    return receipts;
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
        if (a.error) this.log(`pending receipts: could not restore ${hashes[start + i]}: ${a.error.message}`);
      });
    }
    // One sender's transactions are ordered by their nonces whatever the submission order.
    if (new Set(receipts.map((r) => r.from.toLowerCase())).size <= 1) return;
    const pending = await raw.call<Block | null>('eth_getBlockByNumber', ['pending', false]);
    const order = (pending?.transactions ?? []).slice(0, hashes.length).map((h) => h.toLowerCase());
    if (order.join() === hashes.map((h) => h.toLowerCase()).join()) return;
    this.log('pending receipts: batch resubmission reordered the pool; resubmitting in sequence');
    await raw.batchResponses(hashes.map((h): [string, Json[]] => ['anvil_dropTransaction', [h]]));
    for (let i = 0; i < rawTxs.length; i++) {
      await raw.call('eth_sendRawTransaction', [rawTxs[i]]).catch((err: Error) => {
        this.log(`pending receipts: could not restore ${hashes[i]}: ${err.message}`);
      });
    }
  }
}

/** A pre-confirmed receipt: the block being built has no hash yet (spec: 0x000…0), nor do its logs. */
export function preconfirmedReceipt(receipt: Receipt): Json {
  const logs = Array.isArray(receipt.logs) ? receipt.logs.map((l) => (isObject(l) ? { ...l, blockHash: ZERO_HASH } : l)) : receipt.logs;
  return { ...receipt, blockHash: ZERO_HASH, logs };
}

export function preconfirmedBlock(block: { [key: string]: Json }): Json {
  const txs = Array.isArray(block.transactions) ? block.transactions.map((t) => (isObject(t) ? { ...t, blockHash: ZERO_HASH } : t)) : block.transactions;
  return { ...block, hash: ZERO_HASH, transactions: txs };
}
