// How the fault catalogue's loopback servers (./proxy.ts, ./replay.ts, ./fleet.ts) ask their upstream: the
// undici package's request API on one keep-alive pool. fetch (a WHATWG Request, Response and
// stream per call, and an AbortSignal.any with a timeout signal) cost these servers more CPU
// than the answers they pass on, in the jest worker that also runs the suite they answer.
import { setMaxListeners } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';

export interface Asked {
  status: number;
  /** Lower-cased names; a repeated header joined with ", ", as fetch's Headers joins it. */
  headers: Record<string, string>;
  body: Buffer;
}

const pool = new Agent();

/** Headers about one hop (this connection, this message's framing): never passed on. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

/** A client's request headers as passed on upstream: one value per name, without the hop's. */
export function requestHeaders(h: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** A client's request body, whole. */
export function requestBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** An upstream answer's headers as passed on to the client: without the hop's, nor a coding (bodies are passed on decoded or as they came, never re-coded). */
export function passedOn(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k.toLowerCase()) && k.toLowerCase() !== 'content-encoding') out[k] = v;
  return out;
}

/** A signal many requests in flight listen to at once (each adds one listener while it runs). */
export function sharedSignal(controller: AbortController): AbortSignal {
  setMaxListeners(0, controller.signal);
  return controller.signal;
}

/**
 * One request: no redirect followed (a redirect is an answer to pass on), no body decoded (no
 * Accept-Encoding is added), `timeoutMs` for the answer's head and again for its whole body
 * (undici's own bodyTimeout bounds only the gap between chunks: a body trickled a byte at a time
 * would never end), stopped by `signal`.
 */
export async function askUpstream(
  url: string | URL,
  init: { method: string; headers?: Record<string, string>; body?: string | Buffer },
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Asked> {
  const res = await request(url, {
    method: init.method as Dispatcher.HttpMethod,
    headers: init.headers,
    body: init.method === 'GET' || init.method === 'HEAD' ? undefined : init.body,
    signal,
    dispatcher: pool,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers))
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const cut = setTimeout(() => res.body.destroy(new Error(`the upstream's answer was not whole within ${timeoutMs} ms`)), timeoutMs);
  try {
    return { status: res.statusCode, headers, body: Buffer.from(await res.body.arrayBuffer()) };
  } finally {
    clearTimeout(cut);
  }
}
