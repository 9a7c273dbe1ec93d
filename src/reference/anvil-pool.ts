// anvil's pool where the gateway's held transactions meet it (preconf.ts). anvil queues a
// transaction ahead of a nonce gap, and anvil_dropTransaction leaves queued ones alone (it also
// drops, with a transaction, the ones it unlocked): so the gateway never leaves a transaction
// queued in anvil (clearQueued), publishes none ahead of a gap (splitGapped), and says what anvil
// holds when it answers "already imported" for one it should not have (poolAfterImported).
import type { Hex } from 'viem';
import type { SignedTx } from './decode';
import { isObject, senderPool, type AnvilRpc, type Json, type Pooled } from './rpc';

/**
 * Takes out of anvil's pool what it queued for `sender`. anvil removes those only with all of the
 * sender's transactions, so its ready (pre-confirmed) ones come back, and with them every one the
 * pool held after its first: the pool's order is the pre-confirmed block's, which a seal keeps.
 * Returns whether anything was queued (and taken out). `pool`: the sender's pool, if just read.
 */
export async function clearQueued(
  raw: AnvilRpc,
  sender: string,
  rawOf: (hash: string) => Hex | undefined,
  log: (line: string) => void,
  pool?: { pending: Pooled[]; queued: Pooled[] },
): Promise<boolean> {
  pool ??= await senderPool(raw, sender);
  if (pool.queued.length === 0) return false;
  const theirs = new Set(pool.pending.map((t) => t.hash.toLowerCase()));
  const block = await raw.call<{ transactions: string[] } | null>('eth_getBlockByNumber', ['pending', false]);
  const order = (block?.transactions ?? []).map((h) => h.toLowerCase());
  const first = order.findIndex((h) => theirs.has(h));
  const tail = first < 0 ? [] : order.slice(first);
  const raws = await Promise.all(tail.map(async (h) => rawOf(h) ?? (await raw.call<Hex | null>('eth_getRawTransactionByHash', [h]))));
  // What could not come back (no raw bytes; a ready one outside the pending block) is never taken out.
  const lost = [...tail.filter((_, i) => typeof raws[i] !== 'string'), ...[...theirs].filter((h) => !order.includes(h))];
  if (lost.length > 0) {
    log(`flashblocks: left ${sender}'s queued transactions in anvil: ${lost.join(', ')} could not be resubmitted`);
    return false;
  }
  await raw.call('anvil_removePoolTransactions', [sender]);
  // Another sender's drop takes its later ones with it: all in the tail, all resubmitted.
  await raw.batchResponses(tail.filter((h) => !theirs.has(h)).map((h): [string, Json[]] => ['anvil_dropTransaction', [h]]));
  for (const [i, tx] of raws.entries()) {
    await raw.call('eth_sendRawTransaction', [tx]).catch((err: Error) => log(`flashblocks: could not resubmit ${tail[i]}: ${err.message}`));
  }
  return true;
}

/**
 * After a publish in which anvil refused some of `senders`' transactions: their later ones of
 * `sent`, which anvil queued behind the refused nonce, taken back out of anvil (clearQueued) and
 * returned, to be held until the gap fills, as a mempool keeps them.
 */
export async function unqueue<T extends { from: string; hash: string }>(
  raw: AnvilRpc,
  senders: Iterable<string>,
  sent: readonly T[],
  rawOf: (hash: string) => Hex | undefined,
  log: (line: string) => void,
): Promise<T[]> {
  const back: T[] = [];
  for (const sender of senders) {
    const pool = await senderPool(raw, sender);
    const queued = new Set(pool.queued.map((t) => t.hash.toLowerCase()));
    const stranded = sent.filter((h) => h.from === sender && queued.has(h.hash.toLowerCase()));
    if (stranded.length > 0 && (await clearQueued(raw, sender, rawOf, log, pool))) for (const h of stranded) back.push(h);
  }
  return back;
}

/** Of `due`, those whose nonces follow their sender's pending count in anvil without a gap, and the others. */
export async function splitGapped<T extends { from: string; nonce: number }>(raw: AnvilRpc, due: readonly T[]): Promise<{ now: T[]; gapped: T[] }> {
  const senders = [...new Set(due.map((h) => h.from))];
  if (senders.length === 0) return { now: [...due], gapped: [] };
  const counts = await raw.batch<Hex>(senders.map((s): [string, Json[]] => ['eth_getTransactionCount', [s, 'pending']]));
  const gapped = new Set<T>();
  senders.forEach((sender, i) => {
    let next = Number(counts[i]);
    // Below the count: anvil answers "nonce too low" and it is dropped, as a sequencer drops it.
    for (const h of due.filter((d) => d.from === sender).sort((a, b) => a.nonce - b.nonce)) {
      if (h.nonce === next) next++;
      else if (h.nonce > next) gapped.add(h);
    }
  });
  return { now: due.filter((h) => !gapped.has(h)), gapped: [...gapped] };
}

/**
 * anvil's pool and counts for each sender of `txs` after it answered "already imported" for them,
 * transactions the gateway held out of its pool: one line a sender. Never throws: a diagnosis
 * that fails says so. (Twice under load such transactions were then never counted nor sealed:
 * they had been left queued ahead of a nonce gap, which clearQueued now prevents.)
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

/** A transaction anvil numbered itself (eth_sendTransaction), read back with its raw bytes to be held; undefined when it has none. */
export async function readBack(raw: AnvilRpc, hash: Hex): Promise<(SignedTx & { raw: Hex }) | undefined> {
  const [bytes, tx] = await raw.batch<Json>([
    ['eth_getRawTransactionByHash', [hash]],
    ['eth_getTransactionByHash', [hash]],
  ]);
  if (typeof bytes !== 'string' || !isObject(tx) || typeof tx.from !== 'string' || typeof tx.nonce !== 'string') return undefined;
  return { hash, raw: bytes as Hex, from: tx.from.toLowerCase(), nonce: Number(tx.nonce) };
}
