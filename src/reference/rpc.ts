// Minimal JSON-RPC plumbing to the anvil node: a raw client, and the lock-aware view that
// everything outside the pre-confirmation critical sections uses.
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import { RwLock } from './lock';

// undici's Agent and its request API, each from its own module: the package's index also loads
// fetch, WebSocket, the mock agents and more, a tenth of a second of the reference's start-up on
// the embedded run's critical path (index.ts, loadParts). undici has no exports map: these are its
// own files, as its index requires them (test/reference/viem-parts.test.ts checks them too).
const Agent = require('undici/lib/dispatcher/agent') as typeof UndiciAgent;
const requestOn = require('undici/lib/api/api-request') as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object (not null, not an array). The reference keeps its own: it shares no code with the judge. */
export function isObject(v: unknown): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: Json;
}

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: Json;
  result?: Json;
  error?: JsonRpcError;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Json,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

const UPSTREAM_TIMEOUT_MS = 30_000;

/** Calls made in one turn of the event loop that go to anvil as one batch, at most. */
const MAX_COALESCED = 64;

/** Talks to anvil directly, without the lock. Only code holding the lock should use it. */
export class AnvilRpc {
  private nextId = 1;
  private pool: UndiciAgent | undefined;
  /** Where the requests go, as undici's request API takes it. */
  private readonly target: { origin: string; path: string };
  private waiting: Array<{ body: Record<string, Json>; resolve(res: JsonRpcResponse): void; reject(err: unknown): void }> = [];

  constructor(readonly url: string) {
    const u = new URL(url);
    this.target = { origin: u.origin, path: `${u.pathname}${u.search}` };
  }

  /**
   * Sends one request and returns anvil's response object. The upstream id is our own (the
   * caller restores the client's), so odd client ids and notifications cannot confuse anvil.
   * Requests made in the same turn of the event loop (the gateway's clients asking at once) go
   * as one batch, in the order they were made: each HTTP round trip to anvil costs this process a
   * write and a wake-up of anvil, more than anvil's work on most answers.
   */
  forward(request: { method: string; params?: Json }): Promise<JsonRpcResponse> {
    const body: Record<string, Json> = { jsonrpc: '2.0', id: this.nextId++, method: request.method };
    if (request.params !== undefined) body.params = request.params;
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ body, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const calls = this.waiting.splice(0, MAX_COALESCED);
    if (this.waiting.length > 0) setImmediate(() => this.flush());
    if (calls.length === 1) {
      const [only] = calls;
      this.post(only.body).then((res) => only.resolve(res as JsonRpcResponse), only.reject);
      return;
    }
    this.post(calls.map((c) => c.body)).then(
      (answers) => {
        const byId = new Map(Array.isArray(answers) ? (answers as JsonRpcResponse[]).map((a) => [a.id, a]) : []);
        for (const c of calls) {
          const res = byId.get(c.body.id);
          if (res) c.resolve(res);
          else c.reject(new RpcError(-32603, Array.isArray(answers) ? 'upstream dropped a batch answer' : 'upstream answered a batch with a non-array'));
        }
      },
      (err: unknown) => calls.forEach((c) => c.reject(err)),
    );
  }

  async call<T = Json>(method: string, params: Json[] = []): Promise<T> {
    return unwrap(await this.forward({ method, params })) as T;
  }

  /** One HTTP round trip for many calls; throws the first error. */
  async batch<T = Json>(calls: Array<[method: string, params: Json[]]>): Promise<T[]> {
    return (await this.batchResponses(calls)).map((res) => unwrap(res) as T);
  }

  /** One HTTP round trip for many calls (anvil runs them in order); answers in call order. */
  async batchResponses(calls: Array<[method: string, params: Json[]]>): Promise<JsonRpcResponse[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: first + i, method, params }));
    const answers = (await this.post(body)) as JsonRpcResponse[];
    if (!Array.isArray(answers)) throw new RpcError(-32603, 'upstream answered a batch with a non-array');
    const byId = new Map(answers.map((a) => [a.id, a]));
    return calls.map((_, i) => {
      const res = byId.get(first + i);
      if (!res) throw new RpcError(-32603, 'upstream dropped a batch answer');
      return res;
    });
  }

  private async post(body: unknown): Promise<unknown> {
    // undici's request API on a keep-alive pool of its own: fetch cost this gateway more CPU per
    // call than anvil's answer (its streams, Request objects and a timeout signal per call).
    const res = await requestOn.call((this.pool ??= new Agent()), {
      ...this.target,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: UPSTREAM_TIMEOUT_MS,
      bodyTimeout: UPSTREAM_TIMEOUT_MS,
    });
    const text = await res.body.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new RpcError(-32603, `upstream answered HTTP ${res.statusCode} with non-JSON: ${text.slice(0, 200)}`);
    }
  }

  /** Closes the pool's sockets (the reference is stopping). */
  async close(): Promise<void> {
    await this.pool?.close();
  }
}

function unwrap(res: JsonRpcResponse): Json {
  if (res.error) throw new RpcError(res.error.code, res.error.message, res.error.data);
  return res.result ?? null;
}

/** One transaction of anvil's pool as txpool_content lists it. */
export interface Pooled {
  hash: string;
  nonce: string;
}

/** `sender`'s (lower case) transactions in anvil's pool: ready ones (pending) and those waiting for a nonce (queued). */
export async function senderPool(raw: AnvilRpc, sender: string): Promise<{ pending: Pooled[]; queued: Pooled[] }> {
  type BySender = Record<string, Record<string, Pooled>>;
  const pool = await raw.call<{ pending?: BySender; queued?: BySender }>('txpool_content');
  const of = (m?: BySender) => Object.entries(m ?? {}).flatMap(([from, byNonce]) => (from.toLowerCase() === sender ? Object.values(byNonce) : []));
  return { pending: of(pool.pending), queued: of(pool.queued) };
}

/** The shared view of anvil: every request waits while a pre-confirmation step holds the lock. */
export class Upstream {
  readonly lock = new RwLock();

  constructor(readonly raw: AnvilRpc) {}

  forward(request: { method: string; params?: Json }): Promise<JsonRpcResponse> {
    return this.lock.shared(() => this.raw.forward(request));
  }

  call<T = Json>(method: string, params: Json[] = []): Promise<T> {
    return this.lock.shared(() => this.raw.call<T>(method, params));
  }

  batch<T = Json>(calls: Array<[string, Json[]]>): Promise<T[]> {
    return this.lock.shared(() => this.raw.batch<T>(calls));
  }

  /**
   * Runs fn beside other readers but never during an exclusive section: state that only
   * exclusive sections change (the pre-confirmation model's) stays put while fn runs.
   */
  shared<T>(fn: (raw: AnvilRpc) => Promise<T>): Promise<T> {
    return this.lock.shared(() => fn(this.raw));
  }

  /** Runs fn alone: no other upstream request is in flight or starts until it returns. */
  exclusive<T>(fn: (raw: AnvilRpc) => Promise<T>): Promise<T> {
    return this.lock.exclusive(() => fn(this.raw));
  }
}
