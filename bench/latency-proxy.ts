// A loopback HTTP proxy that holds every request `delayMs` before forwarding it: each JSON-RPC
// call then costs one extra round trip of that length, so a run's wall-time difference with and
// without it counts the round trips on the run's critical path.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LatencyProxy {
  url: string;
  close(): Promise<void>;
}

export async function startLatencyProxy(upstream: string, delayMs: number): Promise<LatencyProxy> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
        fetch(upstream, {
          method: req.method,
          headers,
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
          signal: AbortSignal.timeout(30_000),
        })
          .then(async (answer) => {
            const body = Buffer.from(await answer.arrayBuffer());
            res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
            res.end(body);
          })
          .catch((err: Error) => {
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(err.message);
          });
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
