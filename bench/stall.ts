// How long the pre-confirmation checks take against a node that stops sealing: anvil that never
// seals (--no-mining), and anvil sealing every second until the signer's first transaction is
// in its pool, when its interval mining is turned off (its own RPC, evm_setIntervalMining).
import { Redactor } from '../src/harness/redact';
import { runChecks, type CheckResult } from '../src/harness/runner';
import { judge } from '../src/verdict/outcome';
import { decideRoots } from '../src/verdict/root-causes';
import { createSigner, SpendBudget } from '../src/harness/signer';
import { startAnvil } from '../src/reference/anvil';
import { CHAIN_ID, SIGNER_ADDRESS, SIGNER_KEY } from '../src/reference/defaults';
import { checks } from '../suites/preconf';

async function call(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const env = (await res.json()) as { result?: unknown; error?: unknown };
  if (env.error) throw new Error(`${method}: ${JSON.stringify(env.error)}`);
  return env.result;
}

/** Turns mining off as soon as the signer has a transaction in the pool (polled every 10 ms, for at most 60 s). */
function stopMiningAtFirstSend(url: string): Promise<void> {
  return (async () => {
    for (let i = 0; i < 6000; i++) {
      const [pending, latest] = await Promise.all([
        call(url, 'eth_getTransactionCount', [SIGNER_ADDRESS, 'pending']),
        call(url, 'eth_getTransactionCount', [SIGNER_ADDRESS, 'latest']),
      ]);
      if (pending !== latest) return void (await call(url, 'evm_setIntervalMining', [0]));
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
}

/** The preconf checks against anvil that stops sealing (`midPass`) or never seals: wall time and the verdicts. */
export async function stalledPass(midPass: boolean): Promise<{ ms: number; verdicts: string }> {
  const anvil = await startAnvil({ chainId: CHAIN_ID, log: () => undefined });
  try {
    if (midPass) await call(anvil.url, 'evm_setIntervalMining', [1]);
    const watcher = midPass ? stopMiningAtFirstSend(anvil.url) : undefined;
    const t = performance.now();
    const results: CheckResult[] = await runChecks(
      checks,
      {
        rpcUrl: anvil.url,
        restHeaders: {},
        rpcHeaders: {},
        settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 5000 },
        redactor: new Redactor(),
        signer: createSigner(SIGNER_KEY, new SpendBudget(10n ** 18n)),
        signal: new AbortController().signal,
      },
      { concurrency: 1 },
    );
    const ms = performance.now() - t;
    await watcher;
    const counts = new Map<string, number>();
    // As results.json holds them: a blocked check decided with its root (decideRoots), not the failure it recorded.
    for (const r of decideRoots(results.map((x) => judge(x))).checks) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    return { ms, verdicts: [...counts].map(([s, n]) => `${n} ${s}`).join(', ') };
  } finally {
    await anvil.stop();
  }
}
