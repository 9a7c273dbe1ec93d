import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1 (a free port); the server's origin, http://127.0.0.1:<port>. */
export async function listenLoopback(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server and every connection it holds (keep-alive ones would hold close() open). */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
}

/** One JSON-RPC call as a client sent it. */
export interface JsonRpcCall {
  id: number;
  method: string;
  params: unknown[];
}

/**
 * A JSON-RPC node on 127.0.0.1: each request's call goes to `answer`, which replies through
 * `reply`, at once or later, with the member that follows `jsonrpc` and `id` (a result or an error).
 */
export async function jsonRpcLoopback(
  answer: (call: JsonRpcCall, reply: (member: { result: unknown } | { error: unknown }) => void) => void,
): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcCall;
      answer(call, (member) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...member })));
    });
  });
  return { server, url: await listenLoopback(server) };
}
