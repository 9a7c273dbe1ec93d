// The pre-confirmation checks against the embedded reference in its Flashblocks mode (state
// published on 200 ms ticks, receipts of pre-confirmed transactions answered before the seal
// with a zero block hash) and its conformant variations: transactions landing three flashblocks
// late, eth_blockNumber reporting the block being built, the instant model, and a front end that
// forwards submissions 250 ms late. Everything required passes; nothing is sent without a key,
// with an unfunded key, or past the spend cap (those two: inconclusive, the run incomplete).
import { generatePrivateKey } from 'viem/accounts';
import { SpendBudget } from '../../src/harness/signer';
import type { CheckResult } from '../../src/harness/runner';
import { startReference, type ReferenceOptions, type ReferenceTarget } from '../../src/reference';
import { checks } from '../../suites/preconf';
import { slowMethods } from '../../suites/preconf/latency';
import { SHOW_MS } from '../../src/harness/preconf/timing';
import type { MethodLatency } from '../../src/cli/reporters/metrics';
import type { Timeline } from '../../src/harness/preconf/pass';
import { describeResults, runPreconf } from './helpers';
import { startRpcProxy } from './proxy';

jest.setTimeout(90_000);

const BLOCK_TIME_MS = 1000;
const required = (results: CheckResult[]) => results.filter((r) => r.level === 'required');
const allPassed = (results: CheckResult[]) => describeResults(results.map((r) => ({ ...r, status: 'passed', reason: '' })));
const LATENCY = 'preconf.latency.about-200ms';
/**
 * Every required check passed, and the advisory latency check was judged (passed or failed on
 * the figures it measured): its bound depends on this machine's load, so no test here that does
 * not control the timing requires it to pass.
 */
