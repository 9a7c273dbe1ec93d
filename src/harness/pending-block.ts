/**
 * The number of the pre-confirmed ("pending") block, judged in one place for every check that
 * needs it (spec 1.4, 4.3: "pending" answers from the current pre-confirmed block).
 *
 * A node builds the block after its head, but the number the suite may expect is a window, not
 * a value: the head moves between reads (a seal), some Flashblocks nodes report the block being
 * built as eth_blockNumber, some keep serving pre-confirmations while their canonical head lags,
 * and "pending" falls back to "latest" while no flashblock exists yet. So a pending block number
 * is accepted from the head read before the observation up to the head read after it, plus one,
 * widened to whatever eth_getBlockByNumber("pending") itself reported around the observation.
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
  let low = o.headBefore < o.headAfter ? o.headBefore : o.headAfter;
  let high = (o.headAfter > o.headBefore ? o.headAfter : o.headBefore) + 1n;
  const reported = (o.pendingBlockNumbers ?? []).filter((n): n is bigint => n !== undefined);
  for (const n of reported) {
    if (n < low) low = n;
    if (n > high) high = n;
  }
  const heads =
    o.headBefore === o.headAfter ? `head ${toQuantity(o.headBefore)}` : `head ${toQuantity(o.headBefore)} before and ${toQuantity(o.headAfter)} after`;
  const pending = reported.length > 0 ? `; eth_getBlockByNumber("pending") reported ${[...new Set(reported)].map(toQuantity).join(', ')}` : '';
  return { low, high, basis: `${heads}, so the block being built is at most head + 1${pending}` };
}

export function inPendingBlockWindow(n: bigint, w: PendingBlockWindow): boolean {
  return n >= w.low && n <= w.high;
}

/** Fails (citing `section`) when a number given to the pre-confirmed block is outside the window. */
export function judgePendingBlockNumber(what: string, number: bigint, w: PendingBlockWindow, section: string): void {
  if (inPendingBlockWindow(number, w)) return;
  fail(`${what}: block number ${toQuantity(number)} is not the pre-confirmed block (${w.basis}: expected ${toQuantity(w.low)}..${toQuantity(w.high)})`, {
    section,
    expected: `${toQuantity(w.low)}..${toQuantity(w.high)}`,
    actual: toQuantity(number),
  });
}
