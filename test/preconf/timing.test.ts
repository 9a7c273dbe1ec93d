import { Unobservable } from '../../src/harness/preconf/errors';
import { slowMethods } from '../../suites/preconf/latency';
import {
  blockPollMs,
  EARLY_MS,
  LATE_FLASHBLOCKS,
  latencyBounds,
  MAX_LOOK_GAP_MS,
  msToNextSeal,
  percentiles,
  POLL_INTERVAL_MS,
  preSeal,
  SPEC_REFRESH_MS,
  realClock,
  weighMiss,
  weighTxMisses,
  type Round,
} from '../../src/harness/preconf/timing';

/**
 * Rounds of reads every `every` ms, each taking `rtt` ms, against a chain whose head is 100 and
 * becomes 101 at `sealAt` (a read sees the head as it was halfway through the round).
 */
function roundsOf(opts: { count: number; every?: number; rtt?: number; sealAt?: number; stallAt?: number; stallMs?: number }): Round[] {
  const every = opts.every ?? 20;
  const rtt = opts.rtt ?? 4;
  const rounds: Round[] = [];
  let t = 0;
  for (let i = 0; i < opts.count; i++) {
    if (opts.stallAt !== undefined && i === opts.stallAt) t += opts.stallMs ?? 0;
    const mid = t + rtt / 2;
    rounds.push({ startedAt: t, endedAt: t + rtt, head: opts.sealAt !== undefined && mid >= opts.sealAt ? 101n : 100n });
    t += every;
  }
  return rounds;
}

describe('percentiles', () => {
  it('is undefined without samples', () => expect(percentiles([])).toBeUndefined());
  it('uses nearest rank and does not reorder its input', () => {
    const input = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(percentiles(input)).toEqual({ n: 20, min: 1, p50: 10, p95: 19, max: 20 });
    expect(input[0]).toBe(20);
    expect(percentiles([7.26])).toEqual({ n: 1, min: 7.3, p50: 7.3, p95: 7.3, max: 7.3 });
  });
});

describe('budgets', () => {
  it('reads "about every 200 ms" generously for latency, and adds round trips and a poll', () => {
    expect(latencyBounds({ p50: 5, p95: 30 })).toEqual({ p50: 530, p95: 880 });
  });
  it('counts a miss only for a send four and a half refresh periods before the seal (three flashblocks late, and half a period), watched at least every two', () => {
    expect(EARLY_MS).toBe(900);
    expect(MAX_LOOK_GAP_MS).toBe(400);
  });
  it('polls every 20 ms at first, at most every 100 ms later', () => {
    expect(POLL_INTERVAL_MS).toBeLessThanOrEqual(25);
    expect(blockPollMs(0)).toBe(20);
    expect(blockPollMs(2000)).toBe(50);
    expect(blockPollMs(60_000)).toBe(100);
  });
});

describe('preSeal: which rounds show pre-confirmed state', () => {
  const rounds = roundsOf({ count: 10, sealAt: 105 }); // round 5 (100..104) still sees 100; round 6 sees 101
  it('needs the round before and after to read the same head', () => {
    expect(preSeal(rounds, 1)).toBe(true);
    expect(preSeal(rounds, 4)).toBe(true);
    // Round 5's reads may have come after the seal: the round after it already sees 101.
    expect(preSeal(rounds, 5)).toBe(false);
    expect(preSeal(rounds, 6)).toBe(false);
    // After the seal, with the transactions not in block 101, rounds are pre-seal again.
    expect(preSeal(rounds, 7)).toBe(true);
  });
  it('never counts round 0 (the read before the sends), and waits for the round after', () => {
    expect(preSeal(rounds, 0)).toBe(false);
    expect(preSeal(rounds, 9)).toBeUndefined();
  });
  it('never counts a round once the transactions are in a block up to the head', () => {
    expect(preSeal(rounds, 7, 101n)).toBe(false);
    expect(preSeal(rounds, 2, 101n)).toBe(true);
    expect(preSeal(rounds, 2, 100n)).toBe(false);
  });
});

