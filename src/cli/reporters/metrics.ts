import { isRecord } from '../../harness/json';
import type { Timeline } from '../../harness/preconf/pass';
import { SPEC_REFRESH_MS, type Percentiles } from '../../harness/preconf/timing';
import type { CheckResult } from '../../harness/runner';

/**
 * The report reads what preconf.latency.about-200ms (suites/preconf/latency.ts) records, and
 * nothing else:
 *
 *   metrics.timeline      the pass's Timeline (src/harness/preconf/pass.ts): times in ms from the
 *                         first send; a time not observed is left out
 *   metrics.latency       {[method]: {p50, p95, max, n}}: send → visible at "pending", per method
 *   metrics.latencyJudged {n, min, p50, p95, max, rttMs, pollIntervalMs, specRefreshMs, boundsMs}:
 *                         over all methods, written only when the check could judge it
 *
 * The figures shown are the ones the check recorded (and judged); the timeline only adds the
 * individual samples as dots. Read defensively: results.json may come from elsewhere.
 */

/** What metrics.latency holds per method. */
export type MethodLatency = Pick<Percentiles, 'n' | 'p50' | 'p95' | 'max'>;

export interface LatencyDistribution {
  /** The check that recorded it. */
  id: string;
  /** Over all methods, as judged (metrics.latencyJudged); absent when the check could not judge. */
  all?: Percentiles;
  /** Per method: the recorded percentiles, and the samples the timeline shows (send → visible, ms). */
  byMethod: Array<{ method: string; stats: MethodLatency; samples: number[] }>;
  /** The bounds the p50 and p95 were judged against. */
  boundsMs?: { p50: number; p95: number };
  /** The spec's refresh period the check used ("about every 200 ms"). */
  specRefreshMs: number;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const num = <K extends string>(o: Record<string, unknown>, k: K): { [P in K]?: number } => (isNum(o[k]) ? ({ [k]: o[k] } as { [P in K]?: number }) : {});

export function readTimeline(metrics: Record<string, unknown> | undefined): Timeline | undefined {
  const t = metrics?.timeline;
  if (!isRecord(t) || !Array.isArray(t.sends)) return undefined;
  const sends: Timeline['sends'] = t.sends
    .filter((s): s is Record<string, unknown> => isRecord(s) && typeof s.method === 'string' && isNum(s.sentAtMs))
    .map((s) => ({ method: s.method as string, sentAtMs: s.sentAtMs as number, ...num(s, 'visibleAtMs'), ...num(s, 'sealedAtMs') }));
  if (sends.length === 0) return undefined;
  return {
    ...(isNum(t.flashblockMs) && t.flashblockMs > 0 ? { flashblockMs: t.flashblockMs } : {}),
    ...(isNum(t.blockTimeMs) && t.blockTimeMs > 0 ? { blockTimeMs: t.blockTimeMs } : {}),
    sends,
  };
}

export function timelinesOf(checks: ReadonlyArray<Pick<CheckResult, 'id' | 'metrics'>>): Array<{ id: string; timeline: Timeline }> {
  return checks.flatMap((c) => {
    const timeline = readTimeline(c.metrics);
    return timeline ? [{ id: c.id, timeline }] : [];
  });
}

function readMethod(v: unknown): MethodLatency | undefined {
  if (!isRecord(v) || !isNum(v.n) || !isNum(v.p50) || !isNum(v.p95) || !isNum(v.max)) return undefined;
  return { n: v.n, p50: v.p50, p95: v.p95, max: v.max };
}

function readJudged(v: unknown): { all: Percentiles; boundsMs?: { p50: number; p95: number }; specRefreshMs?: number } | undefined {
  if (!isRecord(v) || !isNum(v.n) || !isNum(v.min) || !isNum(v.p50) || !isNum(v.p95) || !isNum(v.max)) return undefined;
  const b = v.boundsMs;
  return {
    all: { n: v.n, min: v.min, p50: v.p50, p95: v.p95, max: v.max },
    ...(isRecord(b) && isNum(b.p50) && isNum(b.p95) ? { boundsMs: { p50: b.p50, p95: b.p95 } } : {}),
    ...(isNum(v.specRefreshMs) && v.specRefreshMs > 0 ? { specRefreshMs: v.specRefreshMs } : {}),
  };
}

/** Send → visible at "pending", from the first check that recorded per-method latency. */
export function latencyOf(checks: ReadonlyArray<Pick<CheckResult, 'id' | 'metrics'>>): LatencyDistribution | undefined {
  for (const c of checks) {
    const recorded = c.metrics?.latency;
    if (!isRecord(recorded)) continue;
    const methods = Object.entries(recorded).flatMap(([method, v]) => {
      const stats = readMethod(v);
      return stats ? [{ method, stats }] : [];
    });
    if (methods.length === 0) continue;
    const sends = readTimeline(c.metrics)?.sends ?? [];
    const judged = readJudged(c.metrics?.latencyJudged);
    return {
      id: c.id,
      ...(judged ? { all: judged.all } : {}),
      byMethod: methods.map((m) => ({
        ...m,
        samples: sends.filter((s) => s.method === m.method && s.visibleAtMs !== undefined).map((s) => s.visibleAtMs! - s.sentAtMs),
      })),
      ...(judged?.boundsMs ? { boundsMs: judged.boundsMs } : {}),
      specRefreshMs: judged?.specRefreshMs ?? SPEC_REFRESH_MS,
    };
  }
  return undefined;
}
