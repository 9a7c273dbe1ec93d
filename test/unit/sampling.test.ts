import http from 'node:http';
import type { Socket } from 'node:net';
import { check } from '../../src/harness/check';
import { fail, inconclusive } from '../../src/harness/verdict';
import { Redactor } from '../../src/harness/redact';
import { runChecks, type CheckResult, type RunEnv } from '../../src/harness/runner';
import { createSigner, SpendBudget } from '../../src/harness/signer';
import {
  detectionPower,
  laterWindowMs,
  mergeSamples,
  planSampling,
  powerWords,
  sampleOffsetMs,
  samplingLine,
  windowFor,
  type SamplingPlan,
} from '../../src/harness/sampling';
import { ConfigError, loadConfig } from '../../src/cli/config';
import { closeServer, listenLoopback } from '../support/loopback';
import { testCheckMeta, testRunEnv } from '../support/runs';

// A fleet of one process: every third connection is answered by a "faulty backend".
let server: http.Server;
let url: string;
const sockets = new Map<Socket, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const k = sockets.get(req.socket)!;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ backend: k % 3 === 2 ? 'faulty' : 'ok', connection: k }));
  });
  server.on('connection', (s: Socket) => sockets.set(s, sockets.size));
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));
beforeEach(() => sockets.clear());

const env = (over: Partial<RunEnv> = {}): RunEnv => testRunEnv(url, over);

const meta = testCheckMeta;

/** A plan with no waiting between waves: the arithmetic of time is sampleOffsetMs's own test. */
const plan = (n: number): SamplingPlan => ({ n, windowMs: 0, blockIntervalMs: 0, intervalFrom: 'assumed' });

const answers = check(meta('backend'), async ({ rest }) => {
  const res = await rest.get('/v1/tokenized-stocks');
  if ((JSON.parse(res.text) as { backend: string }).backend !== 'ok') fail('answered by the faulty backend', { expected: 'ok', actual: 'faulty' });
});

