// The replay tier of the fault catalogue: the reference's answers, recorded once per run and
// replayed, so a variant that rewrites shapes costs no reads of the reference.
//
// REST: the first request of each method and path goes to the reference; every later one is
// answered from the record. Faithful because the reference's REST answer depends on nothing
// else (src/reference/rest-server.ts reads the method and the path, never the query, headers
// or body) and, with no scenario control used, the chain state it reads does not change
// during a run.
//
// JSON-RPC: the first call of each method and params goes to the reference; every later one is
// answered from the record, with its own id. Faithful only in front of a reference held still
// (no seal, no transaction sent: see judge.ts), where every read answers the same all run long;
// the gateway reads neither headers nor the id but to echo it. Sends are never recorded. Loopback only.
//
// The proxies of the jest worker holding a replay ask it in this process (Replay.answer); its
// loopback URL serves any other client the same record.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { Raw, type LocalUpstream, type RestRequest } from './proxy';
import { askUpstream } from './upstream';

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The record in front of the reference: served on loopback at `url`, and answered in this
 * process (`answer`) to the proxies of the same jest worker, which then need no second HTTP hop.
 */
export interface Replay extends LocalUpstream {
  url: string;
  /** Requests answered by the reference (recorded), and from the record. */
  readonly recorded: number;
  readonly replayed: number;
  stop(): Promise<void>;
}

/** Headers about this connection or this body's framing or coding: never replayed. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date']);
const UPSTREAM_TIMEOUT_MS = 10_000;

async function ask(url: URL, init: { method: string; headers?: Record<string, string>; body?: Buffer }): Promise<Recorded> {
  const asked = await askUpstream(url, init, UPSTREAM_TIMEOUT_MS);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(asked.headers)) if (!HOP.has(k)) headers[k] = v;
  return { status: asked.status, headers, body: asked.body };
}

/** What the record answers one request with (a replayed or a fresh answer). */
type Answerer = (req: { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: Buffer }) => Promise<Recorded>;

function failed(err: Error): Recorded {
  return { status: 502, headers: { 'content-type': 'text/plain' }, body: Buffer.from(`replay: ${err.message}`) };
}

async function serve(upstream: string, answerer: Answerer, counts: () => { recorded: number; replayed: number }): Promise<Replay> {
  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    void buffer(req)
      .then((body) => answerer({ method, path: req.url ?? '/', headers: req.headers, body }))
      .catch(failed)
      .then((a) => {
        res.writeHead(a.status, { ...a.headers, 'content-length': String(a.body.length) });
        res.end(method === 'HEAD' ? undefined : a.body);
      });
  });
  // Idle sockets stay open until stop(): an HTTP client reusing them, and a server closing one
  // as the client sends on it (the keep-alive race, likelier when timers run late on a busy
  // machine), would fail a request that was never the target's doing.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(upstream).pathname.replace(/\/+$/, '')}`,
    answer: async (req: RestRequest) => {
      const a = await answerer({ ...req, body: Buffer.from(req.body) }).catch(failed);
      // Its own headers: a mutation editing them in place must not edit the record.
      return new Raw(a.status, { ...a.headers }, req.method === 'HEAD' ? '' : a.body.toString('utf8'));
    },
    get recorded() {
      return counts().recorded;
    },
    get replayed() {
      return counts().replayed;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function startRestReplay(upstream: string): Promise<Replay> {
  const base = new URL(upstream);
  const record = new Map<string, Promise<Recorded>>();
  let replayed = 0;
  return serve(
    upstream,
    (req) => {
      const path = new URL(req.path, 'http://x').pathname;
      const key = `${req.method} ${path}`;
      let recorded = record.get(key);
      if (recorded) replayed++;
      else {
        recorded = ask(new URL(path, base.origin), { method: req.method });
        record.set(key, recorded);
        // A failed recording is not kept: the next request asks again.
        recorded.catch(() => record.delete(key));
      }
      return recorded;
    },
    () => ({ recorded: record.size, replayed }),
  );
}

type Call = { method: string; id: number | string; [k: string]: unknown };

/** One call (not a batch) with a method and an id the answer can echo; anything else is passed through. */
function singleCall(body: Buffer): Call | undefined {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    const c = v as Record<string, unknown>;
    return typeof c.method === 'string' && (typeof c.id === 'number' || typeof c.id === 'string') ? (c as Call) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer to `call` as a record of the call's method and params: a 200 JSON-RPC object echoing its id, else nothing to replay. */
function envelopeOf(a: Recorded, call: Call): Record<string, unknown> | undefined {
  if (a.status !== 200) return undefined;
  try {
    const v = JSON.parse(a.body.toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as Record<string, unknown>).id === call.id
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Methods that change the chain: their answers are never recorded (and a run of the replay tier sends none). */
const SENDS = /^eth_send/;

export async function startRpcReplay(upstream: string): Promise<Replay> {
  const url = new URL(upstream);
  /** By method and params: the answer, its id to be replaced; undefined when it is not replayable. */
  const record = new Map<string, Promise<{ headers: Record<string, string>; envelope?: Record<string, unknown> }>>();
  let replayed = 0;
  return serve(
    upstream,
    async (req) => {
      const call = singleCall(req.body);
      const key = call && !SENDS.test(call.method) ? JSON.stringify({ ...call, id: null }) : undefined;
      const kept = key === undefined ? undefined : record.get(key);
      const recorded = kept && (await kept.catch(() => undefined));
      if (call && recorded?.envelope) {
        replayed++;
        const envelope = Object.fromEntries(Object.entries(recorded.envelope).map(([k, v]) => [k, k === 'id' ? call.id : v]));
        return { status: 200, headers: recorded.headers, body: Buffer.from(JSON.stringify(envelope)) };
      }
      const type = req.headers['content-type'];
      const headers = { 'content-type': (Array.isArray(type) ? type.join(', ') : type) ?? 'application/json' };
      const asked = ask(url, req.method === 'GET' || req.method === 'HEAD' ? { method: req.method, headers } : { method: req.method, headers, body: req.body });
      if (call && key !== undefined && !kept) {
        const recording = asked.then((a) => ({ headers: a.headers, envelope: envelopeOf(a, call) }));
        record.set(key, recording);
        // A failed recording is not kept: the next call asks again.
        recording.catch(() => record.delete(key));
      }
      return asked;
    },
    () => ({ recorded: record.size, replayed }),
  );
}
