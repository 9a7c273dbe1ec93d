// recentBlocks: a block read whole (with its transactions, the largest answer a run asks for) is
// asked once per run by the scans of several checks and shared searches, and shown with every
// check that looked at it. Blocks near the head and the pending block, which change, are asked by
// each scan; so is a block the node did not give (a refusal stands for no one but its asker).
import type http from 'node:http';
import { check } from '../../src/harness/check';
import { BLOCKS_LANE, recentBlocks, SHARED_BELOW_HEAD, type ChainContext } from '../../src/harness/chain';
import { fail } from '../../src/harness/verdict';
import { runChecks, type CheckResult } from '../../src/harness/runner';
import { closeServer, jsonRpcLoopback } from '../support/loopback';
import { testRunEnv } from '../support/runs';

let server: http.Server;
let url: string;
/** The calls the node was asked, as `method params`. */
let asked: string[] = [];
/** Blocks the node refuses the next time they are asked ("header not found", as a backend behind answers). */
let refuseOnce = new Set<string>();
/** Blocks whose answer comes this late (the next time only, for those in slowOnce). */
let slow = new Map<string, number>();
let slowOnce = new Set<string>();

const HEAD = 6;
beforeAll(async () => {
  ({ server, url } = await jsonRpcLoopback(({ method, params }, reply) => {
    asked.push(`${method} ${JSON.stringify(params)}`);
    const param = String(params[0]);
    const number = param === 'pending' ? HEAD + 1 : Number(param);
    const block = {
      number: `0x${number.toString(16)}`,
      hash: `0x${'ab'.repeat(32)}`,
      transactions: [{ from: `0x${'11'.repeat(20)}`, nonce: '0x0', to: null }],
    };
    const answer =
      method === 'eth_blockNumber'
        ? { result: `0x${HEAD.toString(16)}` }
        : refuseOnce.delete(param)
          ? { error: { code: -32000, message: 'header not found' } }
          : { result: block };
    const late = slow.get(param);
    if (late !== undefined) {
      if (slowOnce.delete(param)) slow.delete(param);
      setTimeout(() => reply(answer), late);
    } else reply(answer);
  }));
});
afterAll(() => closeServer(server));
beforeEach(() => {
  asked = [];
  refuseOnce = new Set();
  slow = new Map();
  slowOnce = new Set();
});

const meta = (id: string) => ({ id: `rpc.blocks.${id}`, title: id, statements: ['4.2.1'], level: 'required' as const, needs: ['rpc' as const] });
const env = () => testRunEnv(url, { baseUrl: undefined });

/** The numbers of the blocks a scan was given, in order. */
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

const ALL = ['pending', '0x6', '0x5', '0x4', '0x3', '0x2', '0x1', '0x0'];
/** Blocks SHARED_BELOW_HEAD or more below the head, and those nearer it. */
const DEEP = ['0x4', '0x3', '0x2', '0x1', '0x0'];
const NEAR = ['0x6', '0x5'];
const reads = (param: string) => asked.filter((a) => a === `eth_getBlockByNumber ["${param}",true]`).length;

it('asks each deep block once for two checks and a shared search that scan the same blocks; each shows every block it looked at', async () => {
  expect(SHARED_BELOW_HEAD).toBe(2n); // DEEP and NEAR above are written for it
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
  const results = await runChecks(checks, env(), { concurrency: 3 });
  expect(results.map((r) => `${r.id}: ${r.status} ${r.reason}`)).toEqual(['a', 'b', 'c'].map((id) => `rpc.blocks.${id}: failed looked at 8`));
  expect(looked).toEqual({ a: ALL, b: ALL, c: ALL });
  expect(Object.fromEntries(ALL.map((p) => [p, reads(p)]))).toEqual(Object.fromEntries(ALL.map((p) => [p, DEEP.includes(p) ? 1 : 3])));
  expect(NEAR.every((p) => !DEEP.includes(p))).toBe(true);
  for (const r of results) expect(shownBlocks(r)).toEqual([...ALL].sort());
});

it('asks again a block the node did not give: one refusal is not shared with the scans after it', async () => {
  refuseOnce.add('0x1');
  const looked: string[][] = [];
  const one = (id: string) => check(meta(id), async (ctx) => void looked.push(await scan(ctx)));
  await runChecks([one('a'), one('b')], env(), { concurrency: 1 });
  expect(reads('0x1')).toBe(2);
  expect(reads('0x2')).toBe(1);
  expect(looked).toEqual([ALL.filter((p) => p !== '0x1'), ALL]);
});

it('asks again a block whose read failed (no answer within --timeout-ms): one transport error fails only the check that met it', async () => {
  slow.set('0x1', 1500); // past the run's --timeout-ms of 1 s
  slowOnce.add('0x1');
  const one = (id: string) => check(meta(id), async (ctx) => void (await scan(ctx)));
  const results = await runChecks([one('a'), one('b')], env(), { concurrency: 1 });
  expect(results.map((r) => `${r.id}: ${r.status}`)).toEqual(['rpc.blocks.a: failed', 'rpc.blocks.b: passed']);
  expect(reads('0x1')).toBe(2);
});

it('a check stopped while it waits on a shared block shows the read it waited on', async () => {
  slow.set('0x1', 1500);
  const [r] = await runChecks([check(meta('a'), async (ctx) => void (await scan(ctx)))], env(), { concurrency: 1, checkTimeoutMs: 500 });
  expect(r.status).toBe('inconclusive');
  expect(shownBlocks(r)).toContain('0x1');
});

it('asks a deep block again in another run (under --samples, in another wave): it is shared within one, never kept', async () => {
  const one = check(meta('a'), async (ctx) => void (await scan(ctx)));
  await runChecks([one], env(), { concurrency: 1 });
  await runChecks([one], env(), { concurrency: 1 });
  expect(reads('0x1')).toBe(2);
});