describe('weighMiss: when "sealed without ever showing at pending" counts', () => {
  const looks = (rounds: Round[]) => rounds.map((_, i) => i).filter((i) => i > 0);
  it('counts a transaction accepted early in the block and watched every 20 ms', () => {
    const rounds = roundsOf({ count: 100, sealAt: 1900 });
    const m = weighMiss(rounds, looks(rounds), 10, 101n)!;
    expect(m.counts).toBe(true);
    expect(m.marginMs).toBe(1880 - 10); // the last round that saw head 100 started at 1880
    expect(m.maxGapMs).toBeLessThanOrEqual(24);
    expect(m.lastLook).toBe(93);
    expect(m.looks).toBe(93);
  });
  it('does not count one accepted less than EARLY_MS before the seal', () => {
    const rounds = roundsOf({ count: 100, sealAt: 1900 });
    expect(weighMiss(rounds, looks(rounds), 1900 - EARLY_MS + 40, 101n)!.counts).toBe(false);
    expect(weighMiss(rounds, looks(rounds), 1900 - EARLY_MS - 40, 101n)!.counts).toBe(true);
  });
  it('never counts a transaction that a node pre-confirming three flashblocks late could rightly have sealed unseen', () => {
    // Such a node shows a transaction up to four refresh periods after its acceptance.
    expect(LATE_FLASHBLOCKS).toBe(3);
    expect(EARLY_MS).toBeGreaterThan((1 + LATE_FLASHBLOCKS) * SPEC_REFRESH_MS);
    // Seen on a loaded machine: accepted 793 ms before the seal, sealed unseen by a conformant target.
    const rounds = roundsOf({ count: 100, sealAt: 1900 });
    const m = weighMiss(rounds, looks(rounds), 1880 - 793, 101n)!;
    expect(m.marginMs).toBe(793);
    expect(m.counts).toBe(false);
  });
  it('does not count when the last look began before a late node had to show it, however early the send', () => {
    // Looks about 300 ms apart (a loaded client): accepted at 290, 910 ms before the last read that
    // saw the block unsealed, but the last look began 610 ms after the acceptance, before a node
    // three flashblocks late need show it.
    const rounds = roundsOf({ count: 8, every: 300, sealAt: 1210 });
    const m = weighMiss(rounds, looks(rounds), 290, 101n)!;
    expect({ marginMs: m.marginMs, looks: m.looks, lastLookMs: m.lastLookMs }).toEqual({ marginMs: 910, looks: 3, lastLookMs: 610 });
    expect(m.maxGapMs).toBeLessThanOrEqual(MAX_LOOK_GAP_MS);
    expect(m.counts).toBe(false);
    // The same looks, the send 320 ms earlier: the last look began EARLY_MS after it.
    expect(weighMiss(rounds, looks(rounds), 0, 101n)!.counts).toBe(true);
  });
  it('does not count when the client stalled (a loaded machine) and "pending" went unwatched', () => {
    const rounds = roundsOf({ count: 60, sealAt: 1900, stallAt: 20, stallMs: 900 });
    const m = weighMiss(rounds, looks(rounds), 10, 101n)!;
    expect(m.maxGapMs).toBeGreaterThan(MAX_LOOK_GAP_MS);
    expect(m.counts).toBe(false);
  });
  it('does not count with one look or none, and ignores reads issued before the acceptance', () => {
    const rounds = roundsOf({ count: 100, sealAt: 1900 });
    expect(weighMiss(rounds, [50], 10, 101n)!.counts).toBe(false);
    const none = weighMiss(rounds, [], 10, 101n)!;
    expect(none.counts).toBe(false);
    expect(none.maxGapMs).toBe(Infinity);
    expect(weighMiss(rounds, looks(rounds), 1000, 101n)!.looks).toBe(44);
  });
  it('is undefined when no read saw the block unsealed', () => {
    const rounds = roundsOf({ count: 5, sealAt: 0 });
    expect(weighMiss(rounds, looks(rounds), 0, 101n)).toBeUndefined();
  });
  it('counts slow but steady looks (150 ms round trips) and not 300 ms gaps', () => {
    const slow = roundsOf({ count: 14, every: 150, rtt: 150, sealAt: 1900 });
    expect(weighMiss(slow, looks(slow), 160, 101n)!.counts).toBe(true);
    const slower = roundsOf({ count: 8, every: 300, rtt: 150, sealAt: 1900 });
    expect(weighMiss(slower, looks(slower), 160, 101n)!.counts).toBe(false);
  });
});

