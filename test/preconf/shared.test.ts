// CheckContext.shared: one observation per run, judged by several checks, each receiving the
// exchanges of the lanes it names. The pre-confirmation pass is built on it.
import type http from 'node:http';
import { check, type SharedScope } from '../../src/harness/check';
import { fail, inconclusive } from '../../src/harness/verdict';
import { testRunEnv } from '../support/runs';
import { runChecks, type RunEnv } from '../../src/harness/runner';
import { closeServer, jsonRpcLoopback } from '../support/loopback';

let server: http.Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  ({ server, url } = await jsonRpcLoopback((call, reply) => {
    requests += 1;
    reply({ result: call.method });
  }));
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

// A shared observation made of others (SharedScope.shared) never waits on itself: one that asks
// for itself, or for one that waits on it, is refused at once with words saying so, instead of
// holding its askers until their time limit. Observations that only share a part still share it.
describe('an observation made of others never waits on itself', () => {
  // Long against what each observation does (nothing but wait on another), short against jest's
  // time limit: without the refusal, each check below would end on this limit with other words.
  const LIMIT = { checkTimeoutMs: 3000 };

  /** An observation whose value is `value`, made after the observation `inner` (when given) is made. */
  const made = (scope: SharedScope, inner: string | undefined, value: string, innerObserve?: (s: SharedScope) => Promise<string>) =>
    inner ? scope.shared(inner, [inner], innerObserve ?? (async () => `${inner} made`)).then((v) => `${value} after ${v}`) : Promise.resolve(value);

  it('an observation that asks for itself is refused at once, naming itself', async () => {
    const [r] = await runChecks([check(meta('self'), async (ctx) => void (await ctx.shared('a', ['a'], (scope) => made(scope, 'a', 'a'))))], env(), {
      concurrency: 1,
      ...LIMIT,
    });
    expect(r.reason).toMatch(/the shared observation a asked for a, which waits on it/);
  });

  it('two observations that ask for each other are refused at once, not held until the time limit', async () => {
    const a = (scope: SharedScope): Promise<string> => made(scope, 'b', 'a', b);
    const b = (scope: SharedScope): Promise<string> => made(scope, 'a', 'b', a);
    const [r] = await runChecks([check(meta('cycle'), async (ctx) => void (await ctx.shared('a', ['a', 'b'], a)))], env(), { concurrency: 1, ...LIMIT });
    expect(r.reason).toMatch(/the shared observation b asked for a, which waits on it/);
  });

  it('observations that share a part, asked at once by several checks, each get it (no false refusal)', async () => {
    const values: string[] = [];
    // The part is made once all three checks have asked: each of them then waits on it at once.
    let asked = 0;
    let allAsked!: () => void;
    const gate = new Promise<void>((resolve) => (allAsked = resolve));
    const ask = () => void (++asked === 3 && allAsked());
    const part = () => gate.then(() => 'part');
    const checks = [
      check(meta('x'), async (ctx) => void values.push(await ctx.shared('x', ['x'], (scope) => (ask(), made(scope, 'part', 'x', part))))),
      check(meta('y'), async (ctx) => void values.push(await ctx.shared('y', ['y'], (scope) => (ask(), made(scope, 'part', 'y', part))))),
      check(meta('z'), async (ctx) => (ask(), void values.push(await ctx.shared('part', ['part'], part)))),
    ];
    const results = await runChecks(checks, env(), { concurrency: 3, ...LIMIT });
    expect(results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed']);
    expect(values.sort()).toEqual(['part', 'x after part', 'y after part']);
  });

  it('an observation made already waits on nothing: one it asked for and left running may ask for it', async () => {
    let aMade!: () => void;
    const aIsMade = new Promise<void>((resolve) => (aMade = resolve));
    let bAsked: Promise<string> | undefined;
    // b asks for a once a is made; a started b and did not wait for it.
    const b = async (scope: SharedScope) => {
      await aIsMade;
      return `b after ${await scope.shared('a', ['a'], async () => 'another a')}`;
    };
    const a = async (scope: SharedScope) => {
      bAsked = scope.shared('b', ['b'], b);
      return 'a';
    };
    const [r] = await runChecks(
      [
        check(meta('made'), async (ctx) => {
          const made = await ctx.shared('a', ['a', 'b'], a);
          aMade();
          fail(`${made}; ${await bAsked!}`);
        }),
      ],
      env(),
      { concurrency: 1, ...LIMIT },
    );
    expect(r.reason).toBe('a; b after a');
  });
});