describe('sampled runs', () => {
  it('one answer per check without --samples, over the shared pool', async () => {
    const [r] = await runChecks([answers], env(), { concurrency: 1 });
    expect(r.samples).toBeUndefined();
    expect(r.exchangeCount).toBe(1);
  });

  it('each sample opens its own connection, and a check fails when any sample met the faulty backend', async () => {
    const [r] = await runChecks([answers], env(), { concurrency: 1, sampling: plan(9) });
    expect(sockets.size).toBe(9);
    expect(r.status).toBe('failed');
    expect(r.samples).toMatchObject({ n: 9, judged: 9, failed: 3, notJudged: 0 });
    expect(r.reason).toContain('in 3 of 9 samples');
    // The failing sample's exchange is the one shown.
    expect(r.exchanges[0].response?.body).toContain('faulty');
  });

  it('a check is settled once, when its last sample is in: a violation seen only by the last wave stands', async () => {
    // Waves spread over the window: the first samples are long done when the last one is asked.
    let asked = 0;
    const lastFails = check(meta('last'), async () => {
      if (++asked === 3) fail('answered by the faulty backend on the last sample');
    });
    const settled: CheckResult[] = [];
    const spread: SamplingPlan = { n: 3, windowMs: 300, blockIntervalMs: 150, intervalFrom: 'configured' };
    const [r] = await runChecks([lastFails], env(), { concurrency: 1, sampling: spread, onResult: (x) => void settled.push(x) });
    expect([asked, settled.length]).toEqual([3, 1]);
    expect(r).toMatchObject({ status: 'failed', samples: { n: 3, judged: 3, failed: 1, shown: 2 } });
  });

  it('signer checks are not sampled: the pass they share sends transactions once', async () => {
    const signer = createSigner(`0x${'11'.repeat(32)}`, new SpendBudget(1n));
    let runs = 0;
    const sends = check(meta('signer', { needs: ['rest', 'signer'] }), async () => void runs++);
    const [r] = await runChecks([sends], env({ signer }), { concurrency: 1, sampling: plan(5) });
    expect(runs).toBe(1);
    expect(r.samples).toBeUndefined();
  });

  it('a check that cannot run here (out of scope) is settled once, not sampled', async () => {
    const [r] = await runChecks([answers], env({ baseUrl: undefined }), { concurrency: 1, sampling: plan(5) });
    expect(r).toMatchObject({ status: 'skipped', cause: 'out-of-scope' });
    expect(r.samples).toBeUndefined();
  });

  it('a check that asks the target nothing (it judges the --openapi document) is run once, not sampled', async () => {
    let runs = 0;
    const documentOnly = check(meta('document', { needs: ['openapi'] }), async () => void runs++);
    const doc = { source: 'openapi.json', text: '{}', document: {} } as unknown as NonNullable<RunEnv['settings']['openapi']>;
    const [r] = await runChecks([documentOnly], env({ settings: { ...env().settings, openapi: doc } }), { concurrency: 1, sampling: plan(5) });
    expect({ runs, status: r.status, samples: r.samples }).toEqual({ runs: 1, status: 'passed', samples: undefined });
  });

  it('the waves after the first wait for the signer lane', async () => {
    const signer = createSigner(`0x${'11'.repeat(32)}`, new SpendBudget(1n));
    const order: string[] = [];
    let waves = 0;
    const sends = check(meta('sends', { needs: ['rest', 'signer'] }), async () => {
      // The window is 0: waves that did not wait for the lane would all start now, and run within
      // a few turns of the event loop. Give them those turns (ended early if they all ran).
      for (let turn = 0; turn < 50 && waves < 4; turn++) await new Promise((r) => setImmediate(r));
      order.push(`lane done after ${waves} sample(s)`);
    });
    const reads = check(meta('reads'), async () => void waves++);
    await runChecks([sends, reads], env({ signer }), { concurrency: 2, sampling: plan(4) });
    expect(order).toEqual(['lane done after 1 sample(s)']);
    expect(waves).toBe(4);
  });

  it("a run whose every check is in the signer's lane (--only preconf) ends with the lane: no wave waits out the window for nothing", async () => {
    const signer = createSigner(`0x${'11'.repeat(32)}`, new SpendBudget(1n));
    const sends = check(meta('sends', { needs: ['rest', 'signer'] }), async () => undefined);
    // A minute's window: waves that waited out their places in it would hold the run past jest's 10 s below.
    const minute: SamplingPlan = { n: 30, windowMs: 60_000, blockIntervalMs: 30_000, intervalFrom: 'configured' };
    const [r] = await runChecks([sends], env({ signer }), { concurrency: 1, sampling: minute });
    expect(r.status).toBe('passed');
  }, 10_000);

  it('shared observations are made once per sample, not once per run', async () => {
    let observed = 0;
    const reads = (id: string) =>
      check(meta(id), async (ctx) => {
        await ctx.shared('rest.list', ['l'], async () => observed++);
      });
    await runChecks([reads('a'), reads('b')], env(), { concurrency: 2, sampling: plan(4) });
    expect(observed).toBe(4);
  });

  it('a record across samples is one per key for the whole run, every wave, and a new one for the next run', async () => {
    const seen: Array<{ run: number; record: { samples: number } }> = [];
    let run = 0;
    const counts = check(meta('counts'), async (ctx) => {
      const record = ctx.acrossSamples('test.counts', () => ({ samples: 0 }));
      record.samples++;
      seen.push({ run, record });
    });
    // The same env for both runs: runChecks must not leave its records in the caller's.
    const given = env();
    await runChecks([counts], given, { concurrency: 1, sampling: plan(5) });
    run = 1;
    await runChecks([counts], given, { concurrency: 1 });
    const first = seen.filter((s) => s.run === 0).map((s) => s.record);
    expect(first).toHaveLength(5);
    expect(new Set(first).size).toBe(1);
    expect(first[0]).toEqual({ samples: 5 });
    expect(seen.filter((s) => s.run === 1).map((s) => s.record)).toEqual([{ samples: 1 }]);
  });
});

describe('mergeSamples', () => {
  const base = (status: CheckResult['status'], extra: Partial<CheckResult> = {}): { result: CheckResult } => ({
    result: { ...meta('m'), section: '4.1', status, reason: status, durationMs: 1, exchanges: [], exchangeCount: 1, ...extra },
  });
  const failed = (n: number) => base('failed', { cause: 'violation', reason: 'bad', violated: ['4.1.1'], expected: { kind: 'integer', value: String(n) } });

  it('a violation is never replaced by a later answer that looked right', () => {
    const { result } = mergeSamples([base('passed'), failed(1), base('passed'), base('passed')], 10);
    expect(result).toMatchObject({ status: 'failed', samples: { n: 4, judged: 4, failed: 1, shown: 1 } });
  });

  it('keeps the first sample of each other kind of failure, and counts every one', () => {
    const { result } = mergeSamples([failed(1), failed(2), failed(1), failed(2), failed(3)], 10);
    expect(result.samples).toMatchObject({ failed: 5, shown: 0 });
    expect(result.samples!.failures!.map((f) => f.sample)).toEqual([1, 4]);
    // At most three other kinds are kept whole; every failure is still counted.
    const many = mergeSamples([1, 2, 3, 4, 5, 6].map(failed), 10).result.samples!;
    expect([many.failed, many.failures!.map((f) => f.sample)]).toEqual([6, [1, 2, 3]]);
  });

  it('prefers a failure of its own to one blocked by another check, and passes the blocker on', () => {
    const merged = mergeSamples([{ ...failed(1), blocker: 'root' }, failed(2)], 10);
    expect(merged.result.samples!.shown).toBe(1);
    expect(merged.blocker).toBeUndefined();
    expect(mergeSamples([{ ...failed(1), blocker: 'root' }, base('passed')], 10).blocker).toBe('root');
  });

  it('samples not judged (throttled, ambiguous timing) stay so: the check passes on the judged ones, with less power', () => {
    const throttled = base('inconclusive', { cause: 'throttled' });
    const { result } = mergeSamples([throttled, base('passed'), base('passed')], 10);
    expect(result).toMatchObject({ status: 'passed', samples: { n: 3, judged: 2, notJudged: 1 } });
    expect(result.samples!.power).toEqual(detectionPower(2));
    expect(mergeSamples([throttled, throttled], 10).result).toMatchObject({ status: 'inconclusive', cause: 'throttled', samples: { judged: 0 } });
  });

  it('inconclusive samples thrown by a check are counted as not judged', async () => {
    let k = 0;
    const flaky = check(meta('flaky'), async () => {
      if (k++ % 2 === 0) inconclusive('the head moved', { cause: 'ambiguous' });
    });
    const [r] = await runChecks([flaky], env(), { concurrency: 1, sampling: plan(4) });
    expect(r).toMatchObject({ status: 'passed', samples: { n: 4, judged: 2, notJudged: 2 } });
  });
});

