// How many checks ask the target at once (--concurrency): a counting semaphore, served in order.
// A target that throttles (429, -32005) has said how much it takes: each throttled answer takes
// one slot away for the rest of the run, down to one, so retries meet fewer requests in flight.
// A target whose answers are large (megabytes each) leaves LARGE_ANSWER_CHECKS.

/**
 * Read-only checks at once once the target has sent an answer of LARGE_ANSWER_BYTES (http.ts) or
 * more: each such check holds the answer's text and its parsed value while it judges, so the
 * run's peak memory grows with how many run at once. Measured (npm run bench -- bounded, every
 * answer near the 16 MiB cap): 16 at once peaked near 500 MiB, 2 at once near 290 MiB, in the same time.
 */
export const LARGE_ANSWER_CHECKS = 2;

export class Slots {
  private readonly waiting: Array<() => void> = [];
  /** Slots taken away while held: the next gives keep them. */
  private owed = 0;
  constructor(private size: number) {
    this.free = size;
  }
  private free: number;

  async take(): Promise<void> {
    if (this.free > 0) return void this.free--;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    if (this.owed > 0) return void this.owed--;
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }

  /** One slot fewer from now on (never fewer than one). */
  shrink(): void {
    if (this.size <= 1) return;
    this.size--;
    if (this.free > 0) this.free--;
    else this.owed++;
  }

  /** At most `n` from now on (never fewer than one). */
  limitTo(n: number): void {
    while (this.size > Math.max(1, n)) this.shrink();
  }

  /** What the clients of the checks holding these slots report: a throttled answer takes one away, a large one leaves LARGE_ANSWER_CHECKS. */
  clientHooks(): { onThrottled(): void; onLargeAnswer(): void } {
    return { onThrottled: () => this.shrink(), onLargeAnswer: () => this.limitTo(LARGE_ANSWER_CHECKS) };
  }

  /** How many may ask at once now. */
  get limit(): number {
    return this.size;
  }
}
