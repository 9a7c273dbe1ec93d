import { EventEmitter } from 'node:events';
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';
import { AnswerBudget, AnswerBudgetSpent, AnswerTooLarge, readCapped, type BodySource } from './body';
export { AnswerBudget, AnswerBudgetSpent, AnswerTooLarge, COLLECT_EVERY_BYTES, RUN_ANSWER_BYTES } from './body';
import { PROXY_FROM_ENVIRONMENT, proxyFor, type ProxySettings } from './proxy';
import { Redactor } from './redact';
import { transportMistake, type TransportMistake } from './transport-mistakes';
export { GatewayError, gatewayOf, ThrottledError, type ThrottlePolicy, THROTTLE, throttleOf, retryAfterMs, pause, RateLimiter } from './throttle';
import { GatewayError, gatewayOf, ThrottledError, type ThrottlePolicy, THROTTLE, throttleOf, retryAfterMs, pause, RateLimiter } from './throttle';
import { capBody, curlLine, Exchange, ExchangeRequest, recordedBody, Transcript } from './transcript';

/** Responses larger than this are refused: a conformance run must not be sunk by one answer. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** An answer this large is a large one (onLargeAnswer): a real deployment's answers are KiB, a list of thousands of records a few MiB. */
export const LARGE_ANSWER_BYTES = 1024 * 1024;

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** The media type without parameters, lower-cased ('' when absent). */
  contentType: string;
  /** The body; once parsed as JSON by the REST and JSON-RPC clients, a long one's head alone (keptText). */
  text: string;
  /** The SHA-256 of the body's bytes, for a body of LARGE_ANSWER_BYTES or more (what it is known by once its text is dropped). */
  sha256?: string;
  durationMs: number;
}

/** A transport-level failure: the target did not answer with HTTP. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly exchange: Exchange,
    /** The connection dropped under the request (see droppedConnection), as opposed to no answer at all. */
    readonly dropped = false,
    /** A mistake of the configuration (plain HTTP spoken to with https://, a proxy refusing the tunnel), not a target down. */
    readonly mistake?: TransportMistake,
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
  /**
   * The run is open: its interfaces answered the start-up probe. A request that then gets no HTTP
   * answer asks the interface again before it stands as the target's answer (afterNoAnswer in
   * down-mid-run.ts: one that answers nothing for a few seconds went down; one back meanwhile is
   * asked the request once more). Absent: the probe itself.
   */
  afterOpen?: boolean;
  /** Told of every throttled answer (the runner then lets fewer checks ask at once). */
  onThrottled?: () => void;
  /** Told of an answer of LARGE_ANSWER_BYTES or more, as soon as it is known (the runner then lets fewer checks ask at once). */
  onLargeAnswer?: () => void;
}

type Undici = typeof import('undici');
let undiciModule: Undici | undefined;
/** The HTTP client (the undici package's request API: no WHATWG streams or Request objects per request, a third of fetch's CPU), loaded on first use. */
const undici = (): Undici => (undiciModule ??= require('undici') as Undici);

/** Loads the HTTP client now (about 0.1 s), for a caller with time to spare before its first request. */
export function loadHttpClient(): void {
  undici();
}

/** The process's keep-alive pool for direct requests, and one per proxy (CONNECT tunnels, Proxy-Authorization from the proxy URL's credentials). */
let directPool: Dispatcher | undefined;
const proxyPools = new Map<string, Dispatcher>();

function processPool(proxy: string | undefined): Dispatcher {
  if (!proxy) return (directPool ??= new (undici().Agent)());
  let pool = proxyPools.get(proxy);
  if (!pool) proxyPools.set(proxy, (pool = new (undici().ProxyAgent)(proxy)));
  return pool;
}

/**
 * The connections of one sample (--samples): requests made with them never reuse a socket of
 * another sample, so a load balancer that picks a backend per connection is asked afresh each
 * sample. Requests within a sample may share a keep-alive socket, as a client of a fleet would.
 * Pools are created on first use and closed by the runner when the sample ends.
 */
export class Connections {
  private readonly pools = new Map<string, Dispatcher>();

  pool(proxy: string | undefined): Dispatcher {
    const key = proxy ?? '';
    let pool = this.pools.get(key);
    if (!pool) this.pools.set(key, (pool = proxy ? new (undici().ProxyAgent)(proxy) : new (undici().Agent)()));
    return pool;
  }

  /** Closes every socket of the sample (waits for requests still in flight, which the sample's end makes none). */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close().catch(() => undefined)));
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

/** What a failed request says: its own words and code (a refused connection names the address), or the timeout or stop that ended it. */
function describeTransportError(err: unknown, timeoutMs: number, signal?: AbortSignal): string {
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (signal?.aborted) return `aborted: ${String(signal.reason ?? 'run stopped')}`;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `timeout: no complete answer within ${timeoutMs} ms`;
  const message = String(e?.message ?? err);
  const code = e?.code ?? e?.cause?.code;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * What every request sends unless the caller set it, as fetch did before: a user agent (some
 * firewalls refuse requests without one), any media type, and the encodings the body reader
 * decodes. Not recorded in the exchange, whose curl line lets curl send its own.
 */
const IMPLICIT_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': 'tokenized-stocks-conformance',
  accept: '*/*',
  'accept-encoding': 'gzip, deflate, br',
};

