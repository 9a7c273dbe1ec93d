// The run's shared observations (CheckContext.shared): one observation several checks judge,
// made once by the first to ask, its exchanges kept by lane for the checks that name them.
import type { SharedOptions, SharedScope } from './check';
import { outsidePages } from './evidence';
import { LIST_KEY } from './records';
import { RestClient } from './rest';
import type { OpenedWith, RunEnv } from './run-env';
import { RpcClient } from './rpc';
import type { Slots } from './slots';
import { timeLimited } from './time-limit';
import type { Exchange, Transcript } from './transcript';

/** The run's shared observations (CheckContext.shared): each outcome, and its exchanges by lane. */
export type SharedObservations = Map<string, { outcome: Promise<unknown>; exchanges: Array<{ lane: string; exchange: Exchange }> }>;

export function shareObservation<T>(
  shared: SharedObservations,
  env: RunEnv,
  limitMs: number,
  key: string,
  observe: (scope: SharedScope) => Promise<T>,
  slots?: Slots,
  opts: SharedOptions<T> = {},
) {
  let entry = shared.get(key);
  if (!entry) {
    const exchanges: Array<{ lane: string; exchange: Exchange }> = [];
    // Bounded like a check: the run's signal, and the same per-check time limit.
    const { signal, release } = timeLimited(env.signal, limitMs);
    const laneTranscript = (lane: string): Transcript => ({ exchanges: [], add: (exchange) => void exchanges.push({ lane, exchange }) });
    // A client's options for one lane: its exchanges kept under the lane, the run's --max-rps limiter too.
    const http = (lane: string) => ({
      timeoutMs: env.settings.timeoutMs,
      redactor: env.redactor,
      transcript: laneTranscript(lane),
      signal,
      limiter: env.limiter,
      connections: env.connections,
      answers: env.answers,
      ...slots?.clientHooks(),
    });
    const scope: SharedScope = {
      // An observation made of others (a scan of blocks that other scans read too): each asked
      // once, their exchanges of `lanes` kept with this one's under their own lanes.
      shared: (inner, lanes, observeInner, innerOpts) =>
        askShared(shared, env, limitMs, inner, lanes, observeInner, slots, (exchange, lane) => void exchanges.push({ lane, exchange }), innerOpts).outcome,
      // The pass is the busiest part of a run: it obeys --max-rps like every client.
      rpc: (lane) => {
        if (!env.rpcUrl) throw new Error('a shared observation asked for JSON-RPC, but the run has no --rpc-url');
        return new RpcClient(env.rpcUrl, env.rpcHeaders, http(lane));
      },
      rest: (lane) => {
        if (!env.baseUrl) throw new Error('a shared observation asked for REST, but the run has no --base-url');
        return new RestClient(env.baseUrl, env.restHeaders, http(lane));
      },
      signer: env.signer,
      settings: env.settings,
      signal,
    };
    // Observed for every asker, on no asker's page: a failure it throws is recorded by each asker.
    entry = { outcome: outsidePages(() => observe(scope)), exchanges };
    void entry.outcome.then(release, release);
    // Every asker handles the outcome; this only keeps an unasked rejection from going unhandled.
    entry.outcome.catch(() => undefined);
    shared.set(key, entry);
    const { keepIf } = opts;
    if (keepIf) {
      // Asked again by the next asker once settled: a rejection, or an outcome keepIf refuses
      // (one backend's refusal must not stand for the run). Askers meanwhile share this one.
      const made = entry;
      const drop = () => void (shared.get(key) === made && shared.delete(key));
      made.outcome.then((value) => !keepIf(value as T) && drop(), drop);
    }
  }
  return entry;
}

/**
 * The outcome of the shared observation `key` (made now by the first to ask), its exchanges of
 * `lanes` handed to `keep` once it has settled, so each asker shows what it judged; or earlier,
 * by `handOver`, those it has so far (an asker stopped while it waits shows the exchanges it
 * waited on). Handed over once.
 */
export function askShared<T>(
  shared: SharedObservations,
  env: RunEnv,
  limitMs: number,
  key: string,
  lanes: readonly string[],
  observe: (scope: SharedScope) => Promise<T>,
  slots: Slots | undefined,
  keep: (exchange: Exchange, lane: string) => void,
  opts?: SharedOptions<T>,
): { outcome: Promise<T>; handOver(): void } {
  const entry = shareObservation(shared, env, limitMs, key, observe, slots, opts);
  let handed = false;
  const handOver = () => {
    if (handed) return;
    handed = true;
    for (const { lane, exchange } of entry.exchanges) if (lanes.includes(lane)) keep(exchange, lane);
  };
  return { outcome: (entry.outcome as Promise<T>).finally(handOver), handOver };
}

/** The run's shared observations, starting with what the run opened with (the list the probe read, kept under its lane). */
export function sharedOpenedWith(opened: OpenedWith | undefined): SharedObservations {
  const shared: SharedObservations = new Map();
  if (opened?.list)
    shared.set(LIST_KEY, {
      outcome: Promise.resolve(opened.list.response),
      exchanges: opened.list.exchanges.map((exchange) => ({ lane: LIST_KEY, exchange })),
    });
  return shared;
}
