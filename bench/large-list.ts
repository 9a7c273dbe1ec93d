/**
 * A loopback REST target serving a list of `count` conformant records (unique addresses), for
 * judging very large lists (bench/bench.ts, test/unit/large-list.test.ts). `over` changes chosen
 * records; every method but GET answers 405, and other paths 404, both as rpcStatus.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export function largeListRecord(i: number): Record<string, unknown> {
  return {
    contract_address: `0x${(0x10000000 + i).toString(16).padStart(40, '0')}`,
    symbol: `TK${i}`,
    name: `Token ${i} Inc.`,
    decimals: 18,
    icon_url: `https://icons.example.com/${i}.png`,
    total_supply: 1000.5,
    isin: 'US0378331005',
    multiplier: 1,
    paused_features: [1],
    nav_price: 187.25,
    nav_price_updated_at: '2024-01-02T15:04:05Z',
  };
}

export interface LargeListServer {
  url: string;
  /** GET requests of the list served so far. */
  listGets(): number;
  close(): Promise<void>;
}

export async function startLargeListServer(
  count: number,
  over: (i: number) => Record<string, unknown> = () => ({}),
  extra: Record<string, string> = {},
): Promise<LargeListServer> {
  // Encoded once: the target's own cost (a 15 MB string made bytes on every GET) is not the suite's to measure.
  const body = Buffer.from(JSON.stringify({ tokens: Array.from({ length: count }, (_, i) => ({ ...largeListRecord(i), ...over(i) })) }));
  let gets = 0;
  const status = (res: http.ServerResponse, code: number, grpc: number, message: string) =>
    res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ code: grpc, message, details: [] }));
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (extra[p] !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(extra[p]);
    if (p !== '/v1/tokenized-stocks') return status(res, 404, 5, 'not found');
    if (req.method !== 'GET') return status(res, 405, 12, 'method not allowed');
    gets++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    listGets: () => gets,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