describe('the arithmetic', () => {
  it('states the detection power: 30 answers see a fault on ≥ 9.5 % of them with ≥ 95 %', () => {
    expect(detectionPower(30)).toEqual({ p: 0.095, confidence: 0.95, atQuarter: 0.9998 });
    expect(detectionPower(1)!.p).toBe(0.95);
    expect(detectionPower(0)).toBeUndefined();
    expect(powerWords(30)).toBe('a fault on ≥ 9.5 % of answers would have been seen with probability ≥ 95 % (1 − (1 − p)^30)');
  });

  it('spreads samples over two block intervals, bounded', () => {
    expect(windowFor(2000)).toBe(4000);
    expect(windowFor(100)).toBe(1000);
    expect(windowFor(12_000)).toBe(24_000);
    expect(windowFor(600_000)).toBe(60_000);
    const p = { n: 30, windowMs: 4000 };
    expect([0, 1, 15, 29].map((i) => sampleOffsetMs(i, p))).toEqual([0, 133, 2000, 3867]);
  });

  it('spreads the waves after the signer’s lane over what is left of the window, but over one block interval at least', () => {
    const p = { windowMs: 4000 };
    // No lane (no signer): the whole window; a lane of 1.5 s: the 2.5 s left; a lane past one interval: one interval.
    expect([0, 1500, 2000, 3500, 60_000].map((elapsed) => laterWindowMs(p, elapsed))).toEqual([4000, 2500, 2000, 2000, 2000]);
    expect(laterWindowMs({ windowMs: 1000 }, 5000)).toBe(500);
  });

  it('takes the configured block time for the embedded reference, the default when nothing is known', async () => {
    const http = { timeoutMs: 1000, redactor: new Redactor() };
    expect(await planSampling(30, { rpcHeaders: {}, http, blockIntervalMs: 2000 })).toEqual({
      n: 30,
      windowMs: 4000,
      blockIntervalMs: 2000,
      intervalFrom: 'configured',
    });
    expect(await planSampling(30, { rpcHeaders: {}, http })).toEqual({ n: 30, windowMs: 4000, blockIntervalMs: 2000, intervalFrom: 'assumed' });
  });
});

describe('--samples', () => {
  const load = (argv: string[], e: NodeJS.ProcessEnv = {}) => loadConfig(argv, e);
  it('is 1 by default, 30 with --certify, and what it says otherwise (flag over SAMPLES)', () => {
    expect(load([]).samples).toBe(1);
    expect(load(['--certify']).samples).toBe(30);
    expect(load(['--certify', '--samples', '5']).samples).toBe(5);
    expect(load([], { SAMPLES: '12' }).samples).toBe(12);
    expect(load(['--samples', '1000']).samples).toBe(1000);
  });

  it.each(['0', 'abc', '-3', '2.5', '1001', '99999999999999999999'])('refuses %s, naming the flag and its variable', (value) => {
    expect(() => load([`--samples=${value}`])).toThrow(ConfigError);
    expect(() => load([`--samples=${value}`])).toThrow(/--samples \(or SAMPLES\)/);
    expect(() => load([], { SAMPLES: value })).toThrow(/--samples \(or SAMPLES\)/);
  });
});

describe('the run line', () => {
  it('says N, the window and the power in numbers only', () => {
    expect(samplingLine({ n: 30, windowMs: 4000, blockIntervalMs: 2000, intervalFrom: 'configured' })).toBe(
      'samples: 30 answers per read-only question over 4000 ms (2 block intervals of 2000 ms, configured); a fault on ≥ 9.5 % of answers would have been seen with probability ≥ 95 % (1 − (1 − p)^30)',
    );
    // A results.json written by hand cannot put words of its own into the line.
    expect(samplingLine({ n: 2, windowMs: 1000, blockIntervalMs: 500, intervalFrom: '<b>x</b>' as 'assumed' })).toContain('assumed');
  });
});
