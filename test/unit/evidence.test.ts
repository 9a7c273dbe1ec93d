// The run's evidence ledger: a violation a check has seen stands whatever ends the check after it.
import http from 'node:http';
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { runChecks, type RunEnv } from '../../src/harness/runner';
import { EvidencePage, KEPT_VIOLATIONS } from '../../src/harness/evidence';
import { judge } from '../../src/verdict/outcome';
import { closeServer, listenLoopback } from '../support/loopback';
import { testCheckMeta, testRunEnv } from '../support/runs';

let server: http.Server;
let url: string;
/** What the server answers from now on: the interface fact a test makes the target show after the violation. */
let fact: string | undefined;

const FACTS: Record<string, { status: number; headers: Record<string, string>; body: string }> = {
  '401': { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' }, body: '{"error":"token expired"}' },
  '403': { status: 403, headers: { 'www-authenticate': 'Bearer' }, body: '{"error":"forbidden"}' },
  '503': { status: 503, headers: { 'retry-after': '60' }, body: '<html>503 Service Unavailable</html>' },
  '429': { status: 429, headers: { 'retry-after': '60' }, body: '' },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (fact === 'hang') return;
    const f = fact && FACTS[fact];
    if (f) return void res.writeHead(f.status, f.headers).end(f.body);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }));
  });
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));
beforeEach(() => (fact = undefined));

const env = (over: Partial<RunEnv> = {}): RunEnv => testRunEnv(url, over);
const SEEN = 'record 1 (0xabc) disagrees with the token contract: REST 8, chain 18';
const meta = (id: string) => testCheckMeta(id, { needs: ['rpc'] });

/** A check that sees a violation on its first answer, then meets `then` on its next call. */
const seenThen = (then: string) =>
  check(meta('seen-then'), async (ctx) => {
    await ctx.rpc.call('eth_blockNumber', []);
    ctx.violation(SEEN, { expected: 18, actual: 8 });
    fact = then;
    await ctx.rpc.call('eth_call', []);
  });

describe('a violation once seen is never removed by what ends the check after it', () => {
  it.each([
    ['401', 'credentials'],
    ['403', 'credentials'],
    ['503', 'gateway'],
    ['429', 'throttled'],
  ])(
    'then HTTP %s: failed, the violation and the interruption (%s) both stated',
    async (then, cause) => {
      const [r] = await runChecks([seenThen(then)], env({ gateway: {} }), { concurrency: 1 });
      expect(r).toMatchObject({
        status: 'failed',
        cause: 'violation',
        violated: ['4.1.1'],
        expected: { kind: 'integer', value: '18' },
        actual: { kind: 'integer', value: '8' },
        interrupted: { cause },
      });
      expect(r.reason).toMatch(new RegExp(`^${SEEN.replace(/[()]/g, '\\$&')}; then, before the check finished: `));
    },
    20_000,
  );

  it('with no violation seen, refused credentials leave a required check not judged, never skipped', async () => {
    const refused = check(meta('refused'), async (ctx) => {
      fact = '401';
      await ctx.rpc.call('eth_call', []);
    });
    const [r] = await runChecks([refused], env({ gateway: {} }), { concurrency: 1 });
    expect(r).toMatchObject({ status: 'inconclusive', cause: 'credentials', interface: 'rpc' });
    expect(judge(r)).toMatchObject({ outcome: 'not-judged', effect: 'incomplete' });
  });

  it('then an exception, or the deadline: failed, with what ended it', async () => {
    const controller = new AbortController();
    const [bug, stopped] = await runChecks(
      [
        check(meta('then-bug'), async (ctx) => {
          ctx.violation(SEEN);
          throw new TypeError('boom');
        }),
        check(meta('then-stopped'), async (ctx) => {
          ctx.violation(SEEN);
          fact = 'hang';
          setTimeout(() => controller.abort('run deadline of 50 ms reached'), 50);
          await ctx.rpc.call('eth_call', []);
        }),
      ],
      env({ signal: controller.signal }),
      { concurrency: 1 },
    );
    expect(bug).toMatchObject({ status: 'failed', interrupted: { cause: 'internal' } });
    expect(stopped).toMatchObject({ status: 'failed', interrupted: { cause: 'stopped', reason: 'stopped: run deadline of 50 ms reached' } });
  });

  it('every violation is stated, however many; fail() after them is one more', async () => {
    const [r] = await runChecks(
      [
        check(meta('many'), async (ctx) => {
          ctx.violation('a', { actual: 1 });
          ctx.violation('b', { actual: 2 });
          fail('c', { actual: 3 });
        }),
      ],
      env(),
      { concurrency: 1 },
    );
    expect(r).toMatchObject({ status: 'failed', reason: '3 violations: a; b; c', actual: { kind: 'text', preview: '[1,2,3]', bytes: 7 } });
    expect(r.interrupted).toBeUndefined();
  });

  it('each violation cites its own statements: the failure names every statement any of them broke', async () => {
    const [r] = await runChecks(
      [
        check(testCheckMeta('two-rules', { needs: ['rpc'], statements: ['4.1.1', '4.1.2'] }), async (ctx) => {
          ctx.violation('a', { violated: ['4.1.1'] });
          ctx.violation('b', { violated: ['4.1.2'] });
        }),
      ],
      env(),
      { concurrency: 1 },
    );
    expect(r).toMatchObject({ status: 'failed', reason: '2 violations: a; b', violated: ['4.1.1', '4.1.2'] });
  });

  it('a failure thrown and then swallowed by the check still stands (fail() records it before it throws)', async () => {
    const [r] = await runChecks(
      [
        check(meta('swallowed'), async () => {
          try {
            fail('seen, then caught');
          } catch {
            // a helper racing two reads, say, whose other read won
          }
        }),
      ],
      env(),
      { concurrency: 1 },
    );
    expect(r).toMatchObject({ status: 'failed', reason: 'seen, then caught' });
  });

  it('a shared observation is on no asker’s page: what it throws reaches each asker once', async () => {
    const observe = () => fail('the list is not an object');
    const [a, b] = await runChecks([check(meta('a'), (ctx) => ctx.shared('k', [], observe)), check(meta('b'), (ctx) => ctx.shared('k', [], observe))], env(), {
      concurrency: 2,
    });
    expect([a.reason, b.reason]).toEqual(['the list is not an object', 'the list is not an object']);
  });
});

describe('EvidencePage', () => {
  it('keeps the first violations whole and counts every one; a source is recorded once', () => {
    const page = new EvidencePage('rest.test.x');
    const source = new Error('thrown');
    page.record({ message: 'a' }, source);
    page.record({ message: 'a again' }, source);
    for (let i = 0; i < KEPT_VIOLATIONS + 5; i++) page.record({ message: `m${i}` });
    expect(page.count).toBe(KEPT_VIOLATIONS + 6);
    expect(page.violations).toHaveLength(KEPT_VIOLATIONS);
    expect(page.violations[0].message).toBe('a');
  });
});
