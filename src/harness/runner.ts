import { Check, CheckContext, CheckMeta, CheckSettings, Interface, SharedScope, Status } from './check';
import { Blocked, CheckFailure, Inconclusive, Skip } from './verdict';
import { RateLimiter, ThrottledError, TransportError } from './http';
import { Redactor } from './redact';
import { RestClient } from './rest';
import { RpcClient } from './rpc';
import type { Signer } from './signer';
import { Exchange, Transcript } from './transcript';
import { jsonSafe } from './json';

export interface CheckResult extends CheckMeta {
  status: Status;
  reason: string;
  durationMs: number;
  /** For failures: the section actually violated (may differ from the check's own, e.g. 4.2). */
  failedSection?: string;
  expected?: unknown;
  actual?: unknown;
  notes?: string[];
  metrics?: Record<string, unknown>;
  /** Every exchange of a check that did not pass (bodies cut at 64 KiB); empty for passes. */
  exchanges: Exchange[];
  exchangeCount: number;
  /** Set when an expectations file names this check. */
  expectation?: { reason: string; link?: string; outcome: 'expected-failure' | 'unexpected-pass' };
  /** Not judged because a prerequisite failed: the id of the root check, or `target unreachable: rest|rpc`. Status is `inconclusive`. */
  blockedBy?: string;
  /** Skipped by the user's own choice of scope (a missing URL, no --signer-key, the profile, --only/--grep, no --archive, no --nav-max-age): what was left out, e.g. `no --signer-key`. */
  outOfScope?: string;
}

export interface RunEnv {
  baseUrl?: string;
  rpcUrl?: string;
  restHeaders: Record<string, string>;
  rpcHeaders: Record<string, string>;
  settings: CheckSettings;
  redactor: Redactor;
  signer?: Signer;
  /** Interfaces found unreachable before the run, with the transport error. */
  unreachable?: { rest?: string; rpc?: string };
  signal: AbortSignal;
  /** --max-rps: one limiter shared by every client of the run. */
  limiter?: RateLimiter;
}

export interface RunOptions {
  concurrency: number;
  /** Upper bound for one check, whatever it waits for. */
  checkTimeoutMs?: number;
  /** A check begins (the console's progress line shows what is running). */
  onStart?(check: Check): void;
  onResult?(result: CheckResult): void;
}

/**
 * Why a check cannot run in this environment, or undefined when it can. Every unmet need is the
 * user's choice of scope (a URL or key not given, the profile chosen): `outOfScope` names it.
 */
export function unmetNeed(check: CheckMeta, env: Pick<RunEnv, 'baseUrl' | 'rpcUrl' | 'signer' | 'settings'>): { reason: string; outOfScope: string } | undefined {
  for (const need of check.needs) {
    if (need === 'rest' && !env.baseUrl) return { reason: 'needs --base-url (REST target)', outOfScope: 'no --base-url' };
    if (need === 'rpc' && !env.rpcUrl) return { reason: 'needs --rpc-url (JSON-RPC target)', outOfScope: 'no --rpc-url' };
    if (need === 'signer' && !env.signer) return { reason: 'needs --signer-key', outOfScope: 'no --signer-key' };
    if (need === 'profile:public' && env.settings.profile !== 'public') return { reason: 'applies to --profile public only', outOfScope: `profile ${env.settings.profile}` };
    if (need === 'profile:dedicated' && env.settings.profile !== 'dedicated') return { reason: 'applies to --profile dedicated only', outOfScope: `profile ${env.settings.profile}` };
    if (need === 'openapi' && !env.settings.openapi) return { reason: "needs --openapi (the API's published OpenAPI document)", outOfScope: 'no --openapi' };
  }
  return undefined;
}

/** The result of a check the user left out of the run (--only, --grep): skipped, never dropped. */
export function notSelected(check: CheckMeta, outOfScope: string): CheckResult {
  const { id, title, section, level, needs } = check;
  return { id, title, section, level, needs, status: 'skipped', reason: `not selected (${outOfScope})`, durationMs: 0, exchanges: [], exchangeCount: 0, outOfScope };
}


