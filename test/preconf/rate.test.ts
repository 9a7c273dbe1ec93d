// --max-rps holds for the pre-confirmation pass, the busiest part of a run: it polls every 20 ms
// with a read per view, so without the limit it sends far more than a few requests a second.
// The run's limiter (RunEnv.limiter) reaches the pass's clients through the shared scope
// (src/harness/runner.ts); a counting proxy in front of the reference records when each request
// arrives. The rate is low enough that the pass cannot establish much (its reads are a second
// apart): it may end inconclusive, but never fails a required check, and never exceeds the rate.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { RateLimiter } from '../../src/harness/http';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { checks } from '../../suites/preconf';
import { describeResults, runPreconf } from './helpers';
import { startRpcProxy } from './proxy';

jest.setTimeout(120_000);

/**
 * 10 requests per second: turns 100 ms apart. A window that starts at an arrival may hold one
 * more (an arrival a little late, the last of the window on time); and when this process stalls
 * (a loaded machine), timers due during the stall fire together, one more per 100 ms stalled.
 * So the slack is one request plus what the measured event-loop stall explains, which is none
 * on an idle machine.
 */
const MAX_RPS = 10;
const TURN_MS = 1000 / MAX_RPS;

let ref: ReferenceTarget;
beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
});
afterAll(async () => {
  await ref?.stop();
});

/** The most arrivals in any window [t, t + 1000 ms) that starts at an arrival. */
function busiestSecond(arrivals: readonly number[]): number {
  const sorted = [...arrivals].sort((x, y) => x - y);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j] < sorted[i] + 1000) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

it(`the pass sends at most --max-rps ${MAX_RPS} requests in any one second, and fails nothing for being slowed`, async () => {
  const proxy = await startRpcProxy(ref.rpcUrl, {});
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  try {
    const results = await runPreconf(checks, proxy.url, ref.signerKey, undefined, { limiter: new RateLimiter(MAX_RPS) });
    stalls.disable();
    const stalledMs = stalls.max / 1e6;
    const { arrivals } = proxy.stats;
    // The pass ran for seconds and kept the limiter busy (without it: hundreds a second).
    expect(arrivals.length).toBeGreaterThanOrEqual(3 * MAX_RPS);
    const busiest = busiestSecond(arrivals);
    expect(busiest).toBeGreaterThanOrEqual(MAX_RPS / 2);
    expect({ busiest, stalledMs: Math.round(stalledMs) }).toEqual({
      busiest: Math.min(busiest, MAX_RPS + 1 + Math.floor(stalledMs / TURN_MS)),
      stalledMs: Math.round(stalledMs),
    });
    // Slowed down is no violation: required checks pass or are left unjudged, never failed.
    expect(describeResults(results.filter((r) => r.level === 'required' && r.status === 'failed'))).toBe('');
    for (const r of results) expect(['passed', 'inconclusive', 'failed', 'skipped']).toContain(r.status);
  } finally {
    stalls.disable();
    await proxy.close();
  }
});
