// The pre-confirmed-state checks against the embedded reference: directly, and through a proxy
// that shows pre-confirmed state only 250 ms late (still conformant: everything passes).
import { generatePrivateKey } from 'viem/accounts';
import { SpendBudget } from '../../src/harness/signer';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { checks } from '../../suites/preconf';
import { describeResults, runPreconf } from './helpers';
import { startRpcProxy } from './proxy';

jest.setTimeout(80_000);

let ref: ReferenceTarget;

beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
});
afterAll(async () => {
  await ref?.stop();
});

it('passes every preconf check on the reference and records the latency figures', async () => {
  const budget = new SpendBudget(10n ** 18n);
  const results = await runPreconf(checks, ref.rpcUrl, ref.signerKey, budget);
  // The whole group fits well inside the default --max-spend-wei (1e16).
  expect(budget.spentWei).toBeGreaterThan(0n);
  expect(budget.spentWei).toBeLessThan(10n ** 16n / 2n);
  process.stdout.write(`preconf reserved ${budget.spentWei} wei\n`);
  expect(describeResults(results)).toBe(describeResults(results.map((r) => ({ ...r, status: 'passed', reason: '' }))));
  const latency = results.find((r) => r.id === 'preconf.latency.about-200ms')!;
  const m = latency.metrics?.preconfLatencyMs as { n: number; p50: number; p95: number; max: number };
  expect(m.n).toBeGreaterThanOrEqual(20);
  expect(m.p50).toBeLessThanOrEqual(m.p95);
  expect(m.p95).toBeLessThanOrEqual(m.max);
});

it('still passes everything when pre-confirmed state shows only after a 250 ms lag', async () => {
  const proxy = await startRpcProxy(ref.rpcUrl, { sendLagMs: 250 });
  try {
    const results = await runPreconf(checks, proxy.url, ref.signerKey);
    expect(describeResults(results)).toBe(describeResults(results.map((r) => ({ ...r, status: 'passed', reason: '' }))));
    expect(proxy.stats.delayed).toBeGreaterThanOrEqual(20);
    // The lag is visible in what was measured.
    const m = results.find((r) => r.id === 'preconf.latency.about-200ms')!.metrics?.preconfLatencyMs as { p50: number };
    expect(m.p50).toBeGreaterThanOrEqual(250);
  } finally {
    await proxy.close();
  }
});

it('sends nothing without a key, with an unfunded key, or past the spend cap', async () => {
  const none = await runPreconf(checks, ref.rpcUrl, undefined);
  expect(none.map((r) => `${r.status}: ${r.reason}`)).toEqual(checks.map(() => 'skipped: needs --signer-key'));

  const poor = await runPreconf(checks, ref.rpcUrl, generatePrivateKey());
  for (const r of poor) expect(`${r.id}: ${r.status}: ${r.reason}`).toMatch(/: skipped: signer balance too low \(needs [1-9]\d* wei\)$/);

  const budget = new SpendBudget(10n ** 9n);
  const capped = await runPreconf(checks, ref.rpcUrl, ref.signerKey, budget);
  for (const r of capped) expect(`${r.id}: ${r.status}: ${r.reason}`).toMatch(/: skipped: spend cap reached/);
  expect(budget.spentWei).toBe(0n);
});