function withImplicitHeaders(headers: Record<string, string>): Record<string, string> {
  const given = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  const out = { ...headers };
  for (const [name, value] of Object.entries(IMPLICIT_HEADERS)) if (!given.has(name)) out[name] = value;
  return out;
}

/** Codings decoded on one answer; a longer list (a hostile chain of decoders) is read as it came, as an unknown coding is. */
const MAX_CODINGS = 4;

/** The decoders of a Content-Encoding, in the order to apply them (the last coding applied first); undefined for one this client does not decode, whose body is read as it came. */
function decodersFor(contentEncoding: string | undefined): Array<() => Transform> | undefined {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (codings.length > MAX_CODINGS) return undefined;
  const decoders: Array<() => Transform> = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(() => zlib.createGunzip());
    else if (coding === 'deflate') decoders.push(() => zlib.createInflate());
    else if (coding === 'br') decoders.push(() => zlib.createBrotliDecompress());
    else return undefined;
  }
  return decoders;
}

/** The body to read: as it came, or through its decoders (destroying what is read destroys the whole chain). */
function bodySource(body: Readable, contentEncoding: string | undefined): { source: BodySource; decoded: boolean } {
  const decoders = decodersFor(contentEncoding);
  if (!decoders?.length) return { source: body, decoded: false };
  const chain = decoders.map((make) => make());
  const last = chain[chain.length - 1];
  pipeline([body, ...chain], () => undefined);
  return { source: last, decoded: true };
}

/** One header value per name (repeated headers joined, as fetch's Headers joined them). */
function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * One HTTP exchange: times out, caps the body, records the exchange (redacted) in the transcript.
 * Never throws for an HTTP status; throws TransportError when there is no HTTP answer. Redirects
 * are not followed: a redirect is an answer to judge.
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
  const signal = new RequestSignal(opts.timeoutMs, opts.signal);
  const proxy = proxyFor(req.url, opts.proxy ?? PROXY_FROM_ENVIRONMENT);
  // The proxy URL may carry a password; it must not reach an error message.
  if (proxy) redactor.add(proxyPassword(proxy));
  let answer: { status: number; headers: Record<string, string>; text: string; sha256?: string; durationMs: number };
  try {
    // Once the run's answer budget is spent nothing more is sent: every answer would be refused.
    if (opts.answers?.spent) opts.answers.charge(0);
    const res = await undici().request(req.url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: withImplicitHeaders(req.headers),
      body: req.body,
      signal,
      dispatcher: opts.connections ? opts.connections.pool(proxy) : processPool(proxy),
    });
    const headers = flatHeaders(res.headers);
    const { source, decoded } = bodySource(res.body, headers['content-encoding']);
    const length = headers['content-length'];
    const declared = decoded || length === undefined ? undefined : Number(length);
    // Said as soon as known: the runner then starts fewer checks while this one is still read.
    const declaredLarge = declared !== undefined && declared >= LARGE_ANSWER_BYTES;
    if (declaredLarge) opts.onLargeAnswer?.();
    const { text, sha256 } = await readCapped(source, declared, MAX_RESPONSE_BYTES, opts.answers, LARGE_ANSWER_BYTES);
    if (!declaredLarge && text.length >= LARGE_ANSWER_BYTES) opts.onLargeAnswer?.();
    answer = { status: res.statusCode, headers, text, sha256, durationMs: performance.now() - started };
  } catch (err) {
    if (err instanceof AnswerBudgetSpent || err instanceof AnswerTooLarge) {
      exchange.error = err.message;
      exchange.durationMs = Math.round(performance.now() - started);
      throw err;
    }
    const mistake = opts.signal?.aborted ? undefined : transportMistake(err, req.url, proxy, proxy ? proxyOrigin(proxy) : '');
    const said = mistake?.words ?? describeTransportError(err, opts.timeoutMs, opts.signal) + (proxy ? ` (through the proxy ${proxyOrigin(proxy)})` : '');
    const message = redactor.text(said);
    exchange.error = message;
    exchange.durationMs = Math.round(performance.now() - started);
    throw new TransportError(
      `${req.method} ${shown.url}: ${message}`,
      exchange,
      !opts.signal?.aborted && isDropped(err),
      mistake && { ...mistake, words: message },
    );
  } finally {
    signal.clear();
  }
  // Recorded once the answer is in, outside the transport's catch: the gate failing on an answer
  // (a defect of the suite) must surface as the suite's error, never as the target unreachable.
  const { status, headers, text, sha256, durationMs } = answer;
  exchange.durationMs = Math.round(durationMs);
  try {
    const capped = recordedBody(text, redactor);
    exchange.response = { status, headers: redactor.headers(headers), body: capped.body, ...(capped.truncated ? { truncated: true } : {}) };
  } catch (err) {
    // The target did answer: its exchange must not read "no response" in a report.
    exchange.error = `HTTP ${status} answered, not recorded: the suite failed masking the answer (a defect of this suite)`;
    throw err;
  }
  return { status, headers, contentType: mediaType(headers['content-type']), text, ...(sha256 ? { sha256 } : {}), durationMs };
}