/**
 * The check that states "target unreachable" for an interface, when it is selected: the most
 * basic rule of each (the list answers 200, 4.1; a call is answered with HTTP 200, 4.2). Every
 * other check of the interface is blocked by `target unreachable: <interface>`.
 */
const UNREACHABLE_ROOT: Readonly<Record<Interface, { id: string; section: string }>> = {
  rest: { id: 'rest.list.status-200', section: '4.1' },
  rpc: { id: 'rpc.envelope.http-200', section: '4.2' },
};

function errorDetail(err: unknown, redactor: Redactor): Pick<CheckResult, 'status' | 'reason' | 'failedSection' | 'expected' | 'actual' | 'outOfScope'> {
  // A Blocked signal is first recorded as the failure it would be; settleBlocked decides.
  if (err instanceof CheckFailure || err instanceof Blocked) {
    return { status: 'failed', reason: redactor.text(err.message), failedSection: err.detail.section, expected: jsonSafe(err.detail.expected), actual: jsonSafe(err.detail.actual) };
  }
  if (err instanceof Skip) return { status: 'skipped', reason: err.message, ...(err.outOfScope ? { outOfScope: err.outOfScope } : {}) };
  if (err instanceof Inconclusive) return { status: 'inconclusive', reason: err.message };
  // The provider kept asking us to slow down: nothing was observed about the interface.
  if (err instanceof ThrottledError) return { status: 'inconclusive', reason: `throttled: ${redactor.text(err.message)}` };
  // No HTTP answer where the rule needs one: the target did not serve the interface.
  if (err instanceof TransportError) return { status: 'failed', reason: `no answer: ${err.message}` };
  // A bug in a check must never turn into a verdict about the target.
  return { status: 'inconclusive', reason: `internal error in check (not a verdict): ${redactor.text(String((err as Error)?.stack ?? err))}` };
}

/** The run's shared observations (CheckContext.shared): each outcome, and its exchanges by lane. */
type SharedObservations = Map<string, { outcome: Promise<unknown>; exchanges: Array<{ lane: string; exchange: Exchange }> }>;

function shareObservation(shared: SharedObservations, env: RunEnv, limitMs: number, key: string, observe: (scope: SharedScope) => Promise<unknown>) {
  let entry = shared.get(key);
  if (!entry) {
    const exchanges: Array<{ lane: string; exchange: Exchange }> = [];
    // Bounded like a check: the run's signal, and the same per-check time limit.
    const signal = AbortSignal.any([env.signal, AbortSignal.timeout(limitMs)]);
    const laneTranscript = (lane: string): Transcript => ({ exchanges: [], add: (exchange) => void exchanges.push({ lane, exchange }) });
    const scope: SharedScope = {
      // The run's --max-rps limiter too: the pass is the busiest part of a run.
      rpc: (lane) => new RpcClient(env.rpcUrl ?? 'http://127.0.0.1:9', env.rpcHeaders, { timeoutMs: env.settings.timeoutMs, redactor: env.redactor, transcript: laneTranscript(lane), signal, limiter: env.limiter }),
      rest: (lane) => new RestClient(env.baseUrl ?? 'http://127.0.0.1:9', env.restHeaders, { timeoutMs: env.settings.timeoutMs, redactor: env.redactor, transcript: laneTranscript(lane), signal, limiter: env.limiter }),
      signer: env.signer,
      settings: env.settings,
      signal,
    };
    entry = { outcome: observe(scope), exchanges };
    // Every asker handles the outcome; this only keeps an unasked rejection from going unhandled.
    entry.outcome.catch(() => undefined);
    shared.set(key, entry);
  }
  return entry;
}

/** A result and, when the check could not observe its subject, what blocked it (settled later). */
interface Outcome {
  result: CheckResult;
  /** The root check id, or `target unreachable: rest|rpc`. */
  cause?: string;
}

