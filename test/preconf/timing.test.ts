import { CheckFailure, fail, Inconclusive } from '../../src/harness/verdict';
import { beforeSeal, blockPollMs, bracket, latencyBounds, MAX_ATTEMPTS, measureRtt, percentiles, pollUntil, POLL_INTERVAL_MS, realClock, SealClock, VISIBILITY_BUDGET_MS, watchPending, type Clock } from '../../src/harness/preconf/timing';

/** Virtual time: sleeping advances it at once; every fake RPC call costs `rtt` ms. */
class FakeClock implements Clock {
  t = 0;
  sleeps = 0;
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new Inconclusive('stopped');
    this.sleeps += 1;
    this.t += Math.max(0, ms);
    await Promise.resolve();
  }
}

/** A chain that seals every blockTimeMs (first seal at `phase`), answering after `rtt` ms. */
function fakeChain(clock: FakeClock, blockTimeMs: number, opts: { rtt?: number; phase?: number; sealsUntil?: number } = {}) {
  const rtt = opts.rtt ?? 2;
  const phase = opts.phase ?? blockTimeMs;
  const numberAt = (t: number): bigint => {
    const until = Math.min(t, opts.sealsUntil ?? Infinity);
    return until < phase ? 100n : 101n + BigInt(Math.floor((until - phase) / blockTimeMs));
  };
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    numberAt,
    blockNumber: async (): Promise<bigint> => {
      calls += 1;
      clock.t += rtt / 2;
      const b = numberAt(clock.t);
      clock.t += rtt / 2;
      return b;
    },
  };
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
  it('reads "about every 200 ms" generously and adds round trips and a poll', () => {
    expect(VISIBILITY_BUDGET_MS).toBe(500);
    expect(latencyBounds({ p50: 5, p95: 30 })).toEqual({ p50: 530, p95: 880 });
  });
  it('polls every 20 ms at first, at most every 100 ms later', () => {
    expect(POLL_INTERVAL_MS).toBeLessThanOrEqual(25);
    expect(blockPollMs(0)).toBe(20);
    expect(blockPollMs(2000)).toBe(50);
    expect(blockPollMs(60_000)).toBe(100);
  });
  it('measures round trips sequentially', async () => {
    const clock = new FakeClock();
    const rtt = await measureRtt(async () => void (clock.t += 3), 5, clock);
    expect(rtt).toMatchObject({ n: 5, p50: 3, p95: 3, max: 3 });
  });
});

