import { PROXY_FROM_ENVIRONMENT, proxyFor, type ProxySettings } from './proxy';
import { Redactor } from './redact';
import { capBody, curlLine, Exchange, ExchangeRequest, Transcript } from './transcript';

/** Responses larger than this are refused: a conformance run must not be sunk by one answer. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** The media type without parameters, lower-cased ('' when absent). */
  contentType: string;
  text: string;
  durationMs: number;
}

/** A transport-level failure: the target did not answer with HTTP. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly exchange: Exchange,
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
}

type Fetch = typeof fetch;
type UndiciModule = { fetch: unknown; ProxyAgent: new (uri: string) => object };
const proxyAgents = new Map<string, object>();

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

async function readCapped(res: Response, cap: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw new Error(`response body exceeds ${cap} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const proxy = proxyFor(req.url, opts.proxy ?? PROXY_FROM_ENVIRONMENT);
  // The proxy URL may carry a password; it must not reach an error message.
  if (proxy) redactor.add(proxyPassword(proxy));
  try {
    const res = await (proxy ? fetchThrough(proxy) : fetch)(req.url, { method: req.method, headers: req.headers, body: req.body, signal, redirect: 'manual' });
    const text = await readCapped(res, MAX_RESPONSE_BYTES);
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    const durationMs = performance.now() - started;
    const capped = capBody(redactor.text(text));
    exchange.response = {
      status: res.status,
      headers: redactor.headers(headers),
      body: capped.body,
      ...(capped.truncated ? { truncated: true } : {}),
    };
    exchange.durationMs = Math.round(durationMs);
    return { status: res.status, headers, contentType: mediaType(headers['content-type']), text, durationMs };
  } catch (err) {
    const message = redactor.text(describeFetchError(err, opts.timeoutMs, opts.signal) + (proxy ? ` (through the proxy ${proxyOrigin(proxy)})` : ''));
    exchange.error = message;
    exchange.durationMs = Math.round(performance.now() - started);
    throw new TransportError(`${req.method} ${shown.url}: ${message}`, exchange);
  }
}
