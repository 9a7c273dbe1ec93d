// Small helpers shared by the two HTTP servers (node:http, no framework).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export class BodyTooLarge extends Error {}

/** Reads the request body, refusing more than limit bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume(); // drain, so the connection can still carry our answer
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, opts: { headers?: Record<string, string>; omitBody?: boolean } = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...opts.headers,
  });
  res.end(opts.omitBody ? undefined : text);
}

export interface Listening {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * Accepted request headers, in bytes: a credential may be a 64 KiB token (an 8 KB JWT is common),
 * and the reference accepts what a provider's gateway does (Node's 16 KiB answered 431).
 */
const MAX_HEADER_BYTES = 256 * 1024;

/** Listens on loopback only; port 0 picks a free port. */
export function listenLoopback(port: number, handler: RequestListener): Promise<Listening> {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, handler);
  // Keep-alive sockets must not hold stop() up.
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