describe('SealClock', () => {
  it.each([200, 250, 1000, 2000, 5000, 12_000])('measures a %i ms cadence from two observed seals', async (blockTimeMs) => {
    const clock = new FakeClock();
    const chain = fakeChain(clock, blockTimeMs, { phase: blockTimeMs * 0.37 });
    const sc = new SealClock(chain.blockNumber, clock);
    const cadence = await sc.measureCadence();
    expect(cadence).toBeDefined();
    expect(Math.abs(cadence! - blockTimeMs)).toBeLessThanOrEqual(Math.max(25, blockTimeMs * 0.02));
    // Two changes seen within about three block times, and a last seal close to a real one.
    expect(clock.t).toBeLessThanOrEqual(3 * blockTimeMs + 200);
    expect(sc.lastSealAt).toBe(clock.t);
  });

  it('gives up on a chain that does not seal, within the bound', async () => {
    const clock = new FakeClock();
    const chain = fakeChain(clock, 1000, { sealsUntil: 0 });
    const sc = new SealClock(chain.blockNumber, clock);
    expect(await sc.measureCadence(5000)).toBeUndefined();
    expect(clock.t).toBeGreaterThanOrEqual(5000);
    expect(clock.t).toBeLessThan(5200);
    expect(sc.sealWaitMs()).toBe(40_000);
  });

  it('bounds the seal wait to three block times plus 2 s, within 3 s and 60 s', () => {
    const sc = new SealClock(async () => 0n, new FakeClock());
    const at = (c: number) => ((sc.cadenceMs = c), sc.sealWaitMs());
    expect([at(200), at(2000), at(12_000), at(30_000)]).toEqual([3000, 8000, 38_000, 60_000]);
  });

  it('aligns: goes at once with enough room before the next seal, otherwise waits for the seal', async () => {
    const clock = new FakeClock();
    const chain = fakeChain(clock, 1000, { phase: 1000, rtt: 0 });
    const sc = new SealClock(chain.blockNumber, clock);
    sc.cadenceMs = 1000;
    clock.t = 1010;
    await sc.read();
    sc.lastSealAt = 1000; // seen just after the seal at 1000
    clock.t = 1100;
    await sc.alignForWindow(600);
    expect(clock.t).toBe(1100); // 900 ms left
    clock.t = 1600;
    await sc.alignForWindow(600); // 400 ms left: wait for the seal at 2000
    expect(clock.t).toBeGreaterThanOrEqual(2000);
    expect(clock.t).toBeLessThanOrEqual(2000 + POLL_INTERVAL_MS);
    expect(sc.lastSealAt).toBe(clock.t);
  });

  it('aligns to the next seal when the last one is older than a block time, and not at all without a cadence', async () => {
    const clock = new FakeClock();
    const chain = fakeChain(clock, 1000, { phase: 1000, rtt: 0 });
    const sc = new SealClock(chain.blockNumber, clock);
    await sc.alignForWindow(600);
    expect(clock.t).toBe(0);
    sc.cadenceMs = 1000;
    sc.lastSealAt = 0;
    clock.t = 3050;
    await sc.alignForWindow(100);
    expect(clock.t).toBeGreaterThanOrEqual(4000);
  });

  it('honours the abort signal while waiting', async () => {
    const clock = new FakeClock();
    const chain = fakeChain(clock, 1000, { sealsUntil: 0 });
    const ac = new AbortController();
    const sc = new SealClock(async () => {
      if (clock.t > 300) ac.abort('deadline');
      return chain.blockNumber();
    }, clock, ac.signal);
    await expect(sc.nextBlock(10_000)).rejects.toBeInstanceOf(Inconclusive);
    expect(clock.t).toBeLessThan(1000);
  });
});

describe('watchPending', () => {
  const setup = (blockTimeMs: number, visibleAt: number, showsSealed = true) => {
    const clock = new FakeClock();
    const chain = fakeChain(clock, blockTimeMs, { phase: blockTimeMs, rtt: 2 });
    clock.t = 10;
    const observe = async () => {
      clock.t += 1;
      const v = clock.t >= visibleAt || (showsSealed && chain.numberAt(clock.t) > 100n);
      clock.t += 1;
      return v;
    };
    return { clock, chain, observe };
  };
  const opts = (clock: FakeClock, chain: ReturnType<typeof fakeChain>, observe: () => Promise<boolean>) => ({
    observe,
    visible: (v: boolean) => v,
    blockNumber: chain.blockNumber,
    startBlock: 100n,
    startedAt: 10,
    acceptedAt: 12,
    budgetMs: 520,
    clock,
  });

  it('takes what a seal made visible as visible (the bracketed read that follows judges it)', async () => {
    const { clock, chain, observe } = setup(400, Infinity);
    expect(await watchPending(opts(clock, chain, observe))).toMatchObject({ kind: 'visible', value: true });
  });

  it('reports the state once visible, with the time since the send, polling every 20 ms', async () => {
    const { clock, chain, observe } = setup(1000, 300);
    const r = await watchPending(opts(clock, chain, observe));
    expect(r.kind).toBe('visible');
    if (r.kind === 'visible') expect(r.afterMs).toBeGreaterThanOrEqual(290);
    if (r.kind === 'visible') expect(r.afterMs).toBeLessThanOrEqual(290 + POLL_INTERVAL_MS + 4);
  });

  it('calls it "sealed" when a seal comes before the budget (too early to judge)', async () => {
    // A pending view that lags even the seal: the block number moves first.
    const { clock, chain, observe } = setup(400, Infinity, false);
    const r = await watchPending(opts(clock, chain, observe));
    expect(r).toMatchObject({ kind: 'sealed' });
    if (r.kind === 'sealed') expect(r.stableMs).toBeLessThan(400);
  });

  it('calls it "not-visible" once invisible for the budget with no seal (a violation)', async () => {
    const { clock, chain, observe } = setup(1000, Infinity);
    const r = await watchPending(opts(clock, chain, observe));
    expect(r).toMatchObject({ kind: 'not-visible', last: false });
    if (r.kind === 'not-visible') expect(r.stableMs).toBeGreaterThanOrEqual(520);
    expect(clock.t).toBeLessThan(1000);
  });

  it('never counts a state seen after a seal as pre-confirmed invisibility', async () => {
    // The observation answers "not visible", but the block number read after it moved.
    const clock = new FakeClock();
    let n = 100n;
    const r = await watchPending({
      observe: async () => ((clock.t += 10), false),
      visible: (v) => v,
      blockNumber: async () => ((clock.t += 10), clock.t > 600 ? (n = 101n) : n),
      startBlock: 100n,
      startedAt: 0,
      acceptedAt: 0,
      budgetMs: 600,
      clock,
    });
    expect(r.kind).toBe('sealed');
  });
});

