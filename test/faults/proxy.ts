// The mutation layer: an HTTP proxy on loopback in front of the reference target. It forwards
// REST requests to {base_url} and JSON-RPC calls to {rpc_url}, and lets one variant of the
// fault catalogue rewrite what goes up or comes back (or answer itself, or break the
// connection). The proxy only binds 127.0.0.1 and only talks to the upstream URLs it is given.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { askUpstream, HOP_BY_HOP, passedOn, requestBody, requestHeaders, sharedSignal } from './upstream';

// ---- what a mutation returns -------------------------------------------------------------

/** A complete HTTP answer (status, headers, body text). */
export class Raw {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {}

  get contentType(): string {
    return (Object.entries(this.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '').split(';')[0].trim().toLowerCase();
  }

  /** The body parsed as JSON, or undefined when it is not JSON. */
  json(): unknown {
    try {
      return JSON.parse(this.body);
    } catch {
      return undefined;
    }
  }

  static json(status: number, value: unknown, contentType = 'application/json'): Raw {
    return new Raw(status, { 'content-type': contentType }, JSON.stringify(value));
  }

  static text(status: number, contentType: string, body: string): Raw {
    return new Raw(status, { 'content-type': contentType }, body);
  }
}

/** No HTTP answer at all: the connection is reset, or left open and never answered. */
export class Fault {
  constructor(readonly kind: 'reset' | 'hang') {}
}
export const RESET = new Fault('reset');
export const HANG = new Fault('hang');

export type Answer = Raw | Fault;

// ---- REST --------------------------------------------------------------------------------

export interface RestRequest {
  method: string;
  /** Path and query relative to the proxy's origin, e.g. "/v1/tokenized-stocks". */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Rewrites one REST exchange. `next` forwards a (possibly changed) request upstream. */
export type RestMutation = (req: RestRequest, next: (req?: RestRequest) => Promise<Raw>) => Promise<Answer>;

// ---- JSON-RPC ----------------------------------------------------------------------------

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Envelope = { [k: string]: Json };

export interface RpcCall {
  jsonrpc?: Json;
  id?: Json;
  method: string;
  params: Json[];
  [k: string]: Json | undefined;
}

export interface RpcContext {
  /** The HTTP request that carried the call (headers lower-cased). */
  http: RestRequest;
  /** Send a call upstream after `delayMs`, without waiting for it (answers are dropped). */
  forwardLater(call: RpcCall, delayMs: number): void;
}

/**
 * Rewrites one JSON-RPC call (each element of a batch is one call). Returns the envelope to
 * answer with, or a whole-request Answer (raw HTTP, reset, hang). `next` forwards upstream and
 * returns the upstream envelope, or the upstream Raw answer when that was not a 200 JSON object.
 */
export type RpcMutation = (call: RpcCall, next: (call?: RpcCall) => Promise<Envelope | Raw>, ctx: RpcContext) => Promise<Envelope | Answer>;

// ---- the proxy ---------------------------------------------------------------------------

/**
 * An upstream answering in this process (the replay tier's record, ./replay.ts), as it would at
 * `url`: the proxy asks it directly, with no second loopback hop.
 */
export interface LocalUpstream {
  url: string;
  /** The answer to one request (its path relative to the origin of `url`). */
  answer(req: RestRequest): Promise<Raw>;
}

export interface ProxyOptions {
  /** An upstream URL, asked over HTTP, or one answering in this process. */
  restUpstream: string | LocalUpstream;
  rpcUpstream: string | LocalUpstream;
  rest?: RestMutation;
  rpc?: RpcMutation;
  /** Added before every answer, REST and JSON-RPC. */
  latencyMs?: number;
}

export interface Proxy {
  restUrl: string;
  rpcUrl: string;
  /** Exchanges where the mutation changed the request or the answer (or answered itself). */
  readonly hits: number;
  /** Exchanges seen, REST and JSON-RPC. */
  readonly exchanges: number;
  stop(): Promise<void>;
}

const UPSTREAM_TIMEOUT_MS = 30_000;

/** Asks the upstream: over HTTP at `url`, or in this process (a LocalUpstream). */
async function upstreamFetch(upstream: string | LocalUpstream, url: string, req: RestRequest, signal: AbortSignal): Promise<Raw> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k.toLowerCase()) && k.toLowerCase() !== 'accept-encoding') headers[k] = v;
  const res =
    typeof upstream === 'string'
      ? await askUpstream(url, { method: req.method, headers, body: req.body }, UPSTREAM_TIMEOUT_MS, signal).then(
          (a) => new Raw(a.status, a.headers, a.body.toString('utf8')),
        )
      : await upstream.answer({ ...req, headers });
  // The same answer either way: what is about the hop or the coding goes.
  return new Raw(res.status, passedOn(res.headers), res.body);
}

function sameRaw(a: Raw, b: Raw): boolean {
  return a.status === b.status && a.body === b.body && JSON.stringify(a.headers) === JSON.stringify(b.headers);
}

function isEnvelope(v: unknown): v is Envelope {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: http.Server; url: string; sockets: Set<Socket> }> {
  const server = http.createServer(handler);
  // Idle sockets stay open until stop(). At 1 s (this proxy's first setting) the client, which
  // closes an idle socket a second before the server says it would, kept none: every request
  // paid a new connection, and in a jest worker a stack trace mapped through source maps when
  // undici dropped the old one; with no timeout there is no keep-alive race either.
  server.keepAliveTimeout = 0;
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, sockets };
}

