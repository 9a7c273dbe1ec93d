import { AnswerBudget, AnswerBudgetSpent, readCapped } from './body';
export { AnswerBudget, AnswerBudgetSpent, COLLECT_EVERY_BYTES, RUN_ANSWER_BYTES } from './body';
import { PROXY_FROM_ENVIRONMENT, proxyFor, type ProxySettings } from './proxy';
import { Redactor } from './redact';
export { ThrottledError, type ThrottlePolicy, THROTTLE, throttleOf, retryAfterMs, pause, RateLimiter } from './throttle';
import { ThrottledError, type ThrottlePolicy, THROTTLE, throttleOf, retryAfterMs, pause, RateLimiter } from './throttle';
import { capBody, curlLine, Exchange, ExchangeRequest, recordedBody, Transcript } from './transcript';

/** Responses larger than this are refused: a conformance run must not be sunk by one answer. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** The media type without parameters, lower-cased ('' when absent). */
  contentType: string;
  /** The body; once parsed as JSON by the REST and JSON-RPC clients, a long one's head alone (keptText). */
  text: string;
  durationMs: number;
}

/** A transport-level failure: the target did not answer with HTTP. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly exchange: Exchange,
    /** The connection dropped under the request (see droppedConnection), as opposed to no answer at all. */
    readonly dropped = false,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface HttpOptions {
  timeoutMs: number;
  redactor: Redactor;
  transcript: Transcript;
  /** Aborts everything in flight when the run deadline passes or the user interrupts. */
  signal?: AbortSignal;
  /** Where HTTP(S)_PROXY / NO_PROXY come from; the process environment unless a test says otherwise. */
  proxy?: ProxySettings;
  /** The run's --max-rps limiter, shared by every client of the run (see httpCall). */
  limiter?: RateLimiter;
  /** Bounds of the retries of throttled answers (see httpCall); THROTTLE when absent. */
  throttle?: Partial<ThrottlePolicy>;
  /** One sample's own connections (see Connections); absent: the process's shared keep-alive pool. */
  connections?: Connections;
  /** The run's answer budget, shared by every client of the run; absent: unbounded (a unit test's one client). */
  answers?: AnswerBudget;
  /** Told of every throttled answer (the runner then lets fewer checks ask at once). */
  onThrottled?: () => void;
}

type Fetch = typeof fetch;
type Closable = { close(): Promise<void> };
type UndiciModule = { fetch: unknown; ProxyAgent: new (uri: string) => Closable; Agent: new () => Closable };
const proxyAgents = new Map<string, Closable>();

/**
 * fetch through a proxy. Node's own fetch has no proxy support, so proxied requests use the
 * undici package's fetch with its ProxyAgent (CONNECT tunnels, Proxy-Authorization from the
 * proxy URL's credentials); loaded only when a proxy is used. Direct requests keep Node's fetch.
 */
function fetchThrough(proxy: string): Fetch {
  const undici = require('undici') as UndiciModule;
  let agent = proxyAgents.get(proxy);
  if (!agent) proxyAgents.set(proxy, (agent = new undici.ProxyAgent(proxy)));
  const dispatcher = agent;
  return ((url: string, init: RequestInit) => (undici.fetch as Fetch)(url, { ...init, dispatcher } as RequestInit)) as Fetch;
}

/**
 * The connections of one sample (--samples): requests made with them never reuse a socket of
 * another sample, so a load balancer that picks a backend per connection is asked afresh each
 * sample. Requests within a sample may share a keep-alive socket, as a client of a fleet would.
 * Made with the undici package's Agent (or ProxyAgent when a proxy is used), created on first use
 * and closed by the runner when the sample ends.
 */
export class Connections {
  private readonly agents = new Map<string, Closable>();

  fetch(proxy: string | undefined): Fetch {
    const undici = require('undici') as UndiciModule;
    const key = proxy ?? '';
    let agent = this.agents.get(key);
    if (!agent) this.agents.set(key, (agent = proxy ? new undici.ProxyAgent(proxy) : new undici.Agent()));
    const dispatcher = agent;
    return ((url: string, init: RequestInit) => (undici.fetch as Fetch)(url, { ...init, dispatcher } as RequestInit)) as Fetch;
  }

