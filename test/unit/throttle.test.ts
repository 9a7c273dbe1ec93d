/**
 * Throttling is the provider's, not the node's: the HTTP layer waits out 429 / 503 / JSON-RPC
 * -32005 (honouring Retry-After, bounded), keeps every attempt in the transcript, and reports a
 * target that keeps refusing with ThrottledError, which the runner turns into `inconclusive`.
 * --max-rps spaces the requests of the whole run. A loopback server plays the provider.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { check } from '../../src/harness/check';
import { loadConfig, ConfigError } from '../../src/cli/config';
import { httpCall, pause as realPause, RateLimiter, retryAfterMs, ThrottledError, throttleOf, type HttpOptions } from '../../src/harness/http';
import { Redactor } from '../../src/harness/redact';
import { RpcClient } from '../../src/harness/rpc';
import { RestClient } from '../../src/harness/rest';
import { runChecks } from '../../src/harness/runner';
import { Transcript } from '../../src/harness/transcript';

type Reply = { status: number; headers?: Record<string, string>; body: string };

/** A server answering from a script, one reply per request (the last one repeats); records arrival times. */
async function provider(script: Reply[]) {
  const arrivals: number[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(performance.now());
      const r = script[Math.min(arrivals.length - 1, script.length - 1)];
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers }).end(r.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, arrivals, close: () => new Promise((r) => server.close(r)) };
}

const ok = (result: unknown = '0x1'): Reply => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result }) });
const limited = (code = -32005, message = 'project ID request rate exceeded'): Reply => ({
  status: 200,
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code, message } }),
});
const tooMany = (retryAfter?: string): Reply => ({
  status: 429,
  headers: retryAfter !== undefined ? { 'retry-after': retryAfter } : {},
  body: '{"code":8,"message":"rate limited","details":[]}',
});

function options(extra: Partial<HttpOptions> = {}): HttpOptions & { transcript: Transcript } {
  return { timeoutMs: 2000, redactor: new Redactor(), transcript: new Transcript(), throttle: { baseDelayMs: 20 }, ...extra };
}