/** Start the proxy: one loopback port for REST, one for JSON-RPC. */
export async function startProxy(opts: ProxyOptions): Promise<Proxy> {
  const urlOf = (u: string | LocalUpstream) => (typeof u === 'string' ? u : u.url);
  const restBase = new URL(urlOf(opts.restUpstream));
  const rpcUrl = urlOf(opts.rpcUpstream);
  const stopping = new AbortController();
  const stopped = sharedSignal(stopping);
  const later = new Set<Promise<unknown>>();
  let hits = 0;
  let exchanges = 0;

  const send = (res: ServerResponse, answer: Answer) => {
    if (answer instanceof Fault) {
      if (answer.kind === 'reset') res.socket?.resetAndDestroy();
      // 'hang': leave the socket open; stop() destroys it.
      return;
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  };

  const incoming = async (req: IncomingMessage): Promise<RestRequest> => ({
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: requestHeaders(req.headers),
    body: (await requestBody(req)).toString('utf8'),
  });

  const restUp = (r: RestRequest) => {
    // The proxy's REST URL carries the upstream's path prefix, so paths map one to one.
    const target = new URL(r.path, restBase.origin);
    return upstreamFetch(opts.restUpstream, target.toString(), r, stopped);
  };

  const rest = await listen((req, res) => {
    void (async () => {
      exchanges++;
      const r = await incoming(req);
      let upstream: Raw | undefined;
      let forwarded: string | undefined;
      const next = async (changed?: RestRequest) => {
        const sent = changed ?? r;
        forwarded = JSON.stringify(sent);
        upstream = await restUp(sent);
        return upstream;
      };
      const answer = opts.rest ? await opts.rest(r, next) : await next();
      const untouched = upstream !== undefined && answer instanceof Raw && sameRaw(answer, upstream) && forwarded === JSON.stringify(r);
      if (!untouched) hits++;
      if (opts.latencyMs) await sleep(opts.latencyMs);
      send(res, answer);
    })().catch((err: Error) => {
      if (!res.headersSent) send(res, Raw.text(502, 'text/plain', `fault proxy: ${err.message}`));
    });
  });

  const rpcCallUp = async (call: RpcCall, h: RestRequest): Promise<Envelope | Raw> => {
    const raw = await upstreamFetch(
      opts.rpcUpstream,
      rpcUrl,
      { method: 'POST', path: '/', headers: { 'content-type': 'application/json', ...pick(h.headers, ['authorization']) }, body: JSON.stringify(call) },
      stopped,
    );
    const parsed = raw.status === 200 ? raw.json() : undefined;
    return isEnvelope(parsed) ? parsed : raw;
  };

  const rpc = await listen((req, res) => {
    void (async () => {
      exchanges++;
      const r = await incoming(req);
      let parsed: unknown;
      try {
        parsed = JSON.parse(r.body);
      } catch {
        parsed = undefined;
      }
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      const wellFormed = calls.length > 0 && calls.every((c) => isEnvelope(c) && typeof c.method === 'string');
      if (!wellFormed || !opts.rpc) {
        // Not something a mutation can reason about (or no mutation): pass the bytes through.
        const upstream = await upstreamFetch(opts.rpcUpstream, rpcUrl, { ...r, method: 'POST' }, stopped);
        if (opts.latencyMs) await sleep(opts.latencyMs);
        return send(res, upstream);
      }
      const ctx: RpcContext = {
        http: r,
        forwardLater: (call, delayMs) => {
          const p = sleep(delayMs)
            .then(() => (stopped.aborted ? undefined : rpcCallUp(call, r)))
            .catch(() => undefined);
          later.add(p);
          void p.finally(() => later.delete(p));
        },
      };
      const answers: Array<Envelope | Answer> = [];
      for (const c of calls as RpcCall[]) {
        let upstream: Envelope | Raw | undefined;
        let forwarded: string | undefined;
        const next = async (changed?: RpcCall) => {
          const sent = changed ?? c;
          forwarded = JSON.stringify(sent);
          upstream = await rpcCallUp(sent, r);
          return upstream;
        };
        const a = await opts.rpc(c, next, ctx);
        const untouched =
          upstream !== undefined &&
          forwarded === JSON.stringify(c) &&
          (a instanceof Raw
            ? upstream instanceof Raw && sameRaw(a, upstream)
            : !(a instanceof Fault) && !(upstream instanceof Raw) && JSON.stringify(a) === JSON.stringify(upstream));
        if (!untouched) hits++;
        answers.push(a);
      }
      if (opts.latencyMs) await sleep(opts.latencyMs);
      const whole = answers.find((a): a is Answer => a instanceof Raw || a instanceof Fault);
      if (whole) return send(res, whole);
      send(res, Raw.json(200, Array.isArray(parsed) ? answers : answers[0]));
    })().catch((err: Error) => {
      if (!res.headersSent) send(res, Raw.text(502, 'text/plain', `fault proxy: ${err.message}`));
    });
  });

  const restUrl = rest.url + restBase.pathname.replace(/\/+$/, '');
  return {
    restUrl,
    rpcUrl: rpc.url,
    get hits() {
      return hits;
    },
    get exchanges() {
      return exchanges;
    },
    async stop() {
      // Let delayed submissions land first: the signer's nonce sequence must stay intact.
      await Promise.allSettled([...later]);
      stopping.abort('proxy stopped');
      for (const s of [rest, rpc]) {
        for (const sock of s.sockets) sock.destroy();
        await new Promise<void>((resolve) => s.server.close(() => resolve()));
      }
    },
  };
}

function pick(h: Record<string, string>, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (h[n] !== undefined) out[n] = h[n];
  return out;
}
