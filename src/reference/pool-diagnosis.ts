// What anvil's pool holds for one sender, in words: a diagnosis for the reference's log when
// anvil's answers disagree with what the gateway holds (preconf.ts, publish).
import type { Hex } from 'viem';
import type { AnvilRpc } from './rpc';

type Pooled = Record<string, Record<string, { hash: string }>>;

/**
 * anvil's pool and counts for each sender of `txs` after it answered "already imported" for them,
 * transactions the gateway held out of its pool (twice under load they were then never counted
 * nor sealed): one line a sender. Never throws: a diagnosis that fails says so.
 */
export async function poolAfterImported(raw: AnvilRpc, txs: ReadonlyArray<{ from: string; nonce: number }>): Promise<string[]> {
  const senders = [...new Set(txs.map((t) => t.from))];
  if (senders.length === 0) return [];
  try {
    const pool = await raw.call<{ pending?: Pooled; queued?: Pooled }>('txpool_content');
    return await Promise.all(
      senders.map(async (from) => {
        const inPool = (m?: Pooled) => Object.keys(Object.entries(m ?? {}).find(([a]) => a.toLowerCase() === from)?.[1] ?? {}).join(',') || 'none';
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
