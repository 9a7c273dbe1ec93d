// --samples N: every read-only check asked N times, over fresh connections and across at least
// two block intervals, every answer judged. A target behind a load balancer is a fleet: one
// misconfigured backend answers only a fraction of the requests, and one answer per check sees
// it only by luck. docs/sampling.md gives the arithmetic and the costs.
import { keptExchanges, type CheckResult, type DetectionPower, type SampleCounts, type SampleFailure } from './result';
import type { RateLimiter } from './http';
import { RpcClient } from './rpc';
import type { Redactor } from './redact';
import { Transcript } from './transcript';
import { Slots } from './slots';

/** The bounds of --samples: one answer per question, up to a thousand. */
export const SAMPLES_RANGE = { min: 1, max: 1000 } as const;
/** What --certify samples when --samples is not given: 30 answers detect a fault on ≥ 10 % of them with ≥ 95 %. */
export const CERTIFY_SAMPLES = 30;
/** The confidence the stated detection power is given at. */
export const POWER_CONFIDENCE = 0.95;
/** The block interval assumed when none can be observed (no --rpc-url, a chain without history). */
export const DEFAULT_BLOCK_INTERVAL_MS = 2000;
/** The samples of a check are spread over this many block intervals... */
const WINDOW_INTERVALS = 2;
/** ...but over at least 1 s and at most 60 s (a 12 s chain: 24 s; a sub-second one: 1 s). */
const WINDOW_MIN_MS = 1000;
const WINDOW_MAX_MS = 60_000;
/** Blocks the observed interval is averaged over (timestamps have a resolution of one second). */
const INTERVAL_SPAN = 10;
/** The distinct failures a sampled result keeps beside its own (each with its first exchanges). */
const MAX_EXTRA_FAILURES = 3;

/** How a run samples: N answers per read-only question, spread over `windowMs`. */
export interface SamplingPlan {
  n: number;
  windowMs: number;
  /** The block interval the window was made from, and whether it was observed on the target or assumed. */
  blockIntervalMs: number;
  intervalFrom: 'observed' | 'configured' | 'assumed';
}

/** The detection power of `judged` independent answers (undefined for none). */
export function detectionPower(judged: number): DetectionPower | undefined {
  if (!(judged >= 1)) return undefined;
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return { p: round(1 - (1 - POWER_CONFIDENCE) ** (1 / judged)), confidence: POWER_CONFIDENCE, atQuarter: round(1 - 0.75 ** judged) };
}

/** The sentence a report prints for `judged` answers. */
export function powerWords(judged: number): string {
  const power = detectionPower(judged);
  if (!power) return 'no answer judged';
  const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
  return `a fault on ≥ ${pct(power.p)} of answers would have been seen with probability ≥ ${pct(power.confidence)} (1 − (1 − p)^${judged})`;
}

/** A run's sampling in one line, for the console and verify-certificate (numbers only: nothing of the target's). */
export function samplingLine(s: Pick<SamplingPlan, 'n' | 'windowMs' | 'blockIntervalMs' | 'intervalFrom'>): string {
  const n = Math.trunc(Number(s.n));
  const spread = `over ${Math.round(Number(s.windowMs))} ms (2 block intervals of ${Math.round(Number(s.blockIntervalMs))} ms, ${s.intervalFrom === 'observed' ? 'observed' : s.intervalFrom === 'configured' ? 'configured' : 'assumed'})`;
  return `samples: ${n} answer${n === 1 ? '' : 's'} per read-only question ${spread}; ${powerWords(n)}`;
}

/** The window for an interval: two block intervals, bounded. */
export function windowFor(blockIntervalMs: number): number {
  return Math.min(WINDOW_MAX_MS, Math.max(WINDOW_MIN_MS, Math.round(WINDOW_INTERVALS * blockIntervalMs)));
}

/** When sample `index` of `n` may start, in ms after the first: i · window / N. */
export function sampleOffsetMs(index: number, plan: Pick<SamplingPlan, 'n' | 'windowMs'>): number {
  return plan.n <= 1 ? 0 : Math.round((index * plan.windowMs) / plan.n);
}

/**
 * The window the waves after the first are spread over, once the signer's lane is done
 * `elapsedMs` after wave 0 started: what is left of the run's window, but at least one block
 * interval's share of it. Wave 0 was asked at the start, so the answers of each check still span
 * the whole window; the later waves still cross a seal.
 */
export function laterWindowMs(plan: Pick<SamplingPlan, 'windowMs'>, elapsedMs: number): number {
  const oneInterval = plan.windowMs / WINDOW_INTERVALS;
  return Math.round(Math.min(plan.windowMs, Math.max(oneInterval, plan.windowMs - Math.max(0, elapsedMs))));
}

const quantity = (v: unknown): number | undefined => (typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v) ? Number(BigInt(v)) : undefined);

