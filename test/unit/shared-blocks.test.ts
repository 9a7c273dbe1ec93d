// recentBlocks: a block read whole (with its transactions, the largest answer a run asks for) is
// asked once per run by the scans of several checks and shared searches, and shown with every
// check that looked at it; the pending block, which changes every refresh, is asked by each.
import http from 'node:http';
import { check } from '../../src/harness/check';
import { BLOCKS_LANE, recentBlocks, type ChainContext } from '../../src/harness/chain';
import { fail } from '../../src/harness/verdict';
import { runChecks, type CheckResult } from '../../src/harness/runner';
import { closeServer, listenLoopback } from '../support/loopback';
import { testRunEnv } from '../support/runs';

let server: http.Server;
let url: string;
/** The calls the node was asked, as `method params`. */
let asked: string[] = [];

const HEAD = 3;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string; params: unknown[] };
      asked.push(`${method} ${JSON.stringify(params)}`);
      const number = params[0] === 'pending' ? HEAD + 1 : Number(params[0]);
      const block = {
        number: `0x${number.toString(16)}`,
        hash: `0x${'ab'.repeat(32)}`,
        transactions: [{ from: `0x${'11'.repeat(20)}`, nonce: '0x0', to: null }],
      };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'eth_blockNumber' ? `0x${HEAD.toString(16)}` : block }));
    });
  });
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));
beforeEach(() => (asked = []));

const meta = (id: string) => ({ id: `rpc.blocks.${id}`, title: id, statements: ['4.2.1'], level: 'required' as const, needs: ['rpc' as const] });

/** The numbers of the blocks a scan looked at, in order. */
async function scan(ctx: ChainContext): Promise<string[]> {
  const seen: string[] = [];
  for await (const b of recentBlocks(ctx, { recent: HEAD + 1, pending: true })) seen.push(b.param);
  return seen;
}

/** The block reads shown with a check: `param` of each eth_getBlockByNumber(param, true). */
const shownBlocks = (r: CheckResult) =>
  r.exchanges
    .map((e) => JSON.parse(e.request.body!) as { method: string; params: unknown[] })
    .filter((b) => b.method === 'eth_getBlockByNumber')
    .map((b) => String(b.params[0]))
    .sort();

it('asks each numbered block once for two checks and a shared search that scan the same blocks; each shows every block it looked at', async () => {
  const looked: Record<string, string[]> = {};
  const checks = [
    // Each fails once it has looked: a failed check keeps the exchanges it judged.
    check(meta('a'), async (ctx) => fail(`looked at ${(looked.a = await scan(ctx)).length}`)),
    check(meta('b'), async (ctx) => fail(`looked at ${(looked.b = await scan(ctx)).length}`)),
    // A shared search scans from its own scope: its block reads are shared with the checks' too.
    check(meta('c'), async (ctx) => {
      looked.c = await ctx.shared('search', ['search', BLOCKS_LANE], (scope) =>
        scan({ rpc: scope.rpc('search'), signal: scope.signal, settings: scope.settings, note: () => undefined, shared: scope.shared }),
      );
      fail(`looked at ${looked.c.length}`);
    }),
  ];
  const results = await runChecks(checks, testRunEnv(url, { baseUrl: undefined }), { concurrency: 3 });
  expect(results.map((r) => `${r.id}: ${r.status} ${r.reason}`)).toEqual(['a', 'b', 'c'].map((id) => `rpc.blocks.${id}: failed looked at 5`));
  const blocks = ['pending', '0x3', '0x2', '0x1', '0x0'];
  expect(looked).toEqual({ a: blocks, b: blocks, c: blocks });
  const whole = asked.filter((a) => a.startsWith('eth_getBlockByNumber'));
  // Each numbered block once in the run; the pending block by each scan.
  expect(whole.sort()).toEqual(
    [...['0x0', '0x1', '0x2', '0x3'].map((n) => `eth_getBlockByNumber ["${n}",true]`), ...Array(3).fill('eth_getBlockByNumber ["pending",true]')].sort(),
  );
  for (const r of results) expect(shownBlocks(r)).toEqual([...blocks].sort());
});

it('asks a numbered block again in another run (under --samples, in another wave): it is shared within one, never kept', async () => {
  const one = check(meta('a'), async (ctx) => void (await scan(ctx)));
  await runChecks([one], testRunEnv(url, { baseUrl: undefined }), { concurrency: 1 });
  await runChecks([one], testRunEnv(url, { baseUrl: undefined }), { concurrency: 1 });
  expect(asked.filter((a) => a === 'eth_getBlockByNumber ["0x1",true]')).toHaveLength(2);
});
