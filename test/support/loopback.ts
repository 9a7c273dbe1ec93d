import type http from 'node:http';
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
