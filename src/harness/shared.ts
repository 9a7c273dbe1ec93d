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

/**
 * The run's shared observations (CheckContext.shared): each outcome, its exchanges by lane, and
 * the observations it waits on now (SharedScope.shared), so that none ever waits on itself.
 */
export type SharedObservations = Map<
  string,
  { outcome: Promise<unknown>; exchanges: Array<{ lane: string; exchange: Exchange }>; waitsOn?: Map<string, number> }
>;

/** Whether the observation `from` waits, itself or through those it waits on, for `key`. */
function waitsFor(shared: SharedObservations, from: string, key: string, seen = new Set<string>()): boolean {
  if (from === key) return true;
  if (seen.has(from)) return false;
  seen.add(from);
  for (const next of shared.get(from)?.waitsOn?.keys() ?? []) if (waitsFor(shared, next, key, seen)) return true;
  return false;
}

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
    /** Each observation this one waits on now, and how many of its asks wait on it. */
    const waitsOn = new Map<string, number>();
    const waiting = (inner: string, by: 1 | -1) => {
      const n = (waitsOn.get(inner) ?? 0) + by;
      if (n > 0) waitsOn.set(inner, n);
      else waitsOn.delete(inner);
    };
    // Bounded like a check: the run's signal, and the same per-check time limit.
    const { signal, release } = timeLimited(env.signal, limitMs);
    const laneTranscript = (lane: string): Transcript => ({ exchanges: [], add: (exchange) => void exchanges.push({ lane, exchange }) });
    // A client's options for one lane: its exchanges kept under the lane, the run's --max-rps limiter too.
    const http = (lane: string) => ({
      timeoutMs: env.settings.timeoutMs,
      redactor: env.redactor,
      transcript: laneTranscript(lane),
      signal,
      afterOpen: true,
      limiter: env.limiter,
      connections: env.connections,
      answers: env.answers,
      ...slots?.clientHooks(),
    });
    const scope: SharedScope = {
      // An observation made of others (a scan of blocks that other scans read too): each asked
      // once, their exchanges of `lanes` kept with this one's under their own lanes.
      // One that waits, itself or through others, on this one would wait for ever: refused at once.
      shared: (inner, lanes, observeInner, innerOpts) => {
        if (waitsFor(shared, inner, key)) return Promise.reject(new Error(`the shared observation ${key} asked for ${inner}, which waits on it`));
        const asked = askShared(
          shared,
          env,
          limitMs,
          inner,
          lanes,
          observeInner,
          slots,
          (exchange, lane) => void exchanges.push({ lane, exchange }),
          innerOpts,
        );
        // Counted before the inner observation starts (a microtask later): a cycle is seen either way.
        waiting(inner, 1);
        return asked.outcome.finally(() => waiting(inner, -1));
      },
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
    // Started once it is in the map below: an observation it asks for finds it there.
    entry = { outcome: outsidePages(() => Promise.resolve().then(() => observe(scope))), exchanges, waitsOn };
    void entry.outcome.then(release, release);
    // Once made it waits on nothing, whatever it asked for and left running.
    void entry.outcome.finally(() => waitsOn.clear()).catch(() => undefined);
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
