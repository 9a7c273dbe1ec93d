import { stalledPass } from './stall';
import { Redactor } from '../src/harness/redact';
import { runChecks } from '../src/harness/runner';
import { createSigner, SpendBudget } from '../src/harness/signer';
import { startReference } from '../src/reference';
import { checks } from '../suites/preconf';

(async () => {
  const ref = await startReference({ profile: 'dedicated', blockTimeMs: 2000 });
  try {
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const results = await runChecks(checks, { rpcUrl: ref.rpcUrl, restHeaders: {}, rpcHeaders: {}, settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 5000 }, redactor: new Redactor(), signer: createSigner(ref.signerKey, new SpendBudget(10n ** 18n)), signal: new AbortController().signal }, { concurrency: 1 });
      const lat = results.find((r) => r.id === 'preconf.latency.about-200ms')!.metrics as { latencyJudged?: { p50: number; p95: number; n: number } };
      console.log(`run ${i + 1}: ${Math.round(performance.now() - t)} ms, ${results.map((r) => r.status).join('/')}, latency p50 ${lat.latencyJudged?.p50} p95 ${lat.latencyJudged?.p95} n ${lat.latencyJudged?.n}`);
    }
  } finally {
    await ref.stop();
  }
  if (process.argv.includes('--stall')) for (const mid of [false, true]) {
    const r = await stalledPass(mid);
    console.log(mid ? 'mid-pass' : 'never', (r.ms / 1000).toFixed(1), 's', r.verdicts);
  }
})();
