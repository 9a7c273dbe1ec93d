/**
 * A loopback REST target serving a list of `count` conformant records (unique addresses), for
 * judging very large lists (bench/bench.ts, test/unit/large-list.test.ts). `over` changes chosen
 * records; every method but GET answers 405, and other paths 404, both as rpcStatus.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

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

export interface LargeListRun {
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  exit: number | null;
}

/**
 * `runs` REST runs (`--only rest`) of the built CLI (dist/, as a user runs it) against a list of
 * `count` conformant records served from this process: each run's wall time, its CPU time and
 * its peak RSS (bench/max-rss.js), the target's cost left out.
 */
export async function largeListRuns(count: number, runs: number): Promise<LargeListRun[]> {
  const target = await startLargeListServer(count);
  const out: LargeListRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-large-list-'));
      const [rss, cpu] = [path.join(dir, 'max-rss'), path.join(dir, 'cpu')];
      const started = performance.now();
      const child = spawn(
        process.execPath,
        ['--require', path.join(__dirname, 'max-rss.js'), path.join(__dirname, '../bin/conformance.js'), '--base-url', target.url, '--only', 'rest'],
        { env: { ...process.env, MAX_RSS_FILE: rss, CPU_TIME_FILE: cpu }, stdio: 'ignore', cwd: dir },
      );
      const exit = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const ms = performance.now() - started;
      const read = (file: string) => (existsSync(file) ? Number(readFileSync(file, 'utf8')) : NaN);
      out.push({ ms, cpuMs: read(cpu) / 1000, peakRssMb: read(rss) / 1024, exit });
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await target.close();
  }
  return out;
}