describe('weighTxMisses: each transaction against the block that sealed it', () => {
  /**
   * Five transactions accepted at 10 ms, read every 20 ms: head 100 until 1900 ms, 101 until
   * 3900 ms, then 102. The view stops being read at the first seal, as the pass does.
   */
  function chain(): Round[] {
    const rounds: Round[] = [];
    for (let t = 0; t < 4100; t += 20) rounds.push({ startedAt: t, endedAt: t + 4, head: t + 2 >= 3900 ? 102n : t + 2 >= 1900 ? 101n : 100n });
    return rounds;
  }
  const rounds = chain();
  const firstSeal = rounds.findIndex((r) => r.head === 101n);
  const looks = rounds.map((_, i) => i).filter((i) => i > 0 && i <= firstSeal);
  const shownFrom = (from: number) => looks.filter((i) => i >= from);
  const tx = (nonce: number, sealedIn: bigint | undefined, shownIn: number[]) => ({ tx: nonce, acceptedAt: 10, sealedIn, shownIn });

  it('finds no miss when txs 1-4 showed before block 101 sealed them and tx 5 landed in block 102 (never all visible at once)', () => {
    const txs = [1, 2, 3, 4].map((n) => tx(n, 101n, shownFrom(15))).concat([tx(5, 102n, [])]);
    // Tx 5 was looked at only until the first seal: the 2 s gap to its own seal is no close watch.
    const misses = weighTxMisses(rounds, looks, txs);
    expect(misses.map((m) => [m.tx, m.miss.counts])).toEqual([[5, false]]);
  });

  it('counts a transaction sealed in its block without ever showing, although another showed', () => {
    const txs = [tx(1, 101n, shownFrom(15)), tx(2, 101n, [])];
    const misses = weighTxMisses(rounds, looks, txs);
    expect(misses).toHaveLength(1);
    expect(misses[0]).toMatchObject({ tx: 2, sealedIn: 101n, miss: { counts: true } });
  });

  it('does not take a showing in the last round before the seal (its reads may follow it) as shown before the seal', () => {
    const last = firstSeal - 1;
    expect(weighTxMisses(rounds, looks, [tx(1, 101n, [last])]).map((m) => m.miss.counts)).toEqual([true]);
    expect(weighTxMisses(rounds, looks, [tx(1, 101n, [last - 1])])).toEqual([]);
  });

  it('finds no miss for a transaction not sealed, or sealed before any read saw its block unsealed', () => {
    expect(weighTxMisses(rounds, looks, [tx(1, undefined, [])])).toEqual([]);
    expect(weighTxMisses(rounds, looks, [tx(1, 100n, [])])).toEqual([]);
  });
});

describe('realClock', () => {
  it('sleeps, and rejects inconclusive on abort', async () => {
    const t = realClock.now();
    await realClock.sleep(30);
    expect(realClock.now() - t).toBeGreaterThanOrEqual(25);
    const ac = new AbortController();
    const p = realClock.sleep(10_000, ac.signal);
    setTimeout(() => ac.abort('stop'), 10);
    await expect(p).rejects.toBeInstanceOf(Unobservable);
    await expect(realClock.sleep(10, AbortSignal.abort('x'))).rejects.toBeInstanceOf(Unobservable);
  });
});

describe('latency bounds per method', () => {
  it('flags a method lagging 1 s although the others are fast (pooled, its samples would hide among theirs)', () => {
    const bounds = latencyBounds({ p50: 5, p95: 10 });
    const fast = { p50: 90, p95: 180, max: 200, n: 20 };
    const slow = slowMethods(
      { eth_getTransactionCount: fast, eth_getCode: fast, eth_getBlockReceipts: fast, eth_estimateGas: { p50: 1000, p95: 1000, max: 1000, n: 2 } },
      bounds,
    );
    expect(slow.map(([m]) => m)).toEqual(['eth_estimateGas']);
    expect(slowMethods({ eth_getCode: fast }, bounds)).toEqual([]);
  });
});

describe("msToNextSeal: a known grid's next seal", () => {
  const grid = { atMs: 10_000, everyMs: 1200 };
  it.each([
    [10_000, 1200], // a seal due exactly now counts as past
    [10_001, 1199],
    [11_199, 1],
    [11_200, 1200],
    [11_500, 900],
    [9_999, 1], // before the grid's own seal: the grid extends back
    [10_000 - 1200 * 5 + 600, 600],
    [10_000 + 1200 * 1_000_000 + 1, 1199], // far on (epoch milliseconds are large)
  ])('at %d: %d ms', (now, expected) => {
    expect(msToNextSeal(grid, now)).toBe(expected);
  });
});
