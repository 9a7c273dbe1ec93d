// How the `conformance` process ends: with its exit code, once what it wrote has left.
//
// Through a pipe, stdout and stderr are asynchronous in Node: process.exit() drops whatever the
// reader has not taken yet, so `conformance --json | jq` with a slow reader got the first 64 KiB
// (the pipe's buffer) of the document and a parse error. So every exit waits for both streams to
// drain first. The wait is bounded: it lasts while the reader keeps taking bytes, and ends when it
// has taken none for `stallMs` (a reader that stopped, `| less` left open), or when it is gone.

/** How long an exit waits for a reader that takes nothing at all before it exits anyway. */
export const DRAIN_STALL_MS = 30_000;

/** How often the wait looks at what is still queued. */
const POLL_MS = 20;

/** A writable stream as the wait reads it (process.stdout, process.stderr). */
export interface DrainingStream {
  readonly writableLength: number;
  readonly destroyed: boolean;
  readonly writableFinished?: boolean;
}

/** Resolves once nothing written to the streams is still queued, or when none was taken for `stallMs`. */
export function drained(streams: readonly DrainingStream[], stallMs = DRAIN_STALL_MS): Promise<void> {
  const queued = () => streams.reduce((sum, s) => sum + (s.destroyed ? 0 : s.writableLength), 0);
  return new Promise((resolve) => {
    let left = queued();
    let lastProgress = Date.now();
    const look = () => {
      const now = queued();
      if (now === 0) return resolve();
      if (now < left) [left, lastProgress] = [now, Date.now()];
      if (Date.now() - lastProgress >= stallMs) return resolve();
      setTimeout(look, POLL_MS);
    };
    look();
  });
}

/** The code of the exit under way, once one was asked for. */
let exiting: number | undefined;

/**
 * Exits with `code` once stdout and stderr have drained (bounded, see drained). A request while
 * one waits (a second Ctrl-C, or the run ending after one) exits at once, with the first code.
 */
export function exitWhenDrained(code: number, stallMs = DRAIN_STALL_MS): void {
  if (exiting !== undefined) process.exit(exiting);
  exiting = code;
  void drained([process.stdout, process.stderr], stallMs).then(() => process.exit(code));
}