/**
 * The block interval of a chain, from the timestamps of its latest block and the one
 * INTERVAL_SPAN blocks before (two reads, before the samples start); undefined when it cannot be
 * read. These reads are the suite's schedule, not a question any check asks: they are judged by
 * no one, so their exchanges are not kept.
 */
export async function observeBlockIntervalMs(
  rpcUrl: string,
  headers: Record<string, string>,
  http: { timeoutMs: number; redactor: Redactor; signal?: AbortSignal; limiter?: RateLimiter },
): Promise<number | undefined> {
  const rpc = new RpcClient(rpcUrl, headers, { ...http, transcript: new Transcript() });
  try {
    const latest = (await rpc.call('eth_getBlockByNumber', ['latest', false])).result as { number?: unknown; timestamp?: unknown } | undefined;
    const head = quantity(latest?.number);
    const at = quantity(latest?.timestamp);
    if (head === undefined || at === undefined || head < 1) return undefined;
    const span = Math.min(INTERVAL_SPAN, head);
    const earlier = (await rpc.call('eth_getBlockByNumber', [`0x${(head - span).toString(16)}`, false])).result as { timestamp?: unknown } | undefined;
    const then = quantity(earlier?.timestamp);
    if (then === undefined || at <= then) return undefined;
    return ((at - then) * 1000) / span;
  } catch {
    return undefined;
  }
}

/**
 * The plan of a run with N samples: the window from the block interval the run knows (the
 * embedded reference's --block-time), else the one observed on the target, else the default.
 */
export async function planSampling(
  n: number,
  target: {
    rpcUrl?: string;
    rpcHeaders: Record<string, string>;
    http: { timeoutMs: number; redactor: Redactor; signal?: AbortSignal; limiter?: RateLimiter };
    blockIntervalMs?: number;
  },
): Promise<SamplingPlan> {
  if (target.blockIntervalMs !== undefined)
    return { n, windowMs: windowFor(target.blockIntervalMs), blockIntervalMs: target.blockIntervalMs, intervalFrom: 'configured' };
  const observed = n > 1 && target.rpcUrl ? await observeBlockIntervalMs(target.rpcUrl, target.rpcHeaders, target.http) : undefined;
  const blockIntervalMs = Math.round(observed ?? DEFAULT_BLOCK_INTERVAL_MS);
  return { n, windowMs: windowFor(blockIntervalMs), blockIntervalMs, intervalFrom: observed === undefined ? 'assumed' : 'observed' };
}

/** What results.json and the certificate record of a run's sampling: the plan and the power of N answers. */
export type RunSampling = SamplingPlan & { power?: DetectionPower };

export function runSampling(plan: SamplingPlan): RunSampling {
  const power = detectionPower(plan.n);
  return { ...plan, ...(power ? { power } : {}) };
}

// ---- the schedule of the waves (used by the runner) ----

/**
 * Waits until `ms` after the start, or until the signal aborts (a wave then starts at once and
 * its samples are reported stopped). One abort listener for all the waves of a run.
 */
