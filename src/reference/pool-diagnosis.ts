// What anvil's pool holds for one sender, in words: a diagnosis for the reference's log when
// anvil's answers disagree with what the gateway holds (preconf.ts, publish).
import type { Hex } from 'viem';
import { senderPool, type AnvilRpc, type Pooled } from './rpc';

/**
 * anvil's pool and counts for each sender of `txs` after it answered "already imported" for them,
 * transactions the gateway held out of its pool (twice under load they were then never counted
 * nor sealed): one line a sender. Never throws: a diagnosis that fails says so.
 */
export async function poolAfterImported(raw: AnvilRpc, txs: ReadonlyArray<{ from: string; nonce: number }>): Promise<string[]> {
  const senders = [...new Set(txs.map((t) => t.from))];
  if (senders.length === 0) return [];
  try {
    return await Promise.all(
      senders.map(async (from) => {
        const pool = await senderPool(raw, from);
        const inPool = (txs: Pooled[]) => txs.map((t) => Number(t.nonce)).join(',') || 'none';
        const [latest, pending] = await raw.batch<Hex>([
          ['eth_getTransactionCount', [from, 'latest']],
          ['eth_getTransactionCount', [from, 'pending']],
        ]);
        const nonces = txs.filter((t) => t.from === from).map((t) => t.nonce);
        return `flashblocks: anvil's pool for ${from} after "already imported" for nonces ${nonces.join(',')}: pending nonces ${inPool(pool.pending)}, queued ${inPool(pool.queued)}; counts latest ${Number(latest)}, pending ${Number(pending)}`;
      }),
    );
  } catch (err) {
    return [`flashblocks: anvil's pool could not be read: ${(err as Error).message}`];
  }
}