function expectRequiredPassedLatencyJudged(results: CheckResult[]): void {
  expect(describeResults(required(results))).toBe(allPassed(required(results)));
  const latency = results.find((r) => r.id === LATENCY)!;
  expect(latency.level).toBe('advisory');
  // Not judged only when the suite's own delay (a loaded machine) made the difference.
  expect(`${latency.status}: ${latency.reason ?? ''}`).toMatch(/^(passed: |failed: pre-confirmation latency too high for |inconclusive: .*suite's own delay)/);
  const metrics = latency.metrics as { latency: Record<string, MethodLatency>; latencyJudged?: { n: number; boundsMs: { p50: number; p95: number } } };
  const judged = metrics.latencyJudged;
  expect(judged).toBeDefined();
  expect(judged!.n).toBeGreaterThanOrEqual(1);
  // Each method is judged on its own figures (a slow one is not hidden among the others' in the
  // pooled p50/p95), so the check passes exactly when no method is over the bounds as measured.
  expect(latency.status === 'passed').toBe(slowMethods(metrics.latency, judged!.boundsMs).length === 0);
}
const latencyOf = (results: CheckResult[]) =>
  results.find((r) => r.id === 'preconf.latency.about-200ms')!.metrics as {
    latency: Record<string, { p50: number; p95: number; max: number; n: number }>;
    timeline: Timeline;
  };

/** Starts a reference for one describe block. */
function withReference(opts: ReferenceOptions): () => ReferenceTarget {
  let ref: ReferenceTarget | undefined;
  beforeAll(async () => {
    ref = await startReference({ profile: 'dedicated', blockTimeMs: BLOCK_TIME_MS, ...opts });
  });
  afterAll(async () => {
    await ref?.stop();
  });
  return () => ref!;
}

describe('Flashblocks mode (200 ms flashblocks)', () => {
  const ref = withReference({});

  it('passes every required check in one pass, although the node answers receipts of pre-confirmed transactions before the seal', async () => {
    const proxy = await startRpcProxy(ref().rpcUrl, { watchReceipts: true });
    const budget = new SpendBudget(10n ** 18n);
    try {
      const results = await runPreconf(checks, proxy.url, ref().signerKey, budget);
      expectRequiredPassedLatencyJudged(results);
      // The target did what breaks "a receipt exists means sealed": receipts with a zero block hash before the seal.
      expect(proxy.stats.preconfirmedReceipts).toBeGreaterThanOrEqual(1);
      // One pass (on a loaded machine maybe retried as a whole), within the default --max-spend-wei (1e16).
      const attempts = results[0].metrics?.attempts;
      expect(attempts).toBeGreaterThanOrEqual(1);
      expect(attempts).toBeLessThanOrEqual(3);
      expect(budget.spentWei).toBeGreaterThan(0n);
      expect(budget.spentWei).toBeLessThan(10n ** 16n / 2n);
      // Every check that states the pass's attempts judged the same observation: one count.
      const counted = results.map((r) => r.metrics?.attempts).filter((a) => a !== undefined);
      expect(counted.length).toBeGreaterThanOrEqual(4);
      expect(new Set(counted)).toEqual(new Set([attempts]));
    } finally {
      await proxy.close();
    }
  });

  it('reports latency per method and a timeline in which every transaction shows before its seal', async () => {
    const results = await runPreconf(checks, ref().rpcUrl, ref().signerKey);
    expectRequiredPassedLatencyJudged(results);
    const { latency, timeline } = latencyOf(results);
    expect(Object.keys(latency).sort()).toEqual(['eth_estimateGas', 'eth_getBlockReceipts', 'eth_getCode', 'eth_getTransactionCount']);
    for (const p of Object.values(latency)) {
      expect(p.n).toBeGreaterThanOrEqual(1);
      expect(p.p50).toBeLessThanOrEqual(p.p95);
      expect(p.p95).toBeLessThanOrEqual(p.max);
    }
    expect(timeline.flashblockMs).toBe(200);
    // The block time is measured seal to seal, so only by an attempt sent right after a seal (a
    // retried one): the first is sent at once.
    const aligned = results.some((r) => r.notes?.some((n) => /^attempt \d: sent right after the seal/.test(n)));
    // (Unless the signer's last transactions, an earlier test's, are in the head block.)
    expect(results.flatMap((r) => r.notes ?? []).some((n) => /^attempt 1: (sent unaligned|.*its last transactions are in the head block)/.test(n))).toBe(true);
    expect({ aligned, blockTimeMs: aligned ? timeline.blockTimeMs! > 0 : timeline.blockTimeMs }).toEqual({ aligned, blockTimeMs: aligned ? true : undefined });
    // Every check passed, so each view was established once: 5 nonce + 5 receipts + 2 code + 1
    // estimate observations seen before their seal (more entries only if a loaded machine made
    // the pass retry).
    const seen = timeline.sends.filter((s) => s.visibleAtMs !== undefined);
    expect(seen.length).toBeGreaterThanOrEqual(13);
    for (const s of timeline.sends) expect(s.sentAtMs).toBeGreaterThanOrEqual(0);
    for (const s of seen) {
      expect(s.visibleAtMs).toBeGreaterThan(s.sentAtMs);
      expect(s.sealedAtMs).toBeGreaterThan(s.visibleAtMs!);
    }
  });

  it('still passes when submissions reach the node 250 ms after they were acknowledged', async () => {
    const proxy = await startRpcProxy(ref().rpcUrl, { sendLagMs: 250 });
    try {
      const results = await runPreconf(checks, proxy.url, ref().signerKey);
      expect(describeResults(required(results))).toBe(allPassed(required(results)));
      expect(proxy.stats.delayed).toBeGreaterThanOrEqual(5);
      // The lag is visible in what was measured.
      for (const p of Object.values(latencyOf(results).latency)) expect(p.p50).toBeGreaterThanOrEqual(250);
    } finally {
      await proxy.close();
    }
  });

  // Without a key the checks are out of scope (skipped); with a key they are in scope, so an
  // unfunded key or the spend cap leaves them unjudged: inconclusive, and the run incomplete.
  it('sends nothing without a key (skipped), with an unfunded key or past the spend cap (inconclusive)', async () => {
    const none = await runPreconf(checks, ref().rpcUrl, undefined);
    expect(none.map((r) => `${r.status}: ${r.reason}`)).toEqual(checks.map(() => 'skipped: needs --signer-key'));

    const poor = await runPreconf(checks, ref().rpcUrl, generatePrivateKey());
    for (const r of poor)
      expect(`${r.id}: ${r.status}: ${r.reason}`).toMatch(
        /: inconclusive: signer balance too low \(needs [1-9]\d* wei, has 0\): fund 0x[0-9a-fA-F]{40} to judge pre-confirmed state$/,
      );

    const budget = new SpendBudget(10n ** 9n);
    const capped = await runPreconf(checks, ref().rpcUrl, ref().signerKey, budget);
    for (const r of capped) expect(`${r.id}: ${r.status}: ${r.reason}`).toMatch(/: inconclusive: spend cap reached.*raise --max-spend-wei/);
    expect(budget.spentWei).toBe(0n);
  });
});

describe('transactions landing three flashblocks late (conformant)', () => {
  // Blocks of 2 s (an OP-stack chain's): a second batch sent a refresh after the first still lands
  // in a flashblock before the seal, so the receipts of two flashblocks can be compared.
  const ref = withReference({ inclusionDelayFlashblocks: 3, blockTimeMs: 2000 });

  it('passes every required check; the latency shows the delay', async () => {
    const results = await runPreconf(checks, ref().rpcUrl, ref().signerKey);
    expect(describeResults(required(results))).toBe(allPassed(required(results)));
    // Published at the fourth flashblock after acceptance: never within three periods.
    for (const p of Object.values(latencyOf(results).latency)) expect(p.p50).toBeGreaterThanOrEqual(3 * 200);
  });
});

describe('transactions landing three flashblocks late on 1 s blocks (conformant)', () => {
  // A second batch sent a refresh after the first lands in the seal: no two flashblocks of one
  // block hold the suite's transactions before it, so the pending receipts cannot be told from
  // those of the newest flashblock only: not judged, never failed.
  // Such a node shows a transaction up to 800 ms after its acceptance, so on 1 s blocks only sends
  // accepted within 200 ms after a seal can be seen before the next one. Code and estimate read
  // the first batch, sent right after a seal: they pass. The nonce check needs the second batch,
  // a refresh later, which a loaded runner sent too late in all four attempts twice in many runs
  // (bench/HISTORY.md): the suite then says its state was not established, which is the truth,
  // never a failure. Each attempt it names must then have been sealed unseen (a miss that does
  // not count, src/harness/preconf/attempt.ts) or shown only in part before the seal; a
  // transaction never sealed, or any other reason, is not lateness.
  const ref = withReference({ inclusionDelayFlashblocks: 3 });
  const LATE = [/^attempt \d+: nonce \d+ accepted /, / but the view never showed them all before the first seal /];
  /** The attempts a "not established" names, each one that lateness explains. */
  const everyAttemptLate = (reason: string) => {
    const attempts = reason.slice(reason.indexOf('attempt 1: ')).split(/; (?=attempt \d+: )/);
    return attempts.length > 0 && attempts.every((a) => LATE.some((re) => re.test(a)));
  };

  it('passes code and estimate; nonce passes, or is not established with every attempt explained by lateness; pending receipts not judged, with the reason', async () => {
    const results = await runPreconf(checks, ref().rpcUrl, ref().signerKey);
    const byId = (id: string) => results.find((r) => r.id === id)!;
    const firstBatch = [byId('preconf.code.deployment-visible'), byId('preconf.estimate.depends-on-preconfirmed')];
    expect(describeResults(firstBatch)).toBe(allPassed(firstBatch));
    const nonce = byId('preconf.nonce.back-to-back');
    if (nonce.status !== 'passed') {
      expect(`${nonce.status}: ${nonce.reason}`).toMatch(/^inconclusive: pre-confirmed state was not established in \d+ attempt\(s\), .*attempt 1: /);
      expect({ everyAttemptLate: everyAttemptLate(nonce.reason), reason: nonce.reason }).toMatchObject({ everyAttemptLate: true });
    }
    const receipts = byId('preconf.receipts.pending-block');
    if (receipts.status !== 'passed') {
      expect(receipts.status).toBe('inconclusive');
      expect(receipts.reason).toMatch(/so they may share one flashblock|neither showed|never showed them all|^pre-confirmed state was not established/);
    }
  });
});

describe('eth_blockNumber reporting the block being built (conformant)', () => {
  const ref = withReference({ blockNumberMode: 'building' });

  it('passes every required check: the pending block number is judged against what the observations allow', async () => {
    const results = await runPreconf(checks, ref().rpcUrl, ref().signerKey);
    expectRequiredPassedLatencyJudged(results);
  });
});

describe('the instant model (no flashblocks)', () => {
  const ref = withReference({ flashblockMs: 0 });

  it('passes every required check', async () => {
    const results = await runPreconf(checks, ref().rpcUrl, ref().signerKey);
    expectRequiredPassedLatencyJudged(results);
  });
});

describe("a target whose seals fall on a known grid (the embedded reference's)", () => {
  // A fresh reference: the signer's last transactions (the deployments) are below the head, so
  // the first attempt's timing is the grid's to decide.
  const ref = withReference({});

  it('waits for a seal due too soon for the first attempt, sends right after it, and passes', async () => {
    // A grid every SHOW_MS - 1 ms: whenever the pass asks, the next seal is due within SHOW_MS.
    // The reference's own seals fall elsewhere: the pass waits for the seal it sees.
    const results = await runPreconf(checks, ref().rpcUrl, ref().signerKey, undefined, { sealGrid: { atMs: Date.now(), everyMs: SHOW_MS - 1 } });
    expectRequiredPassedLatencyJudged(results);
    const notes = results.flatMap((r) => r.notes ?? []);
    expect(notes).toContainEqual(expect.stringMatching(/^attempt 1: the target's next seal was due in \d+ ms .* so the sends wait for that seal$/));
    expect(notes).toContainEqual(expect.stringMatching(/^attempt 1: sent right after the seal of block 0x[0-9a-f]+,/));
    expect(notes).not.toContainEqual(expect.stringMatching(/^attempt 1: sent unaligned/));
  });
});
