// A fleet on loopback: a small load balancer in front of several backends, the way a provider's
// RPC URL or an API team's staging is served. Each backend is the fault proxy (test/faults/proxy.ts)
// over the one reference target, with its own rewrite (or none): one misconfigured backend
// answers only the share of requests the balancer routes to it. Routing is round-robin, per
// request (each HTTP request goes to the next backend) or per connection (a connection is
// pinned to the backend its first request went to, as L4 balancers do). Binds 127.0.0.1 only.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startProxy, type Proxy, type ProxyOptions } from './proxy';
import { askUpstream, passedOn, requestBody, requestHeaders, sharedSignal } from './upstream';

export type Routing = 'request' | 'connection';

export interface Backend {
  rest?: ProxyOptions['rest'];
  rpc?: ProxyOptions['rpc'];
}

export interface Fleet {
  restUrl: string;
  rpcUrl: string;
  /** Requests each backend was sent, REST and JSON-RPC. */
  readonly routed: number[];
  /** Connections the balancer accepted, REST and JSON-RPC. */
  readonly connections: number;
  stop(): Promise<void>;
}

const UPSTREAM_TIMEOUT_MS = 30_000;

/** Start the backends and the balancer (one port for REST, one for JSON-RPC). */
export async function startFleet(upstream: { baseUrl: string; rpcUrl: string }, backends: Backend[], routing: Routing): Promise<Fleet> {
  const proxies: Proxy[] = await Promise.all(
    backends.map((b) => startProxy({ restUpstream: upstream.baseUrl, rpcUpstream: upstream.rpcUrl, rest: b.rest, rpc: b.rpc })),
  );
  const routed = backends.map(() => 0);
  const stopping = new AbortController();
  const stopped = sharedSignal(stopping);
  let connections = 0;
  let next = 0;
  const pinned = new WeakMap<Socket, number>();
  const pick = (socket: Socket): number => {
    if (routing === 'request') return next++ % proxies.length;
    let k = pinned.get(socket);
    if (k === undefined) pinned.set(socket, (k = next++ % proxies.length));
    return k;
  };

  const balancer = async (kind: 'rest' | 'rpc') => {
    const sockets = new Set<Socket>();
    const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        const k = pick(req.socket);
        routed[k]++;
        const body = await requestBody(req);
        const base = kind === 'rest' ? new URL(proxies[k].restUrl).origin : proxies[k].rpcUrl;
        const headers = requestHeaders(req.headers);
        const method = req.method ?? 'GET';
        const up = await askUpstream(kind === 'rest' ? new URL(req.url ?? '/', base) : base, { method, headers, body }, UPSTREAM_TIMEOUT_MS, stopped);
        res.writeHead(up.status, passedOn(up.headers));
        res.end(method === 'HEAD' ? undefined : up.body);
      })().catch(() => {
        // A backend that reset or hung: the balancer drops the client's connection too.
        if (!res.headersSent) res.socket?.destroy();
      });
    });
    // Idle connections stay open until stop(), so a connection routed to a backend keeps it, as
    // an L4 balancer's does. At 1 s (the first setting) the suite's client, which closes an idle
    // socket a second before the server says it would, opened a new one for every request:
    // routing per connection was then routing per request.
    server.keepAliveTimeout = 0;
    server.on('connection', (s: Socket) => {
      connections++;
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return { server, sockets, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const rest = await balancer('rest');
  const rpc = await balancer('rpc');
  return {
    restUrl: rest.url + new URL(upstream.baseUrl).pathname.replace(/\/+$/, ''),
    rpcUrl: rpc.url,
    routed,
    get connections() {
      return connections;
    },
    async stop() {
      stopping.abort('fleet stopped');
      for (const s of [rest, rpc]) {
        for (const sock of s.sockets) sock.destroy();
        await new Promise<void>((resolve) => s.server.close(() => resolve()));
      }
      await Promise.all(proxies.map((p) => p.stop()));
    },
  };
}