function waveClock(signal: AbortSignal): { until(ms: number): Promise<void>; stop(): void } {
  const timers = new Set<NodeJS.Timeout>();
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const start = performance.now();
  return {
    until: (ms) => {
      const wait = start + ms - performance.now();
      if (wait <= 0 || signal.aborted) return Promise.resolve();
      return Promise.race([aborted, new Promise<void>((resolve) => timers.add(setTimeout(resolve, wait)))]);
    },
    stop: () => {
      for (const t of timers) clearTimeout(t);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/** How many times a run without samples the sampled waves may have in flight at once. */
const SAMPLE_OVERLAP = 3;

/**
 * --samples N: the read-only checks run N times, as N waves. Wave 0 runs at once, beside the
 * signer's lane; the waves s > 0 wait for that lane (the pre-confirmation pass times seals and
 * refreshes: N waves of reads beside it would load the node it times), then start s · W / N after
 * it, W being what is left of the window (two block intervals) since wave 0, but at least one
 * block interval (laterWindowMs): each check's answers span the window and the later ones cross a seal. Waves overlap, so the run
 * grows by about the window, not N times; every request still takes its --max-rps turn. Each wave
 * has its own connections (a balancer routing per connection reaches other backends) and its own
 * shared observations (the REST list is fetched once per wave, not once per run). A check is
 * settled when all its samples are in (mergeSamples: any failing sample fails it).
 */
export function runWaves<W, B>(
  pool: number[],
  plan: SamplingPlan,
  concurrency: number,
  signal: AbortSignal,
  laneDone: Promise<void>,
  hooks: {
    open(): W;
    close(wave: W): Promise<void>;
    started(i: number): void;
    /** `slots`: the wave's slots, given back while the check waits for another's shared observation. */
    run(i: number, wave: W, slots: Slots): Promise<SampleOutcome<B>>;
    settled(i: number, outcome: SampleOutcome<B>): void;
  },
): Promise<void> {
  // No read-only check to sample (a run of --only preconf): no wave waits out its place in the
  // window for nothing (a block interval after the lane, at least).
  if (pool.length === 0) return Promise.resolve();
  // Overlapping waves would otherwise put N × --concurrency checks in flight: a target is asked
  // at most SAMPLE_OVERLAP times as much at once as by a run without samples.
  const slots = new Slots(Math.max(1, concurrency * SAMPLE_OVERLAP));
  const outcomes = new Map<number, { samples: Array<SampleOutcome<B>>; started: number; left: number }>();
  let clock: ReturnType<typeof waveClock> | undefined;
  const firstStarted = performance.now();
  const later = laneDone.then(() => {
    clock = waveClock(signal);
    return { clock, spread: { ...plan, windowMs: laterWindowMs(plan, performance.now() - firstStarted) } };
  });
  const wave = async (s: number): Promise<void> => {
    if (s > 0) {
      const after = await later;
      await after.clock.until(sampleOffsetMs(s, after.spread));
    }
    const scope = hooks.open();
    const queue = [...pool];
    const worker = async (): Promise<void> => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        let entry = outcomes.get(i);
        if (!entry) {
          hooks.started(i);
          outcomes.set(i, (entry = { samples: new Array<SampleOutcome<B>>(plan.n), started: performance.now(), left: plan.n }));
        }
        await slots.take();
        try {
          entry.samples[s] = await hooks.run(i, scope, slots);
        } finally {
          slots.give();
        }
        if (--entry.left === 0) {
          hooks.settled(i, mergeSamples(entry.samples, performance.now() - entry.started));
          outcomes.delete(i);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, pool.length)) }, worker));
    } finally {
      await hooks.close(scope);
    }
  };
  const stop = () => clock?.stop();
  return Promise.all(Array.from({ length: plan.n }, (_, s) => wave(s))).then(stop, (err: unknown) => (stop(), Promise.reject(err)));
}

/** A sample's result, and what blocked it when it could not observe its subject. */
export interface SampleOutcome<B> {
  result: CheckResult;
  blocker?: B;
}

/** What makes two failures "the same kind": the facts, never the words. */
function kindOf(r: CheckResult, blocked: boolean): string {
  return JSON.stringify([r.cause ?? '', r.violated ?? [], r.expected ?? null, blocked]);
}

/**
 * One result from N samples of a check. Every sample is judged, none replaced: the check fails
 * when any sample failed (a failure of its own before one blocked by another check's rule); the
 * result shows the first such sample, and keeps the first failing sample of each other kind. It
 * passes when no sample failed and at least one was judged; samples that were not judged
 * (throttled, timing still ambiguous) stay not judged and lower the stated power. When none was
 * judged, the first sample's result stands (inconclusive before skipped).
 */
export function mergeSamples<B>(samples: ReadonlyArray<SampleOutcome<B>>, spanMs: number): SampleOutcome<B> {
  const n = samples.length;
  const failed = samples.map((s, i) => ({ ...s, i })).filter((s) => s.result.status === 'failed');
  const judged = samples.filter((s) => s.result.status === 'passed').length + failed.length;
  const shown = failed.find((s) => s.blocker === undefined) ??
    failed[0] ??
    samples.map((s, i) => ({ ...s, i })).find((s) => s.result.status === 'passed') ??
    samples.map((s, i) => ({ ...s, i })).find((s) => s.result.status === 'inconclusive') ?? { ...samples[0], i: 0 };
  const seen = new Set([kindOf(shown.result, shown.blocker !== undefined)]);
  const failures: SampleFailure[] = [];
  for (const f of failed) {
    const kind = kindOf(f.result, f.blocker !== undefined);
    if (seen.has(kind) || failures.length >= MAX_EXTRA_FAILURES) continue;
    seen.add(kind);
    const { reason, cause, violated, expected, actual, exchanges } = f.result;
    failures.push({
      sample: f.i,
      reason,
      ...(cause ? { cause } : {}),
      ...(violated?.length ? { violated } : {}),
      expected,
      actual,
      exchanges: keptExchanges(exchanges),
    });
  }
  const power = detectionPower(judged);
  const counts: SampleCounts = {
    n,
    judged,
    failed: failed.length,
    notJudged: n - judged,
    shown: shown.i,
    ...(power ? { power } : {}),
    ...(failures.length ? { failures } : {}),
  };
  const status = shown.result.status;
  const reason = status === 'failed' ? `${shown.result.reason} (in ${failed.length} of ${n} samples)` : shown.result.reason;
  const exchangeCount = samples.reduce((sum, s) => sum + s.result.exchangeCount, 0);
  return {
    result: { ...shown.result, reason, durationMs: Math.round(spanMs), exchangeCount, samples: counts },
    ...(shown.blocker !== undefined ? { blocker: shown.blocker } : {}),
  };
}
