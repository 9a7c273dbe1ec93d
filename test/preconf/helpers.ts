import { Redactor } from '../../src/harness/redact';
import { runChecks, type CheckResult, type RunEnv } from '../../src/harness/runner';
import { createSigner, SpendBudget } from '../../src/harness/signer';
import type { Check, SealGrid } from '../../src/harness/check';
import type { RateLimiter } from '../../src/harness/http';
import { decided } from '../support/runs';

/** Runs checks against an RPC URL as the CLI would, signing with `signerKey`: the results as results.json holds them. */
export async function runPreconf(
  checks: Check[],
  rpcUrl: string,
  signerKey: `0x${string}` | undefined,
  budget = new SpendBudget(10n ** 18n),
  opts: { limiter?: RateLimiter; maxBlockTimeMs?: number; sealGrid?: SealGrid } = {},
): Promise<CheckResult[]> {
  const env: RunEnv = {
    rpcUrl,
    restHeaders: {},
    rpcHeaders: {},
    settings: {
      profile: 'dedicated',
      clockSkewSec: 300,
      timeoutMs: 5000,
      ...(opts.maxBlockTimeMs ? { maxBlockTimeMs: opts.maxBlockTimeMs } : {}),
      ...(opts.sealGrid ? { sealGrid: opts.sealGrid } : {}),
    },
    redactor: new Redactor(),
    signer: signerKey ? createSigner(signerKey, budget) : undefined,
    signal: new AbortController().signal,
    ...(opts.limiter ? { limiter: opts.limiter } : {}),
  };
  return decided(await runChecks(checks, env, { concurrency: 1 }));
}

/** One line per result, for assertion messages. */
export function describeResults(results: CheckResult[]): string {
  return results.map((r) => `${r.id}: ${r.status}${r.reason ? ` (${r.reason.slice(0, 400)})` : ''}`).join('\n');
}