describe('what counts as throttled', () => {
  test.each([
    [{ status: 429, text: '' }, 'HTTP 429 Too Many Requests'],
    [{ status: 503, text: '<html>busy</html>' }, 'HTTP 503 Service Unavailable'],
    [{ status: 200, text: limited().body }, 'HTTP 200 with JSON-RPC error -32005 "project ID request rate exceeded"'],
    [{ status: 200, text: limited(429, 'Your app has exceeded its compute units per second capacity').body }, expect.stringContaining('JSON-RPC error 429')],
    [{ status: 200, text: limited(-32000, 'request limit reached').body }, expect.stringContaining('request limit reached')],
    [{ status: 200, text: JSON.stringify([JSON.parse(ok().body), JSON.parse(limited().body)]) }, expect.stringContaining('-32005')],
  ])('%j is throttled', (res, why) => {
    expect(throttleOf(res)).toEqual(why);
  });

  test.each([
    [{ status: 200, text: ok().body }],
    [{ status: 500, text: '{"code":13,"message":"internal"}' }],
    [{ status: 403, text: '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"forbidden"}}' }],
    // A contract may revert with any reason: never mistaken for a provider limit.
    [{ status: 200, text: limited(-32000, 'execution reverted: rate limit exceeded for this vault').body }],
    [{ status: 200, text: limited(-32000, 'gas limit exceeded').body }],
    [{ status: 200, text: 'not json but has error' }],
  ])('%j is an answer, not a throttle', (res) => {
    expect(throttleOf(res)).toBeUndefined();
  });

  test('Retry-After in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('httpCall retries throttled answers, bounded', () => {
  test('429 with Retry-After 1, then an answer: the wait is honoured and both attempts are recorded', async () => {
    const p = await provider([tooMany('1'), ok()]);
    try {
      const pauses: number[] = [];
      let told = 0;
      const opts = options({ throttle: { baseDelayMs: 20, sleep: async (ms) => void pauses.push(ms) }, onThrottled: () => void told++ });
      const res = await httpCall({ method: 'POST', url: p.url, headers: {}, body: '{}' }, opts);
      expect(res.status).toBe(200);
      expect(opts.transcript.exchanges.map((e) => e.response?.status)).toEqual([429, 200]);
      // The runner is told of the throttled answer (it then lets one check fewer ask at once).
      expect(told).toBe(1);
      // The wait the schedule computed: Retry-After's 1 s, not the 20 ms backoff.
      expect(pauses).toEqual([1000]);
    } finally {
      await p.close();
    }
  });

  test('a JSON-RPC -32005 once, then the result: the client sees only the result', async () => {
    const p = await provider([limited(), ok('0x2a')]);
    try {
      const opts = options();
      const answer = await new RpcClient(p.url, {}, opts).call('eth_blockNumber', []);
      expect(answer.result).toBe('0x2a');
      expect(opts.transcript.exchanges).toHaveLength(2);
    } finally {
      await p.close();
    }
  });

  test('throttled for good: ThrottledError after the retries, every attempt in the transcript', async () => {
    const p = await provider([{ status: 503, body: 'busy' }]);
    try {
      const pauses: number[] = [];
      const opts = options({ throttle: { baseDelayMs: 10, maxRetries: 3, sleep: async (ms) => void pauses.push(ms) } });
      const err = await httpCall({ method: 'GET', url: p.url, headers: {} }, opts).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ThrottledError);
      expect((err as Error).message).toMatch(/HTTP 503 Service Unavailable, still after 3 retries/);
      expect(opts.transcript.exchanges).toHaveLength(4);
      // Backoff without Retry-After doubles: 10, 20, 40 ms.
      expect(pauses).toEqual([10, 20, 40]);
    } finally {
      await p.close();
    }
  });

  test('a Retry-After beyond the per-request bound is not waited for', async () => {
    const p = await provider([tooMany('3600'), ok()]);
    try {
      const opts = options();
      const err = await new RestClient(p.url, {}, opts).get('/v1/tokenized-stocks').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ThrottledError);
      expect((err as Error).message).toMatch(/Retry-After "3600"\); waiting 3600\.0 s more would pass the 10 s a request may wait/);
      expect(opts.transcript.exchanges).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  test('the abort signal ends the wait', async () => {
    const p = await provider([tooMany('5')]);
    try {
      const controller = new AbortController();
      // The wait is the real timer's: the signal fires while it sleeps, and must end it.
      const opts = options({ signal: controller.signal, throttle: { sleep: (ms, signal) => (controller.abort('deadline'), realPause(ms, signal)) } });
      const err = await httpCall({ method: 'GET', url: p.url, headers: {} }, opts).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ThrottledError);
      expect((err as Error).message).toMatch(/stopped while waiting to retry \(deadline\)/);
      expect(opts.transcript.exchanges).toHaveLength(1);
    } finally {
      await p.close();
    }
    // Were the 5 s waited out, jest's 5 s limit for a test would fail it first.
  }, 4000);
});

describe('the runner', () => {
  test('a check whose target stays throttled is inconclusive "throttled: …", never failed', async () => {
    const p = await provider([tooMany('0')]);
    try {
      const c = check({ id: 'rpc.test.throttled', title: 't', statements: ['4.2.1'], level: 'required', needs: ['rpc'] }, async (ctx) => {
        await ctx.rpc.call('eth_blockNumber', []);
      });
      const [r] = await runChecks(
        [c],
        {
          rpcUrl: p.url,
          restHeaders: {},
          rpcHeaders: {},
          settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 2000 },
          redactor: new Redactor(),
          signal: new AbortController().signal,
        },
        { concurrency: 1 },
      );
      expect(r.status).toBe('inconclusive');
      expect(r.cause).toBe('throttled');
      expect(r.reason).toMatch(/^throttled: POST http:\/\/127\.0\.0\.1:\d+\/?: HTTP 429 Too Many Requests \(Retry-After "0"\), still after 3 retries/);
      expect(r.exchanges).toHaveLength(4);
    } finally {
      await p.close();
    }
  });
});

