/**
 * A loopback target whose every answer is one hostile shape near the 16 MiB body cap: the REST
 * list and every JSON-RPC result (batches too) carry it. For the bounded-work measurements of
 * bench/bench.ts and the tests that a run over such answers still ends with a verdict.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { largeListRecord } from './large-list';

export type Shape = 'wide-list' | 'huge-array' | 'wide-object' | 'deep' | 'long-string' | 'near-cap';

export const SHAPES: readonly Shape[] = ['wide-list', 'huge-array', 'wide-object', 'deep', 'long-string', 'near-cap'];

/** Just under the 16 MiB body cap once the envelope is around it. */
const BYTES = 16 * 1024 * 1024 - 4096;

/** The REST list body and the JSON text of every JSON-RPC result, for one shape. */
export function shapeBodies(shape: Shape, bytes = BYTES): { list: string; result: string } {
  switch (shape) {
    case 'wide-list': {
      // {} per record: 3 bytes each, 5.5 million records at the cap.
      const n = Math.floor((bytes - 20) / 3);
      return { list: `{"tokens":[${'{},'.repeat(n - 1)}{}]}`, result: `[${'{},'.repeat(n - 1)}{}]` };
    }
    case 'huge-array': {
      const n = Math.floor((bytes - 60) / 2);
      const array = `[${'0,'.repeat(n - 1)}0]`;
      return { list: `{"tokens":${array}}`, result: array };
    }
    case 'wide-object': {
      const n = Math.floor((bytes - 60) / 14);
      const members = Array.from({ length: n }, (_, i) => `"k${i.toString(36).padStart(7, '0')}":0`).join(',');
      return { list: `{"tokens":[{${members}}]}`, result: `{${members}}` };
    }
    case 'deep': {
      const n = Math.floor((bytes - 60) / 2);
      const nested = `${'['.repeat(n)}${']'.repeat(n)}`;
      return { list: `{"tokens":[${nested}]}`, result: nested };
    }
    case 'long-string': {
      const s = JSON.stringify('a'.repeat(bytes - 100));
      return { list: `{"tokens":[{"name":${s}}]}`, result: s };
    }
    case 'near-cap': {
      // Conformant records, as many as fit: a real list at the cap.
      const records: string[] = [];
      let size = 20;
      for (let i = 0; ; i++) {
        const r = JSON.stringify(largeListRecord(i));
        if (size + r.length + 1 > bytes) break;
        records.push(r);
        size += r.length + 1;
      }
      const list = `{"tokens":[${records.join(',')}]}`;
      return { list, result: `[${records.join(',')}]` };
    }
  }
}

export interface HostileAnswerServer {
  url: string;
  /** Bytes of the REST list body. */
  listBytes: number;
  close(): Promise<void>;
}

/** Serves /v1/tokenized-stocks and JSON-RPC on /rpc (every call answered with the shape as result). */
export async function startHostileAnswerServer(shape: Shape, bytes?: number): Promise<HostileAnswerServer> {
  const { list, result } = shapeBodies(shape, bytes);
  const listBody = Buffer.from(list);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size < 1 << 20) chunks.push(c);
    });
    req.on('end', () => {
      const p = new URL(req.url ?? '/', 'http://x').pathname;
      if (p === '/v1/tokenized-stocks' && req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(listBody);
      if (p === '/rpc' && req.method === 'POST') {
        let calls: unknown;
        try {
          calls = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          calls = { id: null };
        }
        const id = (c: unknown) => JSON.stringify((c as { id?: unknown } | null)?.id ?? null);
        const one = (c: unknown) => `{"jsonrpc":"2.0","id":${id(c)},"result":${result}}`;
        // A batch gets one member with the shape and the rest short: the body stays under the cap.
        const body = Array.isArray(calls)
          ? `[${calls.map((c, i) => (i === 0 ? one(c) : `{"jsonrpc":"2.0","id":${id(c)},"result":"0x0"}`)).join(',')}]`
          : one(calls);
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"not found","details":[]}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    listBytes: listBody.length,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
