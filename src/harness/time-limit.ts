/**
 * The limits live under each outer signal (the run's, a wave's), aborted by one listener on it:
 * a run has dozens of checks in flight under the same signal, and a listener each would pass
 * the EventTarget's warning bound (10) and grow with --concurrency.
 */
const under = new WeakMap<AbortSignal, Set<AbortController>>();

function limitsUnder(outer: AbortSignal): Set<AbortController> {
  let live = under.get(outer);
  if (!live) {
    const set = (live = new Set());
    under.set(outer, set);
    outer.addEventListener(
      'abort',
      () => {
        for (const c of set) c.abort(outer.reason);
        set.clear();
      },
      { once: true },
    );
  }
  return live;
}

/**
 * The reason of every released limit: one for the process, as a DOMException records its stack
 * when made, and a release per check per sample made one each (80 ms of a --samples 30 run).
 */
const ENDED = new DOMException('the check or observation it bounded has ended', 'AbortError');

/**
 * A signal that aborts when `outer` does (with its reason) or `ms` after now (a TimeoutError),
 * as `AbortSignal.any([outer, AbortSignal.timeout(ms)])` would, and `release()` to drop its
 * timer and its place under `outer` once what it bounds has ended, aborting what is left of it.
 * A run makes one per check per sample (3 600 at --samples 30): AbortSignal.any with
 * AbortSignal.timeout cost two to three times as much CPU, with weak references to clear.
 */
export function timeLimited(outer: AbortSignal, ms: number): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  if (outer.aborted) {
    controller.abort(outer.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const live = limitsUnder(outer);
  live.add(controller);
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  // Like AbortSignal.timeout: a limit alone never keeps the process running.
  timer.unref();
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      live.delete(controller);
      // What it bounded has ended: work of it still going (a worker of a check that threw) stops now.
      controller.abort(ENDED);
    },
  };
}
