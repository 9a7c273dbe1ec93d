// CheckContext.shared: one observation per run, judged by several checks, each receiving the
// exchanges of the lanes it names. The pre-confirmation pass is built on it.
import http from 'node:http';
import { check, type SharedScope } from '../../src/harness/check';
import { fail, inconclusive } from '../../src/harness/verdict';
import { testRunEnv } from '../support/runs';
import { runChecks, type RunEnv } from '../../src/harness/runner';
import { closeServer, listenLoopback } from '../support/loopback';

let server: http.Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: body.method }));
    });
  });
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));

// JSON-RPC only: the observations here ask no REST.
const env = (): RunEnv => testRunEnv(url, { baseUrl: undefined, settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 2000 } });

const meta = (id: string) => ({ id: `rpc.shared.${id}`, title: id, statements: ['4.2.1'], level: 'required' as const, needs: ['rpc' as const] });

it("runs the observation once per run; each check judges it and receives only its lanes' exchanges", async () => {
  let runs = 0;
  const observe = async (scope: SharedScope) => {
    runs += 1;
    await Promise.all([scope.rpc('a').call('method_a', []), scope.rpc('b').call('method_b', []), scope.rpc('common').call('method_common', [])]);
    return { value: 7 };
  };
  const checks = [
    check(meta('a'), async (ctx) => {
      const o = await ctx.shared('obs', ['a', 'common'], observe);
      fail(`a saw ${o.value}`);
    }),
    check(meta('b'), async (ctx) => {
      const o = await ctx.shared('obs', ['b'], observe);
      fail(`b saw ${o.value}`);
    }),
  ];
  const before = requests;
  const results = await runChecks(checks, env(), { concurrency: 2 });
  expect(runs).toBe(1);
  expect(requests - before).toBe(3);
  expect(results.map((r) => r.reason)).toEqual(['a saw 7', 'b saw 7']);
  const methods = (i: number) => results[i].exchanges.map((e) => (JSON.parse(e.request.body!) as { method: string }).method).sort();
  expect(methods(0)).toEqual(['method_a', 'method_common']);
  expect(methods(1)).toEqual(['method_b']);
});

it('gives every check the same unjudged outcome when the observation ends inconclusive, and a new run observes again', async () => {
  let runs = 0;
  const observe = async () => {
    runs += 1;
    inconclusive('the node refused the transactions');
  };
  const checks = ['x', 'y'].map((id) => check(meta(id), async (ctx) => void (await ctx.shared('obs', [], observe))));
  const first = await runChecks(checks, env(), { concurrency: 1 });
  const second = await runChecks(checks, env(), { concurrency: 1 });
  expect([...first, ...second].map((r) => `${r.status}: ${r.reason}`)).toEqual(Array(4).fill('inconclusive: the node refused the transactions'));
  expect(runs).toBe(2);
});
