import { Check, CheckMeta, Need, RunContext, SharedOptions, SharedScope } from './check';
import { Blocked, CheckFailure, Inconclusive, notGiven, violationOf, type OutOfScope } from './verdict';
import { Connections } from './http';
import { sealedResult } from './mask-result';
import { RestClient } from './rest';
import { RpcClient } from './rpc';
import { Transcript } from './transcript';
import { jsonSafe } from './json';
import { errorDetail, evidenceDetail, keptExchanges, stoppedDetail, type Blocker, type CheckResult, type Detail } from './result';
import { Evidence, withPage } from './evidence';
import type { RunEnv } from './run-env';
import { askShared, sharedOpenedWith, type SharedObservations } from './shared';
import { runWaves, type SamplingPlan } from './sampling';
import { Slots } from './slots';
import { timeLimited } from './time-limit';
import { prejudged, publicRefusal, rememberFact } from './interface-facts';

export { EXCHANGE_BUDGET_BYTES, type CheckResult } from './result';
export type { OpenedWith, RunEnv } from './run-env';

export interface RunOptions {
  concurrency: number;
  /** Upper bound for one check, whatever it waits for. */
  checkTimeoutMs?: number;
  /** A check begins (the console's progress line shows what is running). */
  onStart?(check: Check): void;
  /**
   * Each result as it is recorded. One with a `blocker` is not decided yet: what it means (blocked
   * by its root, standing in for it, its own fault) is decided with the whole run's results, by
   * the verdict (src/verdict/root-causes.ts).
   */
  onResult?(result: CheckResult): void;
  /** --samples N > 1: every read-only check is run N times (see runSampled). */
  sampling?: SamplingPlan;
}

/**
 * Why a check cannot run in this environment, or undefined when it can. Every unmet need is the
 * user's choice of scope (a URL or key not given, the profile chosen): `outOfScope` names it.
 */
export function unmetNeed(
  check: CheckMeta,
  env: Pick<RunEnv, 'baseUrl' | 'rpcUrl' | 'signer' | 'settings'>,
): { reason: string; outOfScope: OutOfScope } | undefined {
  const profile: OutOfScope = { flag: '--profile', words: `profile ${env.settings.profile}` };
  for (const need of check.needs) {
    if (need === 'rest' && !env.baseUrl) return { reason: 'needs --base-url (REST target)', outOfScope: notGiven('--base-url') };
    if (need === 'rpc' && !env.rpcUrl) return { reason: 'needs --rpc-url (JSON-RPC target)', outOfScope: notGiven('--rpc-url') };
    if (need === 'signer' && !env.signer) return { reason: 'needs --signer-key', outOfScope: notGiven('--signer-key') };
    if (need === 'profile:public' && env.settings.profile !== 'public') return { reason: 'applies to --profile public only', outOfScope: profile };
    if (need === 'profile:dedicated' && env.settings.profile !== 'dedicated') return { reason: 'applies to --profile dedicated only', outOfScope: profile };
    if (need === 'openapi' && !env.settings.openapi)
      return { reason: "needs --openapi (the API's published OpenAPI document)", outOfScope: notGiven('--openapi') };
  }
  return undefined;
}

/** How --only or --grep left a check out of the run. */
export type Deselection = OutOfScope & { flag: '--only' | '--grep' };

/** The result of a check the user left out of the run (--only, --grep): skipped, never dropped. */
export function notSelected(check: CheckMeta, by: Deselection): CheckResult {
  const { id, title, statements, section, level, needs } = check;
  return {
    id,
    title,
    statements,
    section,
    level,
    needs,
    status: 'skipped',
    cause: 'deselected',
    reason: `not selected (${by.words})`,
    durationMs: 0,
    exchanges: [],
    exchangeCount: 0,
    outOfScope: by,
  };
}

/** A result and, when the check could not observe its subject, what blocked it (see Blocker). */
interface Outcome {
  result: CheckResult;
  blocker?: Blocker;
}

/** The result as recorded: with its blocker, for the verdict to decide. */
const recorded = ({ result, blocker }: Outcome): CheckResult => (blocker ? { ...result, blocker } : result);

