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
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Replay {
  url: string;
  /** Requests answered by the reference (recorded), and from the record. */
  readonly recorded: number;
  readonly replayed: number;
  stop(): Promise<void>;
}

/** Headers about this connection or this body's framing: never replayed. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

async function ask(url: URL, init: { method: string; headers?: Record<string, string>; body?: Buffer }): Promise<Recorded> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => void (HOP.has(k) ? undefined : (headers[k] = v)));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

function answer(res: http.ServerResponse, a: Recorded, head = false): void {
  res.writeHead(a.status, { ...a.headers, 'content-length': String(a.body.length) });
  res.end(head ? undefined : a.body);
}

function failed(res: http.ServerResponse, err: Error): void {
  res.writeHead(502, { 'content-type': 'text/plain' });
  res.end(`replay: ${err.message}`);
}

async function serve(upstream: string, handler: http.RequestListener, counts: () => { recorded: number; replayed: number }): Promise<Replay> {
  const server = http.createServer(handler);
  // Idle sockets stay open until stop(): the proxies' HTTP client reuses them, and a server
  // closing one as the client sends on it (the keep-alive race, likelier when timers run late
  // on a busy machine) would fail a request that was never the target's doing.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(upstream).pathname.replace(/\/+$/, '')}`,
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
    (req, res) => {
      req.resume();
      const method = req.method ?? 'GET';
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const key = `${method} ${path}`;
      let recorded = record.get(key);
      if (recorded) replayed++;
      else {
        recorded = ask(new URL(path, base.origin), { method });
        record.set(key, recorded);
        // A failed recording is not kept: the next request asks again.
        recorded.catch(() => record.delete(key));
      }
      recorded.then(
        (a) => answer(res, a, method === 'HEAD'),
        (err: Error) => failed(res, err),
      );
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
  const forward = (req: IncomingMessage, body: Buffer) => {
    const method = req.method ?? 'POST';
    const headers = { 'content-type': req.headers['content-type'] ?? 'application/json' };
    return ask(url, method === 'GET' || method === 'HEAD' ? { method, headers } : { method, headers, body });
  };
  return serve(
    upstream,
    (req, res) => {
      void buffer(req)
        .then(async (body) => {
          const call = singleCall(body);
          const key = call && !SENDS.test(call.method) ? JSON.stringify({ ...call, id: null }) : undefined;
          const kept = key === undefined ? undefined : record.get(key);
          const recorded = kept && (await kept.catch(() => undefined));
          if (call && recorded?.envelope) {
            replayed++;
            const envelope = Object.fromEntries(Object.entries(recorded.envelope).map(([k, v]) => [k, k === 'id' ? call.id : v]));
            return answer(res, { status: 200, headers: recorded.headers, body: Buffer.from(JSON.stringify(envelope)) });
          }
          const asked = forward(req, body);
          if (call && key !== undefined && !kept) {
            const recording = asked.then((a) => ({ headers: a.headers, envelope: envelopeOf(a, call) }));
            record.set(key, recording);
            // A failed recording is not kept: the next call asks again.
            recording.catch(() => record.delete(key));
          }
          answer(res, await asked);
        })
        .catch((err: Error) => failed(res, err));
    },
    () => ({ recorded: record.size, replayed }),
  );
}
