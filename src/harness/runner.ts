import { Check, CheckContext, CheckMeta, CheckSettings, Status } from './check';
import { CheckFailure, Inconclusive, Skip } from './verdict';
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
  onResult?(result: CheckResult): void;
}

/** Why a check cannot run in this environment, or undefined when it can. */
export function unmetNeed(check: CheckMeta, env: Pick<RunEnv, 'baseUrl' | 'rpcUrl' | 'signer' | 'settings'>): string | undefined {
  for (const need of check.needs) {
    if (need === 'rest' && !env.baseUrl) return 'needs --base-url (REST target)';
    if (need === 'rpc' && !env.rpcUrl) return 'needs --rpc-url (JSON-RPC target)';
    if (need === 'signer' && !env.signer) return 'needs --signer-key';
    if (need === 'profile:public' && env.settings.profile !== 'public') return 'applies to --profile public only';
    if (need === 'profile:dedicated' && env.settings.profile !== 'dedicated') return 'applies to --profile dedicated only';
  }
  return undefined;
}

function errorDetail(err: unknown, redactor: Redactor): Pick<CheckResult, 'status' | 'reason' | 'failedSection' | 'expected' | 'actual' | 'outOfScope'> {
  if (err instanceof CheckFailure) {
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

async function runOne(check: Check, env: RunEnv, opts: RunOptions): Promise<CheckResult> {
  const started = performance.now();
  const base = { id: check.id, title: check.title, section: check.section, level: check.level, needs: check.needs };
  const done = (r: Partial<CheckResult> & Pick<CheckResult, 'status' | 'reason'>, transcript?: Transcript): CheckResult => {
    const exchanges = transcript?.exchanges ?? [];
    // Redacted whole, at the source: reasons, notes, expected/actual may quote what a server sent.
    return env.redactor.value({ ...base, durationMs: Math.round(performance.now() - started), ...r, exchanges: r.status === 'passed' ? [] : exchanges, exchangeCount: exchanges.length });
  };

  const unmet = unmetNeed(check, env);
  if (unmet) return done({ status: 'skipped', reason: unmet });
  if (env.signal.aborted) return done({ status: 'skipped', reason: `not run: ${String(env.signal.reason)}` });
  const down = check.needs.includes('rest') && env.unreachable?.rest ? env.unreachable.rest : check.needs.includes('rpc') && env.unreachable?.rpc ? env.unreachable.rpc : undefined;
  if (down) return done({ status: 'failed', reason: `target unreachable: ${down}` });

  const transcript = new Transcript();
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
  };
  const extras = (): Partial<CheckResult> => ({ ...(notes.length ? { notes } : {}), ...(Object.keys(metrics).length ? { metrics } : {}) });

  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const onAbort = () => reject(new Inconclusive(env.signal.aborted ? `stopped: ${String(env.signal.reason)}` : `check did not finish within ${limit} ms`));
    if (checkSignal.aborted) onAbort();
    checkSignal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(onAbort, limit + 1000);
  });
  try {
    await Promise.race([check.run(ctx), stopped]);
    return done({ status: 'passed', reason: '', ...extras() }, transcript);
  } catch (err) {
    return done({ ...errorDetail(err, env.redactor), ...extras() }, transcript);
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
  const execute = async (i: number): Promise<void> => {
    results[i] = await runOne(checks[i], env, opts);
    opts.onResult?.(results[i]);
  };
  const inSignerLane = (c: Check) => c.needs.includes('signer') && !unmetNeed(c, env);
  const lane = checks.map((c, i) => (inSignerLane(c) ? i : -1)).filter((i) => i >= 0);
  const pool = checks.map((c, i) => (inSignerLane(c) ? -1 : i)).filter((i) => i >= 0);
  const sequential = async (queue: number[]): Promise<void> => {
    while (queue.length > 0) await execute(queue.shift()!);
  };
  const workers = Math.max(1, Math.min(opts.concurrency, pool.length));
  await Promise.all([sequential(lane), ...Array.from({ length: workers }, () => sequential(pool))]);
  return results;
}