describe('--max-rps', () => {
  /**
   * A limiter on a virtual clock: a waiter's sleep moves the clock by what it asked (plus any
   * stall scripted for that sleep), so the grants are the schedule the limiter computes, in
   * order, whatever the machine's load.
   */
  function virtualLimiter(perSecond: number, stalls: number[] = []) {
    let now = 0;
    const sleeps: number[] = [];
    const limiter = new RateLimiter(
      perSecond,
      () => now,
      async (ms) => {
        sleeps.push(ms);
        now += ms + (stalls[sleeps.length - 1] ?? 0);
      },
    );
    const granted: Array<[who: string, at: number]> = [];
    const take = (who: string) => limiter.take().then((at) => void granted.push([who, at!]));
    return { limiter, granted, sleeps, take, setNow: (t: number) => void (now = t) };
  }

  test('turns are 1000/N ms apart across every client sharing the limiter, in the order asked', async () => {
    const p = await provider([ok()]);
    try {
      const v = virtualLimiter(20);
      const take = v.limiter.take.bind(v.limiter);
      const at: number[] = [];
      v.limiter.take = async (signal) => {
        const granted = await take(signal);
        at.push(granted!);
        return granted;
      };
      const a = new RpcClient(p.url, {}, options({ limiter: v.limiter }));
      const b = new RpcClient(p.url, {}, options({ limiter: v.limiter }));
      await Promise.all([0, 1, 2].flatMap(() => [a.call('eth_blockNumber', []), b.call('eth_blockNumber', [])]));
      expect(p.arrivals).toHaveLength(6);
      // Six requests of two clients at 20 per second: one turn every 1000/20 ms of the limiter's clock.
      expect(at).toEqual([0, 50, 100, 150, 200, 250]);
      expect(v.sleeps).toEqual([50, 50, 50, 50, 50]);
    } finally {
      await p.close();
    }
  });

  test('the schedule: the first turn at once, each later one 1000/N ms after the previous grant', async () => {
    const v = virtualLimiter(20);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(v.take));
    expect(v.granted).toEqual([
      ['a', 0],
      ['b', 50],
      ['c', 100],
      ['d', 150],
      ['e', 200],
    ]);
    // Long after the last grant, a turn is due at once: no sleep.
    v.setNow(10_000);
    await v.take('f');
    expect(v.granted.at(-1)).toEqual(['f', 10_000]);
    expect(v.sleeps).toEqual([50, 50, 50, 50]);
    expect(() => new RateLimiter(0)).toThrow(RangeError);
  });

  test('a stalled process releases no burst: turns after a stall are still spaced from the last grant', async () => {
    // The second waiter's sleep overruns by 300 ms (the process stalled): a scheduler of fixed turns
    // would now let the rest go together; this one spaces each from the grant before it.
    const v = virtualLimiter(20, [0, 300]);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(v.take));
    expect(v.granted).toEqual([
      ['a', 0],
      ['b', 50],
      ['c', 400],
      ['d', 450],
      ['e', 500],
    ]);
  });

  test('a timer that wakes early is waited out again: no two grants closer than 1000/N ms', async () => {
    // The first sleep ends 5 ms early (a negative stall): the limiter sleeps the remaining 5 ms.
    const v = virtualLimiter(20, [-5]);
    await Promise.all(['a', 'b'].map(v.take));
    expect(v.sleeps).toEqual([50, 5]);
    expect(v.granted).toEqual([
      ['a', 0],
      ['b', 50],
    ]);
  });

  test('flags: --max-rps N, MAX_RPS; --archive, ARCHIVE', () => {
    expect(loadConfig([], {}).maxRps).toBeUndefined();
    expect(loadConfig(['--max-rps', '25'], {}).maxRps).toBe(25);
    expect(loadConfig([], { MAX_RPS: '10' }).maxRps).toBe(10);
    expect(() => loadConfig(['--max-rps', '0'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--max-rps', '2.5'], {})).toThrow(/--max-rps \(or MAX_RPS\): "2.5" is not a positive integer/);
    expect(loadConfig([], {}).archive).toBe(false);
    expect(loadConfig(['--archive'], {}).archive).toBe(true);
    expect(loadConfig([], { ARCHIVE: 'true' }).archive).toBe(true);
    expect(loadConfig([], { ARCHIVE: '0' }).archive).toBe(false);
    expect(() => loadConfig([], { ARCHIVE: 'maybe' })).toThrow(/--archive \(or ARCHIVE\): "maybe" is not one of/);
  });
});
