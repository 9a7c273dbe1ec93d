// --max-rps holds for the pre-confirmation pass, the busiest part of a run: it polls every 20 ms
// with a read per view, so without the limit it sends far more than a few requests a second.
// The run's limiter (RunEnv.limiter) reaches the pass's clients through the shared scope
// (src/harness/runner.ts); a counting proxy in front of the reference records when each request
// arrives, and the limiter notes each turn it grants. The rate is low enough that the pass cannot
// establish much (a tenth of what it asks unlimited, or less): it may end inconclusive, but
// never fails a required check, and never sends a request before its turn. (At 10 requests a
// second the pass ran twice as long, 19 s, for the same claims.)
import { RateLimiter } from '../../src/harness/http';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { checks } from '../../suites/preconf';
import { describeResults, runPreconf } from './helpers';
import { startRpcProxy } from './proxy';

jest.setTimeout(120_000);

/** 20 requests per second: turns 50 ms apart. */
const MAX_RPS = 20;
const TURN_MS = 1000 / MAX_RPS;

/**
 * The run's limiter, noting when it granted each turn (by the same clock as the proxy's arrivals).
 * What is asserted is exact, never a timing slack: turns are at least TURN_MS apart, and no request
 * reaches the target before its turn (the k-th arrival comes after the k-th grant). The arrivals'
 * own busiest second is not asserted: a request's way from its turn to the proxy (a new socket, a
 * busy event loop) varies, so on a loaded machine arrivals bunch by an amount no bound predicts.
 */
class GrantRecordingLimiter extends RateLimiter {
  readonly grants: number[] = [];
  override async take(signal?: AbortSignal): Promise<number | undefined> {
    const granted = await super.take(signal);
    if (granted !== undefined) this.grants.push(granted);
    return granted;
  }
}

let ref: ReferenceTarget;
beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
});
afterAll(async () => {
  await ref?.stop();
});

/** The most instants in any window [t, t + 1000 ms) that starts at one of them. */
function busiestSecond(instants: readonly number[]): number {
  const sorted = [...instants].sort((x, y) => x - y);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j] < sorted[i] + 1000) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

/** The arrivals that came before as many turns had been granted: requests that skipped the limiter. */
function arrivalsAheadOfTheirTurn(arrivals: readonly number[], grants: readonly number[]): number[] {
  const a = [...arrivals].sort((x, y) => x - y);
  const g = [...grants].sort((x, y) => x - y);
  return a.filter((t, k) => !(k < g.length && g[k] <= t));
}

it(`the pass sends at most --max-rps ${MAX_RPS} requests in any one second, and fails nothing for being slowed`, async () => {
  const proxy = await startRpcProxy(ref.rpcUrl, {});
  const limiter = new GrantRecordingLimiter(MAX_RPS);
  try {
    const results = await runPreconf(checks, proxy.url, ref.signerKey, undefined, { limiter });
    const { arrivals } = proxy.stats;
    // The pass ran for seconds and kept the limiter busy (without it: hundreds a second).
    expect(arrivals.length).toBeGreaterThanOrEqual(3 * MAX_RPS);
    expect(busiestSecond(limiter.grants)).toBeGreaterThanOrEqual(MAX_RPS / 2);
    const sorted = [...limiter.grants].sort((x, y) => x - y);
    const closest = Math.min(...sorted.slice(1).map((t, k) => t - sorted[k]));
    // The limiter's own promise (so at most MAX_RPS turns in any second); 1e-6 ms for float rounding only.
    expect(closest).toBeGreaterThanOrEqual(TURN_MS - 1e-6);
    expect(arrivalsAheadOfTheirTurn(arrivals, limiter.grants)).toEqual([]);
    // At the target: with turns TURN_MS apart and the k-th arrival at most `lag` after the k-th
    // turn, a second holds at most MAX_RPS + ceil(lag / TURN_MS) arrivals. `lag` is measured, not
    // assumed: the way from a turn to the wire, reported so a slow one is seen.
    const a = [...arrivals].sort((x, y) => x - y);
    const g = [...limiter.grants].sort((x, y) => x - y);
    const lag = Math.max(0, ...a.map((t, k) => t - g[k]));
    process.stdout.write(`${JSON.stringify({ arrivals: a.length, turns: g.length, busiestArrivals: busiestSecond(a), lagMs: Math.round(lag) })}\n`);
    expect(busiestSecond(a)).toBeLessThanOrEqual(MAX_RPS + Math.ceil(lag / TURN_MS));
    // Slowed down is no violation: required checks pass or are left unjudged, never failed.
    expect(describeResults(results.filter((r) => r.level === 'required' && r.status === 'failed'))).toBe('');
    for (const r of results) expect(['passed', 'inconclusive', 'failed', 'skipped']).toContain(r.status);
  } finally {
    await proxy.close();
  }
});
