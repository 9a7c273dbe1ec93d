/**
 * An interface that answers the run's start-up probe and then goes down (a node stopped, a server
 * gone) is one fact of the whole target, said once: its checks are not judged (cause `gateway`,
 * "gateway or backend down"), the run is incomplete (exit 3), never a failure per check citing
 * rules nothing broke. One that is back within a few seconds (restarted by its supervisor) is
 * judged as it answers then; a request that takes it down every time is that request's failure. A
 * request of its own that gets no answer while the interface still answers stays the check's
 * failure (test/faults: rpc.nonce-reset, rpc.code-hangs, rest.list-hangs).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAddress } from 'viem';
import { main } from '../../src/cli/main';
import type { RunDocument } from '../../src/verdict/document';
import { check } from '../../src/harness/check';
import { runChecks } from '../../src/harness/runner';
import { closeServer, listenLoopback } from '../support/loopback';
import { decided, testCheckMeta, testRunEnv } from '../support/runs';
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

describe.each<Gone>(['refused', 'reset', 'silent'])('an interface that answered the probe, then went down for good (%s)', (gone) => {
  it('is not judged, one root, exit 3, nothing failed: JSON-RPC, and REST (whose probe list is judged)', async () => {
    const node = await answersOnce(() => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }) }), gone);
    const api = await answersOnce(() => ({ status: 200, body: JSON.stringify({ tokens: [record] }) }), gone);
    try {
      // Side by side: each waits out the few seconds a restarted node would take to be back.
      const [rpc, rest] = await Promise.all([run(['--rpc-url', node.url, '--only', 'rpc']), run(['--base-url', api.url, '--only', 'rest'])]);
      for (const [r, iface] of [
        [rpc, 'rpc'],
        [rest, 'rest'],
      ] as const) {
        const failed = r.doc.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.reason.slice(0, 160)}`);
        expect({ iface, code: r.code, failed, roots: r.doc.rootCauses.map((x) => x.id) }).toEqual({
          iface,
          code: 3,
          failed: [],
          roots: [`gateway or backend down: ${iface}`],
        });
        expect(r.doc.checks.filter((c) => c.status === 'inconclusive').every((c) => c.cause === 'gateway')).toBe(true);
      }
      expect(rpc.doc.checks.filter((c) => c.status !== 'skipped').length).toBeGreaterThan(20);
      expect(rpc.doc.rootCauses[0]!.reason).toMatch(/asked again for 5 s, eth_chainId got no answer .*answered the run's start-up probe and then went down/);
      expect(rpc.console).toMatch(/gateway or backend down: rpc/);
      // What the probe read is evidence: the record checks judged it.
      expect(rest.doc.checks.find((c) => c.id === 'rest.token.field.isin')?.status).toBe('passed');
    } finally {
      await Promise.all([node.stop(), api.stop()]);
    }
  }, 60_000);
});

/**
 * A REST server that, when a request matching `crashes` comes, goes down for `downMs`: every
 * connection it holds dropped (the requests in flight get no answer), every new one dropped until
 * then. Other requests are answered after `answerMs` (so that some are in flight when it crashes).
 */
async function restarting(crashes: (url: string) => boolean, downMs: number, answerMs = 0) {
  let downUntil = 0;
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    if (Date.now() < downUntil) return req.socket.destroy();
    if (crashes(req.url ?? '')) {
      downUntil = Date.now() + downMs;
      return server.closeAllConnections();
    }
    setTimeout(() => {
      if (Date.now() < downUntil) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tokens: [] }));
    }, answerMs);
  });
  const url = await listenLoopback(server);
  return { url, seen, stop: () => closeServer(server) };
}

const getCheck = (id: string, path: string) => check(testCheckMeta(id), async ({ rest }) => void ctxNote(await rest.get(path)));
const ctxNote = (res: { status: number }) => expect(res.status).toBe(200);

it("a gateway's 502/503/504 to the interface asked again is that fact (cause gateway), not the request's failure", async () => {
  const server = http.createServer((req, res) => (req.url === '/v1/x' ? req.socket.destroy() : res.writeHead(503).end()));
  const url = await listenLoopback(server);
  try {
    const [r] = decided(await runChecks([getCheck('x', '/v1/x')], testRunEnv(url, { gateway: {} }), { concurrency: 1 }));
    expect([r.status, r.cause, r.interface]).toEqual(['inconclusive', 'gateway', 'rest']);
  } finally {
    await closeServer(server);
  }
}, 30_000);

describe('an interface that goes down and comes back within a few seconds', () => {
  it('restarted once (1 s) under a read: the read is sent again once it is back, and judged on that answer; nothing is taken for down', async () => {
    let crashed = false;
    const server = await restarting((u) => u === '/v1/a' && !crashed && (crashed = true), 1000);
    try {
      const results = decided(await runChecks([getCheck('a', '/v1/a'), getCheck('b', '/v1/b')], testRunEnv(server.url, { gateway: {} }), { concurrency: 1 }));
      expect(results.map((r) => [r.id, r.status])).toEqual([
        ['rest.test.a', 'passed'],
        ['rest.test.b', 'passed'],
      ]);
      // Dropped (and its immediate retry, the server still down), then sent again once it is back.
      expect(server.seen.filter((u) => u === '/v1/a').length).toBeGreaterThanOrEqual(2);
    } finally {
      await server.stop();
    }
  });

  it('taken down by one request every time, beside others in flight: that request fails (cause transport), the others are judged on their answers', async () => {
    const server = await restarting((u) => u === '/v1/boom', 1000, 100);
    const others = ['b', 'c', 'd', 'e', 'f', 'g'];
    try {
      const results = decided(
        await runChecks([getCheck('boom', '/v1/boom'), ...others.map((x) => getCheck(x, `/v1/${x}`))].reverse(), testRunEnv(server.url, { gateway: {} }), {
          concurrency: 8,
        }),
      );
      expect(results.map((r) => [r.id, r.status, r.cause]).sort()).toEqual(
        [['rest.test.boom', 'failed', 'transport'] as const, ...others.map((x) => [`rest.test.${x}`, 'passed', undefined] as const)].sort(),
      );
    } finally {
      await server.stop();
    }
  }, 60_000);
});
