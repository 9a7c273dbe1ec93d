// Timing, waiting and retrying for the pre-confirmed-state checks (spec 1.4; "pending" in 4.3-4.6).
//
// Everything here is bounded (a deadline or an attempt count) and honours an AbortSignal. Time
// comes from a Clock so the logic can be unit-tested on virtual time (test/preconf/timing.test.ts).
//
// The one hazard of these observations is a moving head: a block sealed between "we sent" and
// "we looked" turns pre-confirmed state into sealed state, and a comparison of "pending" with
// "latest" becomes meaningless. So only reads bracketed by unchanged head reads count as
// pre-confirmed (preSeal), and "not yet visible" is never a verdict by itself: only a
// transaction sent early, watched closely and sealed without ever showing before its own block
// sealed, twice (weighTxMisses, weighMiss).
import type { SealGrid } from '../check';
import { Unobservable } from './errors';

/** Spec 4.5 and 8: the pre-confirmed state "is updated about every 200 ms". */
export const SPEC_REFRESH_MS = 200;
/** Polling period for visibility at "pending" (the issue asks for 25 ms or faster). */
export const POLL_INTERVAL_MS = 20;
/** The block times the suite is built for: 200 ms to 12 s. */
export const MAX_BLOCK_TIME_MS = 12_000;

export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Resolves after ms; rejects (Unobservable) when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function stopped(signal: AbortSignal): never {
  throw new Unobservable(`stopped while waiting: ${String(signal.reason)}`);
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        try {
          stopped(signal);
        } catch (err) {
          reject(err);
        }
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        try {
          stopped(signal!);
        } catch (err) {
          reject(err);
        }
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

// ---- statistics -----------------------------------------------------------------------------

export interface Percentiles {
  n: number;
  min: number;
  p50: number;
  p95: number;
  max: number;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** Nearest-rank percentiles in ms, rounded to 0.1 ms; undefined for no samples. */
export function percentiles(samples: readonly number[]): Percentiles | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number): number => sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
  return { n: sorted.length, min: round1(sorted[0]), p50: round1(rank(50)), p95: round1(rank(95)), max: round1(sorted[sorted.length - 1]) };
}

// ---- what the spec's "about every 200 ms" allows ---------------------------------------------

/**
 * How many flashblocks after the next one a conformant node may pre-confirm a transaction in:
 * "several" (the first flashblock of a block may carry only deposits, earlier ones may be full).
 * A node this late shows a transaction up to (1 + LATE_FLASHBLOCKS) refresh periods after its
 * acceptance (800 ms).
 */
export const LATE_FLASHBLOCKS = 3;
/**
 * How long after its acceptance even a node LATE_FLASHBLOCKS late shows a transaction: the 800 ms
 * that takes and half a refresh period more, for a flashblock or a seal published a little off
 * its grid ("about every 200 ms"). A transaction that a look begun this long after its
 * acceptance, still before the seal, did not show, and that was then sealed without ever showing
 * at "pending", is a miss worth counting — on two attempts (weighMiss). (At three periods,
 * 600 ms, to the seal, a conformant target three flashblocks late on 1 s blocks was failed when
 * the suite's sends, on a loaded machine, were accepted 793 ms before the seal.)
 */
export const EARLY_MS = (1 + LATE_FLASHBLOCKS) * SPEC_REFRESH_MS + SPEC_REFRESH_MS / 2;
/**
 * The time an attempt aligned with a seal is given for its sends to be accepted: a miss can count
 * only in a block interval of at least EARLY_MS + SEND_MS (spoiledWatch). On shorter blocks (1 s)
 * a node that never shows its transactions is left not judged rather than retried in vain: the
 * sends of a remote target take a round trip or two after the seal is seen.
 */
export const SEND_MS = 300;
/**
 * Time enough for a node refreshing every 200 ms to show a transaction: three periods (the next
 * flashblock, a first one carrying only deposits, one more). The first attempt sends at once when
 * the next seal is at least this far (send.ts, align): a node that shows it proves the behaviour,
 * and one that does not leaves the attempt unjudged (a miss counts only after EARLY_MS), never failed.
 */
export const SHOW_MS = 3 * SPEC_REFRESH_MS;

/** Milliseconds from `nowMs` (epoch) to the next seal of `grid`; a seal due exactly now counts as past. */
export function msToNextSeal(grid: SealGrid, nowMs: number): number {
  const into = (((nowMs - grid.atMs) % grid.everyMs) + grid.everyMs) % grid.everyMs;
  return grid.everyMs - into;
}

