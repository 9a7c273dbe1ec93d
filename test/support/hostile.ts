/**
 * A hostile target on 127.0.0.1: a real HTTP server that answers every request from a function
 * of what it was sent. `echoed(req)` is everything a careless or malicious server could repeat
 * back (method, path and query, every header, the decoded Basic credentials, the body), so a
 * test can check that none of it reaches a report.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  /** Path and query as sent, e.g. "/v2/q7Xw2kLm9PzR4tYb?apikey=…". */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The JSON-RPC call(s) of a POST whose body is JSON-RPC; undefined otherwise. */
  rpc?: { id: unknown; method: string } | Array<{ id: unknown; method: string }>;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export interface HostileServer {
  /** http://127.0.0.1:<port> (no trailing slash). */
  origin: string;
  /** Every request seen, in order (bounded: the last 1,000). */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Everything the request carried, as one text: what an echoing server sends back. */
export function echoed(req: SeenRequest): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  // Every Basic credential (Authorization, Proxy-Authorization), decoded as a server reads it.
  const basics = Object.values(req.headers).flatMap((v) => {
    const basic = /^basic\s+(\S+)/i.exec(v);
    if (!basic) return [];
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    return [`basic: ${decoded} user ${decoded.split(':')[0]} password ${decoded.split(':').slice(1).join(':')}`];
  });
  return `${req.method} ${req.url}\n${headers}\n${basics.join('\n')}\n${req.body}`;
}

/** A JSON-RPC answer to each call of the request (a batch answers a batch), made by `member`. */
export function rpcReply(req: SeenRequest, member: (call: { id: unknown; method: string }) => Record<string, unknown>): Reply {
  const one = (call: { id: unknown; method: string }) => ({ jsonrpc: '2.0', id: call.id ?? null, ...member(call) });
  const rpc = req.rpc ?? { id: null, method: '' };
  return { body: JSON.stringify(Array.isArray(rpc) ? rpc.map(one) : one(rpc)) };
}

function parseRpc(body: string): SeenRequest['rpc'] {
  try {
    const v = JSON.parse(body) as unknown;
    const call = (x: unknown) => ({ id: (x as { id?: unknown })?.id, method: String((x as { method?: unknown })?.method ?? '') });
    return Array.isArray(v) ? v.map(call) : typeof v === 'object' && v !== null ? call(v) : undefined;
  } catch {
    return undefined;
  }
}

/** Start a server answering each request with `answer(req)` (JSON, status 200, unless the reply says otherwise). */
export async function startHostile(answer: (req: SeenRequest) => Reply): Promise<HostileServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
      const body = Buffer.concat(chunks).toString('utf8');
      const request: SeenRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers, body, rpc: req.method === 'POST' ? parseRpc(body) : undefined };
      seen.push(request);
      if (seen.length > 1000) seen.shift();
      let reply: Reply;
      try {
        reply = answer(request);
      } catch (err) {
        reply = { status: 500, body: String(err) };
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
  });
  // Keep-alive sockets would hold close() open for the idle timeout.
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