/** How often a request's timeout looks at the clock, and a pause beyond it that counts as a stall. */
const TIMEOUT_TICK_MS = 100;
const STALL_MS = 50;

/**
 * The signal of one request: aborted by its timeout or by the run's (the check's) signal. The
 * timeout is charged to the target only: it aborts once `ms` have passed while this process was
 * free to read the answer. Time the event loop spent blocked by the suite's own work (judging a
 * list of tens of thousands of records in another check) is added back, so the suite's slowness
 * never becomes a timeout of the target. An event emitter, which the client takes as a signal:
 * an AbortController and AbortSignal.any per request cost more CPU than the request itself. The
 * run's signal is looked at on the same ticks, not listened to: a check asking many questions at
 * once would otherwise hang a listener per request on it.
 */
class RequestSignal extends EventEmitter {
  aborted = false;
  reason: unknown;
  private timer: NodeJS.Timeout | undefined;

  constructor(ms: number, outer?: AbortSignal) {
    super();
    let deadline = performance.now() + ms;
    let last = performance.now();
    const tick = () => {
      if (outer?.aborted) return this.abort(outer.reason);
      const now = performance.now();
      const stalled = now - last - Math.min(TIMEOUT_TICK_MS, deadline - last);
      if (stalled > STALL_MS) deadline += stalled;
      last = now;
      if (now >= deadline) this.abort(new DOMException(`no complete answer within ${ms} ms`, 'TimeoutError'));
      else this.timer = setTimeout(tick, Math.min(TIMEOUT_TICK_MS, deadline - now));
    };
    if (outer?.aborted) this.abort(outer.reason);
    else this.timer = setTimeout(tick, Math.min(TIMEOUT_TICK_MS, ms));
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.clear();
    this.emit('abort');
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * A connection dropped under a request (a keep-alive race behind a load balancer: reset, closed
 * early), as opposed to no answer at all (refused, timed out): worth one more try for a read.
 */
export function droppedConnection(err: unknown): boolean {
  return err instanceof TransportError && err.dropped;
}

/** Read from the client's own error (its code, or its words for a socket closed early). */
function isDropped(err: unknown): boolean {
  const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  return /ECONNRESET|EPIPE|other side closed|socket hang up|UND_ERR_SOCKET/i.test(
    `${e?.message ?? ''} ${e?.code ?? ''} ${e?.cause?.code ?? ''} ${e?.cause?.message ?? ''}`,
  );
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
 * A gateway's 502 or 504 (its backend down) is waited out the same way for a read (a write may
 * have reached the backend, so it is never sent again: its answer is returned); still there, or a
 * 503 still there, it is a GatewayError.
 * An idempotent request meeting a dropped connection is sent once more (requestOnceMore).
 */
export async function httpCall(req: ExchangeRequest, opts: HttpOptions, call: { idempotent?: boolean } = {}): Promise<HttpResult> {
  const policy: ThrottlePolicy = { ...THROTTLE, ...opts.throttle };
  let waited = 0;
  for (let retry = 0; ; retry++) {
    await opts.limiter?.take(opts.signal);
    const res = await requestOnceMore(req, opts, call.idempotent === true);
    const why = throttleOf(res) ?? (call.idempotent ? gatewayOf(res) : undefined);
    if (!why) return res;
    const Refusal = gatewayOf(res) ? GatewayError : ThrottledError;
    opts.onThrottled?.();
    const where = `${req.method} ${opts.redactor.text(req.url)}`;
    const asked = retryAfterMs(res.headers['retry-after']);
    const told = asked !== undefined ? ` (Retry-After ${JSON.stringify(res.headers['retry-after'])})` : '';
    if (retry >= policy.maxRetries) {
      throw new Refusal(`${where}: ${why}${told}, still after ${retry} retr${retry === 1 ? 'y' : 'ies'} over ${(waited / 1000).toFixed(1)} s`, retry + 1, why);
    }
    const delay = asked ?? policy.baseDelayMs * 2 ** retry;
    if (waited + delay > policy.maxWaitMs) {
      throw new Refusal(
        `${where}: ${why}${told}; waiting ${(delay / 1000).toFixed(1)} s more would pass the ${policy.maxWaitMs / 1000} s a request may wait`,
        retry + 1,
        why,
      );
    }
    await (policy.sleep ?? pause)(delay, opts.signal);
    if (opts.signal?.aborted) throw new Refusal(`${where}: ${why}; stopped while waiting to retry (${String(opts.signal.reason ?? 'run stopped')})`, retry + 1);
    waited += delay;
  }
}
