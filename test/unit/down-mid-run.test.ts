/**
 * An interface that answers the run's start-up probe and then goes down (a node restarting, a
 * server stopped) is one fact of the whole target, said once: its checks are not judged (cause
 * `gateway`, "gateway or backend down"), the run is incomplete (exit 3), never a failure per
 * check citing rules nothing broke. A request of its own that gets no answer while the interface
 * still answers stays the check's failure (test/faults: rpc.nonce-reset, rpc.code-hangs,
 * rest.list-hangs).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAddress } from 'viem';
import { main } from '../../src/cli/main';
import type { RunDocument } from '../../src/verdict/document';
import { closeServer, listenLoopback } from '../support/loopback';
import { sink } from '../support/sink';

type Gone = 'refused' | 'reset' | 'silent';

/** A server that answers its first request with `first` and then, as `gone` says, nothing. */
async function answersOnce(first: (req: http.IncomingMessage) => { status: number; body: string }, gone: Gone) {
  let answered = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (answered++ === 0) {
        const a = first(req);
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
        if (gone === 'refused') server.close();
        return;
      }
      if (gone === 'reset') req.socket.destroy();
      // 'silent': never answered (the client's --timeout-ms ends it); 'refused': a kept-alive connection closed.
      else if (gone === 'refused') req.socket.destroy();
    });
  });
  const url = await listenLoopback(server);
  return { url, stop: () => closeServer(server).catch(() => undefined) };
}

async function run(args: string[]): Promise<{ code: number; doc: RunDocument; console: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'down-mid-run-'));
  const out = sink();
  const code = await main([...args, '--report-dir', dir, '--timeout-ms', '1000'], {}, { out: out.stream, err: out.stream });
  return { code, doc: JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunDocument, console: out.text() };
}

const record = {
  contract_address: getAddress('0x' + 'ab'.repeat(20)),
  symbol: 'AAPLx',
  name: 'Apple Inc.',
  decimals: 18,
  icon_url: 'https://icons.example.com/aapl.png',
  total_supply: 1000.5,
  isin: 'US0378331005',
  multiplier: 1,
  paused_features: [],
  nav_price: 187.25,
  nav_price_updated_at: new Date().toISOString(),
};

describe.each<Gone>(['refused', 'reset', 'silent'])('an interface that answered the probe, then went down (%s)', (gone) => {
  it('JSON-RPC: not judged, one root, exit 3, nothing failed', async () => {
    const node = await answersOnce(() => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }) }), gone);
    try {
      const { code, doc, console } = await run(['--rpc-url', node.url, '--only', 'rpc']);
      const failed = doc.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.reason.slice(0, 160)}`);
      expect({ code, failed, roots: doc.rootCauses.map((r) => r.id) }).toEqual({ code: 3, failed: [], roots: ['gateway or backend down: rpc'] });
      const judged = doc.checks.filter((c) => c.status !== 'skipped');
      expect(judged.length).toBeGreaterThan(20);
      for (const c of judged) expect([c.id, c.status, c.cause]).toEqual([c.id, 'inconclusive', 'gateway']);
      expect(doc.rootCauses[0]!.reason).toMatch(/asked again, eth_chainId got no answer either .*answered the run's start-up probe and then went down/);
      expect(console).toMatch(/gateway or backend down: rpc/);
    } finally {
      await node.stop();
    }
  }, 60_000);

  it("REST: the probe's list is judged, the rest not judged, one root, exit 3, nothing failed", async () => {
    const api = await answersOnce(() => ({ status: 200, body: JSON.stringify({ tokens: [record] }) }), gone);
    try {
      const { code, doc } = await run(['--base-url', api.url, '--only', 'rest']);
      const failed = doc.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.reason.slice(0, 160)}`);
      expect({ code, failed, roots: doc.rootCauses.map((r) => r.id) }).toEqual({ code: 3, failed: [], roots: ['gateway or backend down: rest'] });
      // What the probe read is evidence: the record checks judged it.
      expect(doc.checks.find((c) => c.id === 'rest.token.field.isin')?.status).toBe('passed');
      expect(doc.checks.filter((c) => c.status === 'inconclusive').every((c) => c.cause === 'gateway')).toBe(true);
    } finally {
      await api.stop();
    }
  }, 60_000);
});