async function runOne(check: Check, env: RunEnv, opts: RunOptions, shared: SharedObservations): Promise<Outcome> {
  const started = performance.now();
  const base = { id: check.id, title: check.title, section: check.section, level: check.level, needs: check.needs };
  const done = (r: Partial<CheckResult> & Pick<CheckResult, 'status' | 'reason'>, transcript?: Transcript): CheckResult => {
    const exchanges = transcript?.exchanges ?? [];
    // Redacted whole, at the source: reasons, notes, expected/actual may quote what a server sent.
    return env.redactor.value({ ...base, durationMs: Math.round(performance.now() - started), ...r, exchanges: r.status === 'passed' ? [] : exchanges, exchangeCount: exchanges.length });
  };

  const unmet = unmetNeed(check, env);
  if (unmet) return { result: done({ status: 'skipped', ...unmet }) };
  if (env.signal.aborted) return { result: done({ status: 'skipped', reason: `not run: ${String(env.signal.reason)}` }) };
  const down = (['rest', 'rpc'] as const).find((i) => check.needs.includes(i) && env.unreachable?.[i]);
  if (down) {
    // Recorded as the failure this check states if it stands in for the interface; settleBlocked decides.
    const failure = done({ status: 'failed', reason: `target unreachable: ${env.unreachable![down]}`, failedSection: UNREACHABLE_ROOT[down].section });
    return { result: failure, cause: `target unreachable: ${down}` };
  }

  const transcript = new Transcript();
  // The document was fetched once before the run: its fetch is part of what each of its checks judged.
  if (check.needs.includes('openapi') && env.settings.openapi?.exchange) transcript.add(env.settings.openapi.exchange);
  const limit = opts.checkTimeoutMs ?? 120_000;
  const checkSignal = AbortSignal.any([env.signal, AbortSignal.timeout(limit)]);
  const http = { timeoutMs: env.settings.timeoutMs, redactor: env.redactor, transcript, signal: checkSignal, limiter: env.limiter };
  const notes: string[] = [];
  const metrics: Record<string, unknown> = {};
  const ctx: CheckContext = {
    meta: base,
    rest: new RestClient(env.baseUrl ?? 'http://127.0.0.1:9', env.restHeaders, http),
    rpc: new RpcClient(env.rpcUrl ?? 'http://127.0.0.1:9', env.rpcHeaders, http),
    signer: env.signer as Signer,
    settings: env.settings,
    signal: checkSignal,
    metric: (name, value) => void (metrics[name] = jsonSafe(value)),
    note: (text) => void notes.push(env.redactor.text(text)),
    shared: async <T>(key: string, lanes: readonly string[], observe: (scope: SharedScope) => Promise<T>): Promise<T> => {
      const entry = shareObservation(shared, env, limit, key, observe);
      try {
        return (await entry.outcome) as T;
      } finally {
        for (const { lane, exchange } of entry.exchanges) if (lanes.includes(lane)) transcript.add(exchange);
      }
    },
  };
  const extras = (): Partial<CheckResult> => ({ ...(notes.length ? { notes } : {}), ...(Object.keys(metrics).length ? { metrics } : {}) });

  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const onAbort = () => reject(new Inconclusive(env.signal.aborted ? `stopped: ${String(env.signal.reason)}` : `check did not finish within ${limit} ms (the suite's own time limit for a check: not a verdict about the target)`));
    if (checkSignal.aborted) onAbort();
    checkSignal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(onAbort, limit + 1000);
  });
  try {
    await Promise.race([check.run(ctx), stopped]);
    return { result: done({ status: 'passed', reason: '', ...extras() }, transcript) };
  } catch (err) {
    const result = done({ ...errorDetail(err, env.redactor), ...extras() }, transcript);
    // Blocked by its own rule is this check's own failure.
    return err instanceof Blocked && err.root !== check.id ? { result, cause: err.root } : { result };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Run checks with bounded concurrency. Checks that need the signer share one account (its
 * nonce, its budget) and so run one at a time in their own lane, beside the read-only pool.
 */
export async function runChecks(checks: Check[], env: RunEnv, opts: RunOptions): Promise<CheckResult[]> {
  const results = new Array<CheckResult>(checks.length);
  const causes = new Map<number, string>();
  const shared: SharedObservations = new Map();
  const execute = async (i: number): Promise<void> => {
    opts.onStart?.(checks[i]);
    const { result, cause } = await runOne(checks[i], env, opts, shared);
    results[i] = result;
    // A blocked check is reported once its root's verdict is known, after the run.
    if (cause) causes.set(i, cause);
    else opts.onResult?.(result);
  };
  const inSignerLane = (c: Check) => c.needs.includes('signer') && !unmetNeed(c, env);
  const lane = checks.map((c, i) => (inSignerLane(c) ? i : -1)).filter((i) => i >= 0);
  const pool = checks.map((c, i) => (inSignerLane(c) ? -1 : i)).filter((i) => i >= 0);
  const sequential = async (queue: number[]): Promise<void> => {
    while (queue.length > 0) await execute(queue.shift()!);
  };
  const workers = Math.max(1, Math.min(opts.concurrency, pool.length));
  await Promise.all([sequential(lane), ...Array.from({ length: workers }, () => sequential(pool))]);
  settleBlocked(results, causes);
  for (const i of [...causes.keys()].sort((a, b) => a - b)) opts.onResult?.(results[i]);
  return results;
}

/**
 * One root cause, one failure. Each check that could not observe its subject was recorded as
 * the failure it saw, with its cause: a root check id (thrown as Blocked) or an unreachable
 * interface. Per cause:
 * - the root check failed in this run: every blocked check becomes `inconclusive`, blockedBy it;
 * - otherwise (the root was not selected, or passed on its own request, or the interface is
 *   unreachable) one blocked check stands in and keeps its failure, which cites the root's
 *   rule: the designated root of an unreachable interface when selected, else the first
 *   required one in report order. The others are blocked by it (by `target unreachable: …`
 *   for an interface).
 * A root that was itself blocked passes its own blocker on, so a chain names its first link.
 */
function settleBlocked(results: CheckResult[], causes: Map<number, string>): void {
  const groups = new Map<string, number[]>();
  for (const [i, cause] of [...causes.entries()].sort(([a], [b]) => a - b)) groups.set(cause, [...(groups.get(cause) ?? []), i]);
  const indexOf = new Map(results.map((r, i) => [r.id, i]));
  const settled = new Set<string>();
  const settle = (cause: string, visiting: Set<string>): void => {
    if (settled.has(cause)) return;
    settled.add(cause);
    const members = groups.get(cause) ?? [];
    const unreachable = cause.startsWith('target unreachable: ') ? (cause.slice('target unreachable: '.length) as Interface) : undefined;
    const rootIndex = unreachable ? undefined : indexOf.get(cause);
    // The root is itself blocked: settle its cause first (a cycle, impossible in practice, is cut).
    const rootCause = rootIndex === undefined ? undefined : causes.get(rootIndex);
    if (rootCause && !visiting.has(rootCause)) settle(rootCause, new Set([...visiting, cause]));
    const root = rootIndex === undefined ? undefined : results[rootIndex];
    let by: string | undefined = root?.status === 'failed' ? cause : root?.status === 'inconclusive' ? root.blockedBy : undefined;
    let standIn: number | undefined;
    if (!by) {
      const designated = unreachable ? members.find((i) => results[i].id === UNREACHABLE_ROOT[unreachable].id) : undefined;
      standIn = designated ?? members.find((i) => results[i].level === 'required') ?? members[0];
      const stated = results[standIn];
      if (!unreachable) {
        const why = root ? `${cause} passed on its own request, so the answer changed between requests` : `${cause}, which judges that rule, was not selected`;
        results[standIn] = { ...stated, reason: `${stated.reason} (stated here: ${why})` };
      }
      by = unreachable ? cause : stated.id;
    }
    for (const i of members) {
      if (i === standIn) continue;
      const { failedSection: _s, expected: _e, actual: _a, ...rest } = results[i];
      results[i] = { ...rest, status: 'inconclusive', reason: `blocked by ${by}: ${rest.reason}`, blockedBy: by };
    }
  };
  for (const cause of groups.keys()) settle(cause, new Set());
}
