// Reads the rounds make beside the views, never judged themselves: what the pending block lists
// (a flashblock reorg withdraws transactions from it), and the signer's count at "safe" and
// "finalized" (answered from the pre-confirmed state, they count unsealed transactions).
import { readBlock } from '../chain';
import { quantity } from '../hex';
import type { Session } from './session';

/** The transactions eth_getBlockByNumber("pending") lists (lower-case hashes), when the node gives a block. */
export async function pendingListed(s: Session, lane: string): Promise<ReadonlySet<string> | undefined> {
  const b = await readBlock({ rpc: s.rpc(lane), note: () => undefined, signal: s.scope.signal }, 'pending');
  return b ? new Set(b.txs) : undefined;
}

/** The signer's count at a tag, or undefined when it is not answered as one (the rpc checks judge that answer; here it only compares). */
export async function countIfAny(s: Session, lane: string, tag: string): Promise<bigint | undefined> {
  const a = await s.rpc(lane).call('eth_getTransactionCount', [s.address, tag]);
  return a.http.status === 200 && a.hasResult ? quantity(a.result) : undefined;
}

/**
 * The signer's count at "safe" and "finalized"; when either is above `sealed` (the signer's count
 * before the attempt), then the head (its number), read once both answered: it bounds when they
 * were answered. Below it there is nothing to bound, and no read is added.
 */
export async function tagCounts(
  s: Session,
  lane: string,
  headLane: string,
  sealed: bigint,
): Promise<{ safe?: bigint; finalized?: bigint; headAfter?: bigint }> {
  const [safe, finalized] = await Promise.all([countIfAny(s, lane, 'safe'), countIfAny(s, lane, 'finalized')]);
  const above = (safe !== undefined && safe > sealed) || (finalized !== undefined && finalized > sealed);
  const head = above ? await s.block(headLane, 'latest').catch(() => undefined) : undefined;
  return {
    ...(safe !== undefined ? { safe } : {}),
    ...(finalized !== undefined ? { finalized } : {}),
    ...(head?.number !== undefined ? { headAfter: head.number } : {}),
  };
}
