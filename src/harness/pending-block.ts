/**
 * The number of the pre-confirmed ("pending") block, judged in one place for every check that
 * needs it (spec 1.4, 4.3: "pending" answers from the current pre-confirmed block).
 *
 * A node builds the block after its head, but the number the suite may expect is a window, not
 * a value: the head moves between reads (a seal), some Flashblocks nodes report the block being
 * built as eth_blockNumber, some keep serving pre-confirmations while their canonical head lags,
 * and "pending" falls back to "latest" while no flashblock exists yet. So a pending block number
 * is accepted from the head read before the observation up to the head read after it, plus one,
 * unless eth_getBlockByNumber("pending") reported a number around the observation: then that
 * number (the node's own word) is the pre-confirmed block's, with head + 1 allowed only while it
 * names the head (pending falling back to latest). Every check that judges the number uses this.
 */
import { toQuantity } from './hex';
import { fail } from './verdict';

export interface PendingBlockWindow {
  low: bigint;
  high: bigint;
  /** How the window was derived, for messages. */
  basis: string;
}

export interface PendingBlockObservations {
  /** The head block number read before the observation. */
  headBefore: bigint;
  /** The head block number read after it. */
  headAfter: bigint;
  /** Numbers eth_getBlockByNumber("pending") reported around the observation (undefined: no number given). */
  pendingBlockNumbers?: ReadonlyArray<bigint | undefined>;
}

export function pendingBlockWindow(o: PendingBlockObservations): PendingBlockWindow {
  const lowHead = o.headBefore < o.headAfter ? o.headBefore : o.headAfter;
  const highHead = o.headAfter > o.headBefore ? o.headAfter : o.headBefore;
  const heads =
    o.headBefore === o.headAfter ? `head ${toQuantity(o.headBefore)}` : `head ${toQuantity(o.headBefore)} before and ${toQuantity(o.headAfter)} after`;
  const reported = (o.pendingBlockNumbers ?? []).filter((n): n is bigint => n !== undefined);
  if (reported.length === 0) return { low: lowHead, high: highHead + 1n, basis: `${heads}, so the block being built is at most head + 1` };
  // The node said which block is its pre-confirmed one: that number, whatever its heads (a head
  // lagging the pre-confirmations, or naming the block being built). Only when it named the head
  // itself or below ("pending" falling back to "latest" before the first flashblock) is the
  // block being built on the head, head + 1, allowed as well. Receipts numbered as the head
  // while the node numbers its pending block head + 1 disagree with the node's own word.
  let low = reported[0];
  let high = reported[0];
  for (const n of reported) {
    if (n < low) low = n;
    if (n > high) high = n;
  }
  const fallback = low <= highHead;
  if (fallback && high < highHead + 1n) high = highHead + 1n;
  const said = `eth_getBlockByNumber("pending") reported ${[...new Set(reported)].map(toQuantity).join(', ')}`;
  return {
    low,
    high,
    basis: fallback
      ? `${heads}; ${said} (at most the head: "latest" in its place), so the block being built is at most head + 1`
      : `${heads}; ${said}, the node's own number for its pre-confirmed block`,
  };
}

export function inPendingBlockWindow(n: bigint, w: PendingBlockWindow): boolean {
  return n >= w.low && n <= w.high;
}

/** Fails (statement 4.3.2) when a number given to the pre-confirmed block is outside the window. */
export function judgePendingBlockNumber(what: string, number: bigint, w: PendingBlockWindow): void {
  if (inPendingBlockWindow(number, w)) return;
  fail(`${what}: block number ${toQuantity(number)} is not the pre-confirmed block (${w.basis}: expected ${toQuantity(w.low)}..${toQuantity(w.high)})`, {
    violated: ['4.3.2'],
    expected: `${toQuantity(w.low)}..${toQuantity(w.high)}`,
    actual: toQuantity(number),
  });
}