describe('bracket and beforeSeal', () => {
  it('is stable only when neither read moved', async () => {
    const seq = [5n, 5n, 5n, 6n];
    const next = async () => seq.shift()!;
    expect(await bracket(next, 5n, async () => 'x')).toMatchObject({ stable: true, value: 'x' });
    expect(await bracket(next, 5n, async () => 'y')).toMatchObject({ stable: false, before: 5n, after: 6n });
  });

  it('retries sealed attempts and returns the first observation', async () => {
    const seen: number[] = [];
    const v = await beforeSeal('x', async (n) => (seen.push(n), n < 3 ? { sealed: `s${n}` } : { value: n }));
    expect(v).toBe(3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('is inconclusive after the bounded attempts, naming each reason', async () => {
    let calls = 0;
    const p = beforeSeal('pending code', async (n) => (calls++, { sealed: `seal ${n}` }));
    await expect(p).rejects.toBeInstanceOf(Inconclusive);
    await expect(beforeSeal('pending code', async (n) => ({ sealed: `seal ${n}` }))).rejects.toThrow(/pending code: .*3 attempts.*attempt 1: seal 1; attempt 2: seal 2; attempt 3: seal 3/);
    expect(calls).toBe(MAX_ATTEMPTS);
  });

  it('lets a failure end the attempts at once', async () => {
    let calls = 0;
    await expect(beforeSeal('x', async () => (calls++, fail('violation')))).rejects.toBeInstanceOf(CheckFailure);
    expect(calls).toBe(1);
  });
});

describe('pollUntil', () => {
  it('returns when done, or the last value at the deadline', async () => {
    const clock = new FakeClock();
    let v = 0;
    expect(await pollUntil(async () => ++v, (x) => x >= 3, { timeoutMs: 1000, clock })).toMatchObject({ ok: true, value: 3 });
    const r = await pollUntil(async () => 0, (x) => x > 0, { timeoutMs: 1000, intervalMs: (w) => (w < 500 ? 20 : 100), clock });
    expect(r.ok).toBe(false);
    expect(clock.t).toBeGreaterThanOrEqual(1000);
    expect(clock.sleeps).toBeLessThan(40);
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
    await expect(p).rejects.toBeInstanceOf(Inconclusive);
    await expect(realClock.sleep(10, AbortSignal.abort('x'))).rejects.toBeInstanceOf(Inconclusive);
  });
});