/** One check; `slots`: those of the read-only checks, which a throttled answer shrinks (see Slots). */
async function runOne(check: Check, env: RunEnv, opts: RunOptions, shared: SharedObservations, slots?: Slots): Promise<Outcome> {
  const started = performance.now();
  const base = { id: check.id, title: check.title, statements: check.statements, section: check.section, level: check.level, needs: check.needs };
  const done = (r: Partial<CheckResult> & Pick<CheckResult, 'status' | 'reason'>, transcript?: Transcript): CheckResult => {
    const exchanges = transcript?.exchanges ?? [];
    const result = { ...base, durationMs: Math.round(performance.now() - started), ...r };
    return sealedResult({ ...result, exchanges: r.status === 'passed' ? [] : keptExchanges(exchanges), exchangeCount: exchanges.length }, env.redactor);
  };

  const unmet = unmetNeed(check, env);
  if (unmet) return { result: done({ status: 'skipped', cause: 'out-of-scope', ...unmet }) };
  if (env.signal.aborted) return { result: done({ status: 'skipped', cause: 'stopped', reason: `not run: ${String(env.signal.reason)}` }) };
  // An interface found unreachable, or its backend down, when the run opened (see interface-facts.ts).
  const fact = prejudged(check, env);
  if (fact) return { result: done(fact.detail), ...(fact.blocker ? { blocker: fact.blocker } : {}) };

  const transcript = new Transcript();
  // The document was fetched once before the run: its fetch is part of what each of its checks judged.
  if (check.needs.includes('openapi') && env.settings.openapi?.exchange) transcript.add(env.settings.openapi.exchange);
  const limit = opts.checkTimeoutMs ?? 120_000;
  const limited = timeLimited(env.signal, limit);
  const checkSignal = limited.signal;
  const http = {
    timeoutMs: env.settings.timeoutMs,
    redactor: env.redactor,
    transcript,
    signal: checkSignal,
    afterOpen: true,
    limiter: env.limiter,
    connections: env.connections,
    answers: env.answers,
    ...slots?.clientHooks(),
  };
  const notes: string[] = [];
  const metrics: Record<string, unknown> = {};
  /** The shared observations this check asked for: what they have shown is this check's too, also when it is stopped waiting. */
  const asked: Array<() => void> = [];
  // This check's page of the run's evidence: each violation it sees is appended there at once.
  const page = (env.evidence ?? new Evidence()).open(check.id);
  // Exactly the clients the check declared (unmetNeed made sure the run has them): see CheckContext.
  const declared = (need: Need) => check.needs.includes(need);
  const { openapi } = env.settings;
  const ctx: RunContext = {
    meta: base,
    ...(declared('rest') && env.baseUrl ? { rest: new RestClient(env.baseUrl, env.restHeaders, http) } : {}),
    ...(declared('rpc') && env.rpcUrl ? { rpc: new RpcClient(env.rpcUrl, env.rpcHeaders, http) } : {}),
    ...(declared('signer') && env.signer ? { signer: env.signer } : {}),
    // Read or fetched once before the run (main), so every check judges the same text.
    ...(declared('openapi') && openapi ? { openapi } : {}),
    settings: env.settings,
    signal: checkSignal,
    metric: (name, value) => void (metrics[name] = jsonSafe(value)),
    note: (text) => void notes.push(env.redactor.text(text)),
    violation: (message, detail = {}) => page.record({ message, ...detail }),
    acrossSamples: <T extends object>(key: string, init: () => T): T => {
      // runChecks opens them once for the run; one opened here would be one per wave, not per run.
      const records = env.acrossSamples;
      if (!records) throw new Error('a check ran outside runChecks: no records across samples');
      if (!records.has(key)) records.set(key, init());
      return records.get(key) as T;
    },
    shared: <T>(key: string, lanes: readonly string[], observe: (scope: SharedScope) => Promise<T>, sharing?: SharedOptions<T>): Promise<T> => {
      const ask = askShared(shared, env, limit, key, lanes, observe, slots, (exchange) => transcript.add(exchange), sharing);
      asked.push(ask.handOver);
      return ask.outcome;
    },
  };
  const extras = (): Partial<CheckResult> => ({ ...(notes.length ? { notes } : {}), ...(Object.keys(metrics).length ? { metrics } : {}) });

  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const stopped = new Promise<never>((_, reject) => {
    // The cause is set in the catch below from the signals themselves; this only ends the wait.
    onAbort = () => reject(new Inconclusive('stopped'));
    if (checkSignal.aborted) onAbort();
    checkSignal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(onAbort, limit + 1000);
  });
  let ending: Detail = { status: 'passed', reason: '' };
  let blocker: Blocker | undefined;
  try {
    await Promise.race([withPage(page, () => check.run(ctx)), stopped]);
  } catch (thrown) {
    const err = publicRefusal(thrown, env);
    rememberFact(thrown, env);
    // A failure thrown is evidence like one recorded (fail() has already put it on the page;
    // one thrown another way is put there now). Blocked by its own rule is this check's failure.
    if (err instanceof CheckFailure || (err instanceof Blocked && err.root === check.id)) page.record(violationOf(err), err);
    else {
      ending = (checkSignal.aborted && stoppedDetail(err, env.signal, limit)) || errorDetail(err, env.redactor);
      if (err instanceof Blocked) blocker = { root: err.root, onlyIfRootFailed: err.onlyIfRootFailed, ownEvidence: err.ownEvidence };
    }
  } finally {
    for (const handOver of asked) handOver();
    clearTimeout(timer);
    // Its listener would keep this check's outcome (and every answer the failure quotes) alive.
    checkSignal.removeEventListener('abort', onAbort);
    limited.release();
  }
  const seen = page.violations;
  // Nothing seen: the check is what ended it (a pass, a skip, not judged, blocked by another's rule).
  if (seen.length === 0) return { result: done({ ...ending, ...extras() }, transcript), ...(blocker ? { blocker } : {}) };
  // A failure names the statements it violated: those it named, else all the check declares.
  // A check declares every statement it can fail (so a grep from a statement finds it): one
  // naming another is a bug of the suite, never a verdict about the target.
  const undeclared = [...new Set(seen.flatMap((v) => (v.violated ?? []).filter((s) => !check.statements.includes(s))))];
  if (undeclared.length) {
    const reason = `internal error in check (not a verdict): it failed citing ${undeclared.join(', ')}, which it does not declare (${check.statements.join(', ')}): ${env.redactor.text(seen[0].message)}`;
    return { result: done({ status: 'inconclusive', cause: 'internal', reason, ...extras() }, transcript) };
  }
  // What the check saw stands, whatever ended it afterwards; that ending is stated beside it.
  return { result: done({ ...evidenceDetail(seen, page.count, check.statements, env.redactor, ending), ...extras() }, transcript) };
}