/**
 * A miss counts only when "pending" was looked at closely enough: never more than two refresh
 * periods between two looks (as the node saw them: from one look's start to the next one's
 * answer). A stalled client (a loaded machine) then never turns into a verdict.
 */
export const MAX_LOOK_GAP_MS = 2 * SPEC_REFRESH_MS;
/**
 * How long after the suite first saw its own transactions pre-confirmed a later read at
 * "pending" may still show the state from before them: three refresh periods (600 ms). The spec
 * gives a cadence ("about every 200 ms"), not a bound on how far one backend of a provider may
 * trail another, and backends fed by one sequencer do trail each other by a refresh or two (a
 * fleet a few hundred ms apart is conformant): reads alternating between the old and the new
 * state inside this bound are that skew. A backend still showing the old state three refreshes
 * after another showed the new one has missed three refreshes in a row, which "about every
 * 200 ms" does not cover; one with Flashblocks off shows it until the seal. It leaves a 2 s
 * block more than a second of later reads to see such a backend in.
 */
export const SKEW_BOUND_MS = 3 * SPEC_REFRESH_MS;
/**
 * A round waits at most this long for its slowest read. A read not answered by then is left in flight
 * (its behaviour is not read again until it settles, and its late answer is not used): one hung
 * request (ganache's eth_estimateGas at "pending" while it mines) must not stop the reads of the
 * other views, which go on through the seal.
 */
export const ROUND_WAIT_MS = 5 * SPEC_REFRESH_MS;
/**
 * ...but a round does not wait for a straggler longer than three times its slowest answered read,
 * nor less than this: the other views are then read again within one refresh period, so a view
 * watched through a seal keeps looks no more than MAX_LOOK_GAP_MS apart.
 */
export const STRAGGLER_MIN_MS = 150;
/**
 * A pending count that depends on the address's spelling: at least this many rounds in which
 * the two spellings, asked at once, disagreed in the same direction, with no round agreeing
 * after the first of them, spread over more than SKEW_BOUND_MS.
 */
export const SPELLING_MIN_READS = 3;
/**
 * The pass sends its transactions in two batches, so that they land in two flashblocks of one
 * block (4.3: the pending receipts hold all of them). The second goes once the first shows in
 * the pending receipts (not the pending count, which reth and geth raise as soon as the node
 * accepts a transaction into its pool), or this long after the first was accepted: more than one
 * refresh period ("about every 200 ms"), so a later flashblock even when the first is not shown
 * yet (a transaction may land several flashblocks late), without costing a node that shows
 * nothing more than a quarter second.
 */
export const SPLIT_GAP_MS = SPEC_REFRESH_MS + 50;
/**
 * Attempts of the pass, each a whole send window: the first sent at once, the other three right
 * after a seal (send.ts, align); and the misses that make evidence.
 */
export const MAX_ATTEMPTS = 4;
export const EVIDENCE_ATTEMPTS = 2;
/**
 * Attempts spoiled by timing do not use up MAX_ATTEMPTS, up to this many: an attempt that
 * established nothing because its transactions were sealed before the rounds could watch them
 * (no look begun EARLY_MS after their acceptance before the seal, or fewer than two looks no more
 * than MAX_LOOK_GAP_MS apart before it), in a block interval of at least EARLY_MS + SEND_MS (on
 * shorter blocks nearly every attempt is that, by design: more would not help). On a loaded machine (a CI
 * runner with a core kept busy) the sends and reads of an aligned attempt can take most of a
 * 2 s block, and four such attempts left a conformant target not judged. Timing ambiguity means
 * more attempts, then not judged: such an attempt proves nothing either way (weighMiss), so
 * another one is never a verdict.
 */
export const MAX_SPOILED_ATTEMPTS = 4;

/**
 * Advisory latency bounds (spec 4.5, 8). A refresh "about every 200 ms" makes a typical
 * transaction visible within one period; the median may take a generous 2.5 periods, plus two
 * round trips (send, poll) and one polling period. The tail (p95) gets four periods: it carries
 * network and client scheduling noise the suite cannot tell from the target's own.
 */
export function latencyBounds(rtt: Pick<Percentiles, 'p50' | 'p95'>): { p50: number; p95: number } {
  return {
    p50: Math.round(2.5 * SPEC_REFRESH_MS + 2 * rtt.p50 + POLL_INTERVAL_MS),
    p95: Math.round(4 * SPEC_REFRESH_MS + 2 * rtt.p95 + POLL_INTERVAL_MS),
  };
}

