// A request of a run already open got no HTTP answer: a connection refused or reset, or no answer
// in time. That is either this request's own (a method that hangs, resets the connection or takes
// the node down with it: the check's to judge) or the interface gone (a node stopped or
// restarting). The interface is asked again with a request any server answers:
// - answered at once: the non-answer stands as the request's own;
// - answered within BACK_WITHIN_MS (a node restarted by its supervisor): the request is sent once
//   more when it may be repeated, and that answer is the one judged; no answer again (the request
//   took the node down a second time) is the request's own failure;
// - no answer all that time: the interface went down after it answered the run's start-up probe,
//   a fact of the interface outside the spec, as a gateway's "backend down" is. Its checks are not
//   judged (cause `gateway`), and the run says so once, as one root.
import { TransportError, type HttpOptions, type HttpResult } from './http';
import { GatewayError, pause } from './throttle';

/** How long an interface that answers nothing is waited for before it is found down: a node restarted by its supervisor is back within seconds. */
export const BACK_WITHIN_MS = 5_000;
/** Between two asks while it is waited for. */
const ASK_EVERY_MS = 500;

/**
 * The interface answered the run's start-up probe, then nothing: a gateway's "backend down" by
 * another road (cause `gateway` for a check that meets it). The pre-confirmation pass tells it
 * from a gateway that lost one send: the node stopped answering (preconf/state.ts, stopOf).
 */
export class InterfaceDown extends GatewayError {
  constructor(message: string, iface: 'rest' | 'rpc') {
    super(message, 1);
    this.name = 'InterfaceDown';
    this.iface = iface;
  }
}

export interface NoAnswer {
  iface: 'rest' | 'rpc';
  /** The client's options: the run's signal, the transcript every ask is kept in. */
  http: HttpOptions;
  /** A request any server of the interface answers (its answer is not read), with these options. */
  askAgain: (http: HttpOptions) => Promise<unknown>;
  /** It, in words. */
  asked: string;
  /** The interface's URL: requests to it are sent again one at a time. */
  key: string;
  /** The request that got no answer, sent once more; absent when it may not be repeated (a write: the node may have taken it). */
  resend?: () => Promise<HttpResult>;
}

/**
 * Waits until the interface answers `askAgain` (at once when it does), asking every ASK_EVERY_MS
 * for up to BACK_WITHIN_MS: true when it answered at the first ask. No answer all that time is
 * InterfaceDown; a gateway's answer is that fact; the run's stop ends it with `err`.
 */
async function untilBack(err: TransportError, how: NoAnswer): Promise<boolean> {
  const { iface, http, askAgain, asked, key } = how;
  const signal = http.signal;
  // Found down by another request just now: the same wait would find the same (the run then
  // judges nothing more of the interface), so requests queued behind it end at once.
  const found = foundDown.get(key);
  if (found && performance.now() - found.at < BACK_WITHIN_MS) throw found.down;
  const until = performance.now() + BACK_WITHIN_MS;
  let last: TransportError | undefined;
  for (;;) {
    if (last) await pause(ASK_EVERY_MS, signal);
    if (signal?.aborted) throw err;
    // Each ask after the first within what is left of the wait.
    const timeoutMs = last ? Math.max(1, Math.min(http.timeoutMs, Math.round(until - performance.now()))) : http.timeoutMs;
    try {
      await askAgain({ ...http, timeoutMs });
      return last === undefined;
    } catch (again) {
      if (again instanceof GatewayError) {
        again.iface = iface;
        throw again;
      }
      if (!(again instanceof TransportError) || again.mistake || signal?.aborted) throw err;
      last = again;
    }
    if (performance.now() >= until) {
      const down = new InterfaceDown(
        `${err.message}; asked again for ${BACK_WITHIN_MS / 1000} s, ${asked} got no answer (${last.message}): the interface answered the run's start-up probe and then went down`,
        iface,
      );
      foundDown.set(key, { at: performance.now(), down });
      throw down;
    }
  }
}

/** Per interface URL, when it was last found down, and how it was said. */
const foundDown = new Map<string, { at: number; down: InterfaceDown }>();

/** How many times a request is sent again after the interface came back, before a non-answer is its own. */
const RESEND_ROUNDS = 2;

/**
 * Requests sent again, one at a time per interface: when one call takes the node down, every
 * request then in flight got no answer, and sent again together the crashing one would take
 * the others down with it and have them blamed for it. Each waits its turn, and for the
 * interface to answer, before it is sent.
 */
const resending = new Map<string, Promise<unknown>>();
async function oneAtATime<T>(key: string, send: () => Promise<T>): Promise<T> {
  const before = resending.get(key) ?? Promise.resolve();
  const mine = before.then(send, send);
  const tail = mine.catch(() => undefined);
  resending.set(key, tail);
  try {
    return await mine;
  } finally {
    if (resending.get(key) === tail) resending.delete(key);
  }
}

/** What a client does when a request of an open run got no answer (`err`): the request's answer after all, or the error to throw. */
export async function afterNoAnswer(err: TransportError, how: NoAnswer): Promise<HttpResult> {
  const { iface, http, resend } = how;
  const signal = http.signal;
  // A mistake of the configuration is said with its fix; a request stopped by the run is no observation.
  if (err.mistake || signal?.aborted) throw err;
  // Answered at once: the interface is there, the non-answer this request's own. A write is not
  // sent again (the node may have taken it): once the interface is back, its non-answer stands.
  if ((await untilBack(err, how)) || !resend) throw err;
  // Back after a while (restarted): the request once more, in its turn, the interface answering
  // just before. No answer again while the interface answers at once, or in every round, is the
  // request's own (it takes the node down); otherwise another request may have.
  for (let round = 1; ; round++) {
    try {
      return await oneAtATime(how.key, async () => {
        await untilBack(err, how);
        return resend();
      });
    } catch (e) {
      if (e instanceof GatewayError) e.iface ??= iface;
      if (!(e instanceof TransportError)) throw e;
      if (e.mistake || signal?.aborted || round >= RESEND_ROUNDS || (await untilBack(err, how))) throw err;
    }
  }
}
