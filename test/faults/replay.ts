// The replay tier of the fault catalogue: the reference's REST answers, recorded once per run.
// The first request of each method and path goes to the reference; every later one is answered
// from the record, so a variant that rewrites shapes costs no chain reads. Faithful because the
// reference's REST answer depends on nothing else (src/reference/rest-server.ts reads the
// method and the path, never the query, headers or body) and, with no scenario control used,
// the chain state it reads does not change during a run. Loopback only.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RestReplay {
  url: string;
  /** Requests answered by the reference (recorded), and from the record. */
  readonly recorded: number;
  readonly replayed: number;
  stop(): Promise<void>;
}

/** Headers about this connection or this body's framing: never replayed. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

export async function startRestReplay(upstream: string): Promise<RestReplay> {
  const base = new URL(upstream);
  const record = new Map<string, Promise<Recorded>>();
  let replayed = 0;
  const fetchOnce = async (method: string, path: string): Promise<Recorded> => {
    const res = await fetch(new URL(path, base.origin), { method, signal: AbortSignal.timeout(10_000) });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => void (HOP.has(k) ? undefined : (headers[k] = v)));
    return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
  };
  const server = http.createServer((req, res) => {
    req.resume();
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const key = `${method} ${path}`;
    let answer = record.get(key);
    if (answer) replayed++;
    else {
      answer = fetchOnce(method, path);
      record.set(key, answer);
      // A failed recording is not kept: the next request asks again.
      answer.catch(() => record.delete(key));
    }
    answer.then(
      (a) => {
        res.writeHead(a.status, { ...a.headers, 'content-length': String(a.body.length) });
        res.end(method === 'HEAD' ? undefined : a.body);
      },
      (err: Error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`replay: ${err.message}`);
      },
    );
  });
  // Idle sockets stay open until stop(): the proxies' HTTP client reuses them, and a server
  // closing one as the client sends on it (the keep-alive race, likelier when timers run late
  // on a busy machine) would fail a request that was never the target's doing.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${base.pathname.replace(/\/+$/, '')}`,
    get recorded() {
      return record.size;
    },
    get replayed() {
      return replayed;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