/** Polling period while waiting for a block: fast at first, slower for long block times. */
export function blockPollMs(waitedMs: number): number {
  return Math.min(100, Math.max(POLL_INTERVAL_MS, Math.round(waitedMs / 40)));
}

/** How the pass waits on seals, for a target whose longest block time is known (CheckSettings.maxBlockTimeMs). */
export interface SealWaits {
  /** How long a sent transaction may take to be sealed: two of the longest block times and 2 s. */
  sealMs: number;
  /** How long to wait for a seal to align the sends with: one of the longest block times and 1 s. */
  alignMs: number;
  /** The most a node may go without a seal before it counts as stopped (state.ts, Heads): as alignMs. */
  stallMaxMs: number;
}

/** The waits on seals for blocks of at most `maxBlockTimeMs` (default: the longest the suite is built for). */
export function sealWaits(maxBlockTimeMs: number = MAX_BLOCK_TIME_MS): SealWaits {
  return { sealMs: 2 * maxBlockTimeMs + 2000, alignMs: maxBlockTimeMs + 1000, stallMaxMs: maxBlockTimeMs + 1000 };
}

// ---- rounds of reads and what they prove ----------------------------------------------------

/**
 * One poll round: its reads were all issued at `startedAt` and all answered by `endedAt`;
 * `head` is the number of the "latest" block read in it. Rounds follow one another.
 */
export interface Round {
  startedAt: number;
  endedAt: number;
  head: bigint;
  /**
   * The transactions eth_getBlockByNumber("pending") listed in this round (lower-case hashes);
   * undefined when it gave no block. A view showing the old state while the pending block no
   * longer lists the transactions is a withdrawal (a flashblock reorg), not a stale view.
   */
  listed?: ReadonlySet<string>;
  /** The signer's count at "safe" and "finalized" while the transactions may be pre-confirmed, and the head read once they answered (attempt.ts, sealedTagsAhead). */
  tags?: { safe?: bigint; finalized?: bigint; headAfter?: bigint };
}

/**
 * Whether the reads of round `i` happened before the transactions of interest were sealed: no
 * seal during them (the heads read in the rounds before and after are the same) and none of
 * those transactions in a block up to that head. Undefined until the round after has been read.
 * Only such a round shows pre-confirmed state: after a seal "pending" holds sealed state too.
 */
export function preSeal(rounds: readonly Round[], i: number, firstSealedIn?: bigint): boolean | undefined {
  if (i < 1) return false;
  if (i + 1 >= rounds.length) return undefined;
  const head = rounds[i - 1].head;
  return rounds[i + 1].head === head && (firstSealedIn === undefined || firstSealedIn > head);
}

/**
 * Whether round `i` was answered before any backend behind the URL could have sealed the
 * transactions of interest: a head read begun more than SKEW_BOUND_MS after its answers still
 * showed no block holding them. Backends trail one another by at most that bound, so when round
 * `i` was answered none of them had sealed; a round nearer the seal may have met one that had,
 * whose "latest" rightly shows what the others still hold as pre-confirmed. (A round's head is
 * the highest read so far, read at some point after the round began.)
 */
export function aheadOfSeal(rounds: readonly Round[], i: number, firstSealedIn: bigint | undefined): boolean {
  if (firstSealedIn === undefined) return false;
  const answered = rounds[i].endedAt;
  return rounds.some((r, j) => j > i && r.head < firstSealedIn && r.startedAt - answered > SKEW_BOUND_MS);
}

/** A transaction sealed without ever showing at "pending": how early it was sent, how closely watched. */
export interface Miss {
  /** From acceptance to the start of the last read that still saw its block unsealed (the seal came later). */
  marginMs: number;
  /** Longest stretch between two looks at "pending" up to then (from one look's start to the next one's answer). */
  maxGapMs: number;
  looks: number;
  /** The index of the last of those looks (the last pre-seal read), if any. */
  lastLook?: number;
  /** From acceptance to the start of that last look: how long the node had had to show it when it last did not. */
  lastLookMs?: number;
  /**
   * Watched with no gap over MAX_LOOK_GAP_MS, and still not shown by a look begun EARLY_MS after
   * its acceptance, before the seal: it counts. (A margin of EARLY_MS to the seal is not enough:
   * looks up to 400 ms apart could all have come before a conformant late node showed it.)
   */
  counts: boolean;
}

