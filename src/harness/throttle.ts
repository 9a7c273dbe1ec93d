// Throttling: providers' rate limits, observed and waited out, and the --max-rps limiter.
//
// A provider that answers "slow down" has said nothing about the interface: the HTTP layer
// waits (honouring Retry-After), asks again a bounded number of times, and when the target
// keeps refusing it reports so with ThrottledError, an observation the runner turns into an
// inconclusive result. Every attempt stays in the transcript.
import { cut } from './json';

/** The target kept answering "too many requests" past the bounded retries: an observation, not a verdict. */
export class ThrottledError extends Error {
  /** The interface whose answers showed it, set by the client that asked (REST or JSON-RPC). */
  iface?: 'rest' | 'rpc';
  constructor(
    message: string,
    readonly attempts: number,
    /** What the last answer was, in words (e.g. "HTTP 503 Service Unavailable"), for a caller naming what it lost. */
    readonly answer?: string,
  ) {
    super(message);
    this.name = 'ThrottledError';
  }
}

/**
 * The gateway in front of the target kept answering 502, 503 or 504 past the bounded retries:
 * the backend is down or overloaded, which says nothing about the interface (the spec judges
 * the node's answers, not its gateway's). An observation, never a verdict: the run is incomplete.
 */
export class GatewayError extends ThrottledError {
  constructor(message: string, attempts: number, answer?: string) {
    super(message, attempts, answer);
    this.name = 'GatewayError';
  }
}

/** Why an answer is a gateway's "the backend is not there" (502, 503, 504), or undefined. */
export function gatewayOf(res: { status: number }): string | undefined {
  if (res.status === 502) return 'HTTP 502 Bad Gateway';
  if (res.status === 503) return 'HTTP 503 Service Unavailable';
  if (res.status === 504) return 'HTTP 504 Gateway Timeout';
  return undefined;
}

export interface ThrottlePolicy {
  /** Retries after the first throttled answer. */
  maxRetries: number;
  /** Total time one request may spend waiting between its attempts. */
  maxWaitMs: number;
  /** First pause when the answer names none (Retry-After absent); doubled at each retry. */
  baseDelayMs: number;
  /** How a pause is waited: the real timer in a run; a test passes one that records it, so the schedule is asserted, not timed. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const THROTTLE: ThrottlePolicy = { maxRetries: 3, maxWaitMs: 10_000, baseDelayMs: 500 };

/**
 * Messages providers use for rate limits (Infura -32005 "project ID request rate exceeded",
 * Alchemy 429 "exceeded its compute units per second capacity", QuickNode "request limit
 * reached", nginx/Cloudflare "Too Many Requests"). Revert reasons are excluded: a contract may
 * say anything.
 */
const RATE_LIMIT_TEXT =
  /rate[ _-]?limit|too many requests|request limit|requests? per second|compute units? per second|exceeded [^.]*\b(rate|capacity|quota)\b|\b(capacity|quota) exceeded|throttl/i;

function rpcThrottle(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const error = (v as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  // EIP-1474: -32005 "limit exceeded"; some providers put the HTTP status in the code.
  const byCode = code === -32005 || code === 429;
  const byText = text !== '' && !/^execution reverted/i.test(text) && RATE_LIMIT_TEXT.test(text);
  return byCode || byText ? `JSON-RPC error ${JSON.stringify(code)} ${JSON.stringify(cut(text, 120))}` : undefined;
}

/**
 * Why an answer means "too many requests" rather than an answer, or undefined. HTTP 429 always;
 * HTTP 503 too: RFC 9110 gives it to a server that is overloaded or down for maintenance, which
 * says nothing about the interface (a target that answers 503 for good cannot be judged, and
 * the run says so). In a JSON body (any status): a JSON-RPC error -32005 (EIP-1474 "limit
 * exceeded") or 429, or a message naming a rate limit; for a batch, any of its members.
 */
export function throttleOf(res: { status: number; text: string }): string | undefined {
  if (res.status === 429) return 'HTTP 429 Too Many Requests';
  if (res.status === 503) return 'HTTP 503 Service Unavailable';
  // Throttle answers are short; large answers (receipts, blocks) are not parsed twice.
  if (res.text.length > 65_536 || !res.text.includes('error')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return undefined;
  }
  const members = Array.isArray(body) ? body : [body];
  for (const m of members) {
    const why = rpcThrottle(m);
    if (why) return `HTTP ${res.status} with ${why}`;
  }
  return undefined;
}

/** Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Resolves after `ms`, or at once when the signal aborts (the next fetch then fails as aborted). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * --max-rps: requests of the whole run get turns at least 1000/N ms apart, whatever client sends
 * them. Turns are handed out one at a time, in order, each measured from when the previous one
 * was actually granted: a stalled process (timers firing late, together) cannot release a burst
 * afterwards, so no one-second window sees more than N. Only one waiter sleeps at a time.
 */
export class RateLimiter {
  /** When the last turn was granted (-Infinity: none yet). */
  private lastGrant = -Infinity;
  /** The end of the queue: the next taker waits for it. */
  private tail: Promise<void> = Promise.resolve();
  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
    /** How a waiter sleeps: the real timer in a run; a test passes one that moves its own clock, so the schedule is asserted, not timed. */
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = pause,
  ) {
    if (!(perSecond > 0)) throw new RangeError('requests per second must be positive');
  }

  /** Wait for this request's turn (returns early when the signal aborts); resolves to when the turn was granted, by this limiter's clock. */
  async take(signal?: AbortSignal): Promise<number | undefined> {
    const before = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((resolve) => (done = resolve));
    try {
      await before;
      // A timer may fire a little early by this clock; wait again until the turn is really due, so
      // no two grants are ever closer than 1000/N ms (a provider's limiter counts what it sees).
      const due = this.lastGrant + 1000 / this.perSecond;
      for (let wait = due - this.now(); wait > 0 && !signal?.aborted; wait = due - this.now()) await this.sleep(wait, signal);
      // A waiter whose check was stopped sends nothing: its turn is not spent.
      if (signal?.aborted) return undefined;
      this.lastGrant = this.now();
      return this.lastGrant;
    } finally {
      done();
    }
  }
}