  /** Closes every socket of the sample (waits for requests still in flight, which the sample's end makes none). */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
  }
}

function proxyPassword(proxy: string): string | undefined {
  try {
    return decodeURIComponent(new URL(proxy).password) || undefined;
  } catch {
    return undefined;
  }
}

function proxyOrigin(proxy: string): string {
  try {
    return new URL(proxy).origin;
  } catch {
    return 'the proxy';
  }
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function describeFetchError(err: unknown, timeoutMs: number, signal?: AbortSignal): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (signal?.aborted) return `aborted: ${String(signal.reason ?? 'run stopped')}`;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `timeout: no complete answer within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return cause ? `${e.message}: ${cause}` : String(e?.message ?? err);
}

/**
 * One HTTP exchange: times out, caps the body, records the exchange (redacted) in the transcript.
 * Never throws for an HTTP status; throws TransportError when there is no HTTP answer.
 */
export async function httpRequest(req: ExchangeRequest, opts: HttpOptions): Promise<HttpResult> {
  const started = performance.now();
  const { redactor } = opts;
  const shown: ExchangeRequest = {
    method: req.method,
    url: redactor.text(req.url),
    headers: redactor.headers(req.headers),
    ...(req.body !== undefined ? { body: capBody(redactor.text(req.body)).body } : {}),
  };
  const exchange: Exchange = { request: shown, durationMs: 0, curl: curlLine(shown, redactor.curlVariables(req)) };
  opts.transcript.add(exchange);
  const timeout = targetTimeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout.signal, opts.signal]) : timeout.signal;
  const proxy = proxyFor(req.url, opts.proxy ?? PROXY_FROM_ENVIRONMENT);
  // The proxy URL may carry a password; it must not reach an error message.
  if (proxy) redactor.add(proxyPassword(proxy));
  try {
    const send = opts.connections ? opts.connections.fetch(proxy) : proxy ? fetchThrough(proxy) : fetch;
    // Once the run's answer budget is spent nothing more is sent: every answer would be refused.
    if (opts.answers?.spent) opts.answers.charge(0);
    const res = await send(req.url, { method: req.method, headers: req.headers, body: req.body, signal, redirect: 'manual' });
    const text = await readCapped(res, MAX_RESPONSE_BYTES, opts.answers);
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    const durationMs = performance.now() - started;
    const capped = recordedBody(text, redactor);
    exchange.response = {
      status: res.status,
      headers: redactor.headers(headers),
      body: capped.body,
      ...(capped.truncated ? { truncated: true } : {}),
    };
    exchange.durationMs = Math.round(durationMs);
    return { status: res.status, headers, contentType: mediaType(headers['content-type']), text, durationMs };
  } catch (err) {
    if (err instanceof AnswerBudgetSpent) {
      exchange.error = err.message;
      exchange.durationMs = Math.round(performance.now() - started);
      throw err;
    }
    const message = redactor.text(describeFetchError(err, opts.timeoutMs, opts.signal) + (proxy ? ` (through the proxy ${proxyOrigin(proxy)})` : ''));
    exchange.error = message;
    exchange.durationMs = Math.round(performance.now() - started);
    throw new TransportError(`${req.method} ${shown.url}: ${message}`, exchange, !opts.signal?.aborted && isDropped(err));
  } finally {
    timeout.clear();
  }
}

/** How often a request's timeout looks at the clock, and a pause beyond it that counts as a stall. */
const TIMEOUT_TICK_MS = 100;
const STALL_MS = 50;

/**
 * A timeout charged to the target only: it aborts once `ms` have passed while this process was
 * free to read the answer. Time the event loop spent blocked by the suite's own work (judging a
 * list of tens of thousands of records in another check) is added back, so the suite's
 * slowness never becomes a timeout of the target.
 */
function targetTimeout(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  let deadline = performance.now() + ms;
  let last = performance.now();
  let timer: NodeJS.Timeout;
  const tick = () => {
    const now = performance.now();
    const stalled = now - last - Math.min(TIMEOUT_TICK_MS, deadline - last);
    if (stalled > STALL_MS) deadline += stalled;
    last = now;
    if (now >= deadline) controller.abort(new DOMException(`no complete answer within ${ms} ms`, 'TimeoutError'));
    else timer = setTimeout(tick, Math.min(TIMEOUT_TICK_MS, deadline - now));
  };
  timer = setTimeout(tick, Math.min(TIMEOUT_TICK_MS, ms));
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * A connection dropped under a request (a keep-alive race behind a load balancer: reset, closed
 * early), as opposed to no answer at all (refused, timed out): worth one more try for a read.
 */
export function droppedConnection(err: unknown): boolean {
  return err instanceof TransportError && err.dropped;
}

/** Read from fetch's own error (its code, or undici's words for a socket closed early), when it is thrown. */
function isDropped(err: unknown): boolean {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  return /ECONNRESET|EPIPE|other side closed|socket hang up|UND_ERR_SOCKET/i.test(`${e?.message ?? ''} ${e?.cause?.code ?? ''} ${e?.cause?.message ?? ''}`);
}

/** DROP_RETRY_MS after a dropped connection, a read is sent once more (both attempts recorded). */
const DROP_RETRY_MS = 200;

async function requestOnceMore(req: ExchangeRequest, opts: HttpOptions, idempotent: boolean): Promise<HttpResult> {
  try {
    return await httpRequest(req, opts);
  } catch (err) {
    if (!idempotent || !droppedConnection(err) || opts.signal?.aborted) throw err;
    await pause(DROP_RETRY_MS, opts.signal);
    // The second attempt is a request like any other: it takes its --max-rps turn too.
    await opts.limiter?.take(opts.signal);
    return httpRequest(req, opts);
  }
}

/**
 * One request as the clients make it: waits for its --max-rps turn, sends (httpRequest), and
 * when the answer is a throttle (throttleOf) waits as Retry-After asks, or 0.5 s, 1 s, 2 s when
 * it does not, and sends again: at most THROTTLE.maxRetries retries and THROTTLE.maxWaitMs of
 * waiting, never past the abort signal. Throws ThrottledError when the target still throttles.
 * An idempotent request meeting a dropped connection is sent once more (requestOnceMore).
 */
export async function httpCall(req: ExchangeRequest, opts: HttpOptions, call: { idempotent?: boolean } = {}): Promise<HttpResult> {
  const policy: ThrottlePolicy = { ...THROTTLE, ...opts.throttle };
  let waited = 0;
  for (let retry = 0; ; retry++) {
    await opts.limiter?.take(opts.signal);
    const res = await requestOnceMore(req, opts, call.idempotent === true);
    const why = throttleOf(res);
    if (!why) return res;
    opts.onThrottled?.();
    const where = `${req.method} ${opts.redactor.text(req.url)}`;
    const asked = retryAfterMs(res.headers['retry-after']);
    const told = asked !== undefined ? ` (Retry-After ${JSON.stringify(res.headers['retry-after'])})` : '';
    if (retry >= policy.maxRetries) {
      throw new ThrottledError(
        `${where}: ${why}${told}, still after ${retry} retr${retry === 1 ? 'y' : 'ies'} over ${(waited / 1000).toFixed(1)} s`,
        retry + 1,
      );
    }
    const delay = asked ?? policy.baseDelayMs * 2 ** retry;
    if (waited + delay > policy.maxWaitMs) {
      throw new ThrottledError(
        `${where}: ${why}${told}; waiting ${(delay / 1000).toFixed(1)} s more would pass the ${policy.maxWaitMs / 1000} s a request may wait`,
        retry + 1,
      );
    }
    await (policy.sleep ?? pause)(delay, opts.signal);
    if (opts.signal?.aborted)
      throw new ThrottledError(`${where}: ${why}; stopped while waiting to retry (${String(opts.signal.reason ?? 'run stopped')})`, retry + 1);
    waited += delay;
  }
}