/**
 * Weighs a miss: `looks` are the indices of the rounds that read the view at "pending" (none
 * showed it), `sealedIn` the block that sealed the transaction (undefined: not sealed, no miss).
 */
export function weighMiss(rounds: readonly Round[], looks: readonly number[], acceptedAt: number, sealedIn: bigint): Miss | undefined {
  let last = -1;
  rounds.forEach((r, i) => {
    if (r.head < sealedIn) last = i;
  });
  if (last < 0) return undefined;
  const sealAfter = rounds[last].startedAt;
  const seen = looks.filter((i) => i < last && rounds[i].startedAt >= acceptedAt).sort((a, b) => a - b);
  let maxGapMs = seen.length === 0 ? Infinity : 0;
  for (let k = 1; k < seen.length; k++) maxGapMs = Math.max(maxGapMs, rounds[seen[k]].endedAt - rounds[seen[k - 1]].startedAt);
  if (seen.length > 0) maxGapMs = Math.max(maxGapMs, sealAfter - rounds[seen[seen.length - 1]].startedAt);
  const marginMs = sealAfter - acceptedAt;
  const lastLook = seen.length ? seen[seen.length - 1] : undefined;
  const lastLookMs = lastLook === undefined ? undefined : rounds[lastLook].startedAt - acceptedAt;
  return {
    marginMs,
    maxGapMs,
    looks: seen.length,
    ...(lastLook === undefined ? {} : { lastLook, lastLookMs }),
    counts: seen.length >= 2 && maxGapMs <= MAX_LOOK_GAP_MS && lastLookMs! >= EARLY_MS,
  };
}

/**
 * Whether an attempt was spoiled by timing (MAX_SPOILED_ATTEMPTS): its first batch, accepted at
 * `acceptedAt` and first sealed in `sealedIn`, was too close to that seal, or too sparsely
 * watched before it, for a miss to count — in a block interval (`intervalMs`) of at least
 * EARLY_MS + SEND_MS, where that is the machine's delay, not the chain's design. `rounds` are the attempt's
 * (round 0 read before the sends). The Miss it would have been, or undefined.
 */
export function spoiledWatch(rounds: readonly Round[], acceptedAt: number, sealedIn: bigint, intervalMs: number | undefined): Miss | undefined {
  if (intervalMs === undefined || intervalMs < EARLY_MS + SEND_MS) return undefined;
  const m = weighMiss(
    rounds,
    rounds.map((_, i) => i).filter((i) => i >= 1),
    acceptedAt,
    sealedIn,
  );
  return m && !m.counts ? m : undefined;
}

/** One transaction of a view: when it was accepted, the block that sealed it (if any), the rounds whose read showed it. */
export interface TxSighting<T = unknown> {
  tx: T;
  acceptedAt: number;
  sealedIn?: bigint;
  /** Indices of the rounds whose read of the view showed this transaction. */
  shownIn: readonly number[];
}

/**
 * Weighs misses per transaction, each against the block that sealed IT: a
 * transaction that a look showed before its own block was sealed is no miss, even when the view
 * never showed all of them at once (a later one may legitimately land a block later, e.g. when a
 * flashblock's gas budget is full). `looks` are the rounds that read the view. Returns the
 * transactions sealed without any look showing them before their seal, with their Miss (whether
 * it counts: sent early, watched closely; see weighMiss); transactions not sealed, or sealed
 * before any read saw their block unsealed, are no misses.
 */
export function weighTxMisses<T>(
  rounds: readonly Round[],
  looks: readonly number[],
  txs: ReadonlyArray<TxSighting<T>>,
): Array<{ tx: T; sealedIn: bigint; miss: Miss }> {
  const misses: Array<{ tx: T; sealedIn: bigint; miss: Miss }> = [];
  for (const t of txs) {
    if (t.sealedIn === undefined) continue;
    const sealedIn = t.sealedIn;
    // The last round that still read a head below its block: its own reads may follow the seal,
    // so only earlier rounds prove it was shown before the seal (as weighMiss counts looks).
    let last = -1;
    rounds.forEach((r, i) => {
      if (r.head < sealedIn) last = i;
    });
    if (t.shownIn.some((i) => i >= 1 && i < last)) continue;
    const miss = weighMiss(rounds, looks, t.acceptedAt, sealedIn);
    if (miss) misses.push({ tx: t.tx, sealedIn, miss });
  }
  return misses;
}
