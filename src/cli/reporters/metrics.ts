import type { CheckResult } from '../../harness/runner';

/**
 * The pre-confirmation timeline a check records with `ctx.metric('timeline', …)`; report.html
 * draws it (send → visible at "pending" per method, the flashblock ticks, the seal). Times are
 * milliseconds from one origin inside the check (e.g. its first send):
 *
 *   metrics.timeline = {
 *     flashblockMs: 200,          // the pre-confirmation tick to mark (spec 8: "about every 200 ms")
 *     blockTimeMs: 2000 | null,   // the measured block cadence, when known
 *     sends: [{
 *       method: 'eth_getTransactionCount', // the "pending" view the transaction was looked for in
 *       sentAtMs: 0,              // eth_sendRawTransaction posted
 *       acceptedAtMs: 4,          // (optional) its answer arrived
 *       visibleAtMs: 31 | null,   // first "pending" answer that showed it; null: not seen before seal/deadline
 *       sealedAtMs: 1980 | null,  // first sealed ("latest") block seen holding it; null: not observed
 *     }, …],                      // one entry per transaction and method looked at
 *   }
 *
 * Read defensively: a malformed entry is dropped, a missing timeline draws no chart.
 */
export interface PreconfTimeline {
  flashblockMs: number;
  blockTimeMs: number | null;
  sends: TimelineSend[];
}

export interface TimelineSend {
  method: string;
  sentAtMs: number;
  acceptedAtMs?: number;
  visibleAtMs: number | null;
  sealedAtMs: number | null;
}

export interface Percentiles {
  n: number;
  min: number;
  p50: number;
  p95: number;
  max: number;
}

export interface LatencyDistribution extends Percentiles {
  /** Per method: percentiles, and the samples when the check recorded a timeline. */
  byMethod: Array<{ method: string; stats: Percentiles; samples?: number[] }>;
  /** The bounds the latency check judged against, when it recorded them. */
  boundsMs?: { p50?: number; p95?: number };
  flashblockMs: number;
  /** Where the figures come from: a timeline's samples, or the percentiles a check recorded. */
  source: string;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const SPEC_FLASHBLOCK_MS = 200;

export function readTimeline(metrics: Record<string, unknown> | undefined): PreconfTimeline | undefined {
  const t = metrics?.timeline;
  if (!isRecord(t) || !Array.isArray(t.sends)) return undefined;
  const sends = t.sends
    .filter((s): s is Record<string, unknown> => isRecord(s) && typeof s.method === 'string' && isNum(s.sentAtMs))
    .map((s) => ({
      method: s.method as string,
      sentAtMs: s.sentAtMs as number,
      ...(isNum(s.acceptedAtMs) ? { acceptedAtMs: s.acceptedAtMs } : {}),
      visibleAtMs: isNum(s.visibleAtMs) ? s.visibleAtMs : null,
      sealedAtMs: isNum(s.sealedAtMs) ? s.sealedAtMs : null,
    }));
  if (sends.length === 0) return undefined;
  return { flashblockMs: isNum(t.flashblockMs) && t.flashblockMs > 0 ? t.flashblockMs : SPEC_FLASHBLOCK_MS, blockTimeMs: isNum(t.blockTimeMs) ? t.blockTimeMs : null, sends };
}

export function timelinesOf(checks: CheckResult[]): Array<{ id: string; timeline: PreconfTimeline }> {
  return checks.flatMap((c) => {
    const timeline = readTimeline(c.metrics);
    return timeline ? [{ id: c.id, timeline }] : [];
  });
}

/** Nearest-rank percentiles, as the latency check computes them. */
export function percentiles(samples: readonly number[]): Percentiles | undefined {
  if (samples.length === 0) return undefined;
  const s = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => s[Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length))) - 1];
  const r = (v: number) => Math.round(v * 10) / 10;
  return { n: s.length, min: r(s[0]), p50: r(rank(50)), p95: r(rank(95)), max: r(s[s.length - 1]) };
}

function readPercentiles(v: unknown): Percentiles | undefined {
  if (!isRecord(v) || !isNum(v.p50) || !isNum(v.p95)) return undefined;
  return { n: isNum(v.n) ? v.n : 0, min: isNum(v.min) ? v.min : v.p50, p50: v.p50, p95: v.p95, max: isNum(v.max) ? v.max : v.p95 };
}

/**
 * Send → visible at "pending": from the timelines' samples when a check recorded one, else from
 * the percentiles preconf.latency.about-200ms records: `latencyJudged` ({n, min, p50, p95, max,
 * specRefreshMs, boundsMs}) overall and `latency` ({[method]: {p50, p95, max, n}}) per method.
 */
export function latencyOf(checks: CheckResult[]): LatencyDistribution | undefined {
  const timelines = timelinesOf(checks);
  const recorded = checks.map((c) => ({ id: c.id, m: c.metrics?.latencyJudged, byMethod: c.metrics?.latency })).find((x) => readPercentiles(x.m));
  const bounds = isRecord(recorded?.m) && isRecord(recorded.m.boundsMs) ? { ...(isNum(recorded.m.boundsMs.p50) ? { p50: recorded.m.boundsMs.p50 } : {}), ...(isNum(recorded.m.boundsMs.p95) ? { p95: recorded.m.boundsMs.p95 } : {}) } : undefined;
  const specMs = isRecord(recorded?.m) && isNum(recorded.m.specRefreshMs) ? recorded.m.specRefreshMs : SPEC_FLASHBLOCK_MS;

  const byMethod = new Map<string, number[]>();
  for (const { timeline } of timelines) {
    for (const s of timeline.sends) if (s.visibleAtMs !== null) byMethod.set(s.method, [...(byMethod.get(s.method) ?? []), s.visibleAtMs - s.sentAtMs]);
  }
  const all = [...byMethod.values()].flat();
  const overall = percentiles(all);
  if (overall) {
    return {
      ...overall,
      byMethod: [...byMethod].map(([method, samples]) => ({ method, stats: percentiles(samples)!, samples })),
      ...(bounds ? { boundsMs: bounds } : {}),
      flashblockMs: timelines[0].timeline.flashblockMs,
      source: `timeline of ${timelines.map((t) => t.id).join(', ')}`,
    };
  }
  if (!recorded) return undefined;
  const methods = isRecord(recorded.byMethod) ? recorded.byMethod : {};
  return {
    ...readPercentiles(recorded.m)!,
    byMethod: Object.entries(methods).flatMap(([method, v]) => {
      const stats = readPercentiles(v);
      return stats ? [{ method, stats }] : [];
    }),
    ...(bounds ? { boundsMs: bounds } : {}),
    flashblockMs: specMs,
    source: `percentiles recorded by ${recorded.id}`,
  };
}