/**
 * Run checks with bounded concurrency. Checks that need the signer share one account (its
 * nonce, its budget) and so run one at a time in their own lane, beside the read-only pool.
 */
export async function runChecks(checks: Check[], given: RunEnv, opts: RunOptions): Promise<CheckResult[]> {
  // One evidence ledger and one set of records across samples for the whole run (every wave copies env).
  const env: RunEnv = { ...given, evidence: given.evidence ?? new Evidence(), acrossSamples: given.acrossSamples ?? new Map() };
  const results = new Array<CheckResult>(checks.length);
  // The probe's list is judged once: by the run without samples, or by its first wave.
  let opened = env.openedWith;
  const firstShared = (): SharedObservations => {
    const shared = sharedOpenedWith(opened);
    opened = undefined;
    return shared;
  };
  const sampled = (opts.sampling?.n ?? 1) > 1;
  const shared: SharedObservations = sampled ? new Map() : firstShared();
  const execute = async (i: number, slots?: Slots): Promise<void> => {
    opts.onStart?.(checks[i]);
    results[i] = recorded(await runOne(checks[i], env, opts, shared, slots));
    opts.onResult?.(results[i]);
  };
  const inSignerLane = (c: Check) => c.needs.includes('signer') && !unmetNeed(c, env);
  const lane = checks.map((c, i) => (inSignerLane(c) ? i : -1)).filter((i) => i >= 0);
  const pool = checks.map((c, i) => (inSignerLane(c) ? -1 : i)).filter((i) => i >= 0);
  const sequential = async (queue: number[], slots?: Slots): Promise<void> => {
    while (queue.length > 0) await execute(queue.shift()!, slots);
  };
  const workers = Math.max(1, Math.min(opts.concurrency, pool.length));
  // Read-only checks in order, `workers` asking at once (see Slots).
  const poolSlots = new Slots(workers);
  const pooled = (queue: number[]): Promise<unknown> =>
    Promise.all(
      queue.map(async (i) => {
        await poolSlots.take();
        try {
          await execute(i, poolSlots);
        } finally {
          poolSlots.give();
        }
      }),
    );
  // A check that cannot run here (out of scope, interface unreachable) is settled once, not N times.
  const runnable = (i: number) =>
    !unmetNeed(checks[i], env) && !(['rest', 'rpc'] as const).some((f) => checks[i].needs.includes(f) && (env.unreachable?.[f] || env.gateway?.[f]));
  // The signer's lane takes no slot, but its throttled answers shrink the pool's too: one target.
  const signerLane = sequential(lane, sampled ? undefined : poolSlots);
  // A check that asks the target nothing (it judges the --openapi document read before the run) has one answer to judge, not N.
  const sampledHere = (i: number) => runnable(i) && (['rest', 'rpc'] as const).some((f) => checks[i].needs.includes(f));
  const readOnly = sampled
    ? [
        sequential(pool.filter((i) => !sampledHere(i))),
        // The waves after the first wait for the signer's lane: the pre-confirmation pass times
        // seals and refreshes, and N waves of reads beside it would load the node it times.
        runWaves<RunEnv & { shared: SharedObservations }, Blocker>(pool.filter(sampledHere), opts.sampling!, opts.concurrency, env.signal, signerLane, {
          // Each wave has its own connections and its own shared observations.
          open: () => ({ ...env, connections: new Connections(), shared: firstShared() }),
          close: (wave) => wave.connections!.close(),
          started: (i) => opts.onStart?.(checks[i]),
          run: (i, wave, slots) => runOne(checks[i], wave, opts, wave.shared, slots),
          settled: (i, outcome) => {
            results[i] = recorded(outcome);
            opts.onResult?.(results[i]);
          },
        }),
      ]
    : [pooled(pool)];
  await Promise.all([signerLane, ...readOnly]);
  return results;
}
