/**
 * A signal that aborts when `outer` does (with its reason) or `ms` after now (a TimeoutError),
 * as `AbortSignal.any([outer, AbortSignal.timeout(ms)])` would, and `release()` to drop its
 * timer and its listener on `outer` once what it bounds has ended. A run makes one per check per
 * sample (3 600 at --samples 30): AbortSignal.any and AbortSignal.timeout cost about 60 µs of
 * CPU each time, with weak references for the collector to clear; this costs a timer and a
 * listener, both given back.
 */
export function timeLimited(outer: AbortSignal, ms: number): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onOuter = () => controller.abort(outer.reason);
  let timer: NodeJS.Timeout | undefined;
  if (outer.aborted) onOuter();
  else {
    outer.addEventListener('abort', onOuter, { once: true });
    timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
    // Like AbortSignal.timeout: a limit alone never keeps the process running.
    timer.unref();
  }
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuter);
    },
  };
}
