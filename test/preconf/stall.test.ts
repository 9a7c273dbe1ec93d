// Hostile targets for the pre-confirmation pass: a node that never seals (anvil --no-mining), a
// node that stops sealing at the first send (anvil whose interval mining is turned off through
// its own RPC), a node that stops answering at the first send, and a node answering every
// eth_estimateGas with -32603 (an EthereumJS dev node). Each ends the pass with one cause shared
// by the checks it left unjudged; what could still be judged is (anvil's null for the "pending"
// receipts fails wherever it is seen). Wall times: bench/bench.ts.
import { startAnvil, type AnvilProcess } from '../../src/reference/anvil';
import { CHAIN_ID, SIGNER_KEY } from '../../src/reference/defaults';
import { startReference, type ReferenceTarget } from '../../src/reference';
import type { CheckResult } from '../../src/harness/runner';
import { checks } from '../../suites/preconf';
import { describeResults, runPreconf } from './helpers';
import { startRpcProxy } from './proxy';

jest.setTimeout(90_000);

const anvilCall = async (url: string, method: string, params: unknown[]): Promise<unknown> => {
  const env = (await (
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  ).json()) as { result?: unknown; error?: unknown };
  if (env.error) throw new Error(`${method}: ${JSON.stringify(env.error)}`);
  return env.result;
};

/** The checks `ids` (default: all) inconclusive with the very same reason (one cause), matching `why`. */
function expectOneCause(results: CheckResult[], why: RegExp, ids = checks.map((c) => c.id)): void {
  const these = results.filter((r) => ids.includes(r.id));
  expect(these).toHaveLength(ids.length);
  const reasons = new Set(these.map((r) => `${r.status}: ${r.reason}`));
  expect([...reasons]).toHaveLength(1);
  expect([...reasons][0]).toMatch(why);
  for (const r of these) expect(r.blockedBy).toBeUndefined();
}

/**
 * The nodes that stop sealing are judged as a target whose blocks are at most 2 s apart
 * (CheckSettings.maxBlockTimeMs, as a user who knows the chain's block time would give it): the
 * pass gives up after 3 s without a seal instead of the 13 s it allows a target of unknown block
 * time, with the same verdicts.
 */
const TWO_SECOND_BLOCKS = { maxBlockTimeMs: 2000 };

const UNSEALED = ['preconf.nonce.back-to-back', 'preconf.code.deployment-visible', 'preconf.estimate.depends-on-preconfirmed'];

/**
 * What the rounds saw before the stall is still judged: anvil answers eth_getBlockReceipts
 * ("pending") with null (a 4.3 violation in any round); nothing fails on the stall itself, and
 * no latency is reported, since nothing shown at "pending" was then sealed.
 */
function expectRoundsJudged(results: CheckResult[]): void {
  expect(describeResults(results.filter((r) => r.id === 'preconf.receipts.pending-block'))).toMatch(
    /: failed \(eth_getBlockReceipts\("pending"\) answered null, not an array of receipts/,
  );
  // Shown at "pending" but never sealed is no pre-confirmation to time: no latency figure.
  const latency = results.find((r) => r.id === 'preconf.latency.about-200ms')!;
  expect(latency.status).toBe('inconclusive');
  expect(latency.metrics?.latency).toEqual({});
}

describe('anvil', () => {
  let anvil: AnvilProcess;
  beforeEach(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, log: () => undefined });
  });
  afterEach(async () => {
    await anvil?.stop();
  });

  it('that never seals (--no-mining): the pass ends with one cause, "stopped sealing", for every check it left unjudged', async () => {
    const results = await runPreconf(checks, anvil.url, SIGNER_KEY, undefined, TWO_SECOND_BLOCKS);
    expectOneCause(
      results,
      /^inconclusive: the node sealed no block for \d+ ms while the signer's transactions waited \(head 0x0, no block interval seen; the pass gives up after 3000 ms without a seal\)/,
      UNSEALED,
    );
    expectRoundsJudged(results);
    // The first attempt sends at once: no wait for a seal to align with before the stall clock runs.
    expect(results[0].notes!.join('\n')).toMatch(/attempt 1: sent unaligned \(head 0x0\)/);
  });

  it('that never seals, counting pool transactions for a lowercase address only (EthereumJS 0.10.5): the nonce check fails 4.5, saying the spellings disagree', async () => {
    const proxy = await startRpcProxy(anvil.url, { checksummedPendingAsLatest: true });
    try {
      const results = await runPreconf(checks, proxy.url, SIGNER_KEY, undefined, TWO_SECOND_BLOCKS);
      const nonce = results.find((r) => r.id === 'preconf.nonce.back-to-back')!;
      expect(describeResults([nonce])).toMatch(
        /: failed \(the two spellings of the signer's address disagree: .* answered 0x0 checksummed and 0x[35](?:\/0x[35])? lowercase in (\d+) of \1 rounds over \d+ ms/,
      );
      expect(nonce.violated).toEqual(['4.5.2', '1.4.1']);
      // Nothing else fails on the stall: the views that did not disagree are not judged, with the one cause.
      expectOneCause(results, /^inconclusive: the node sealed no block for \d+ ms while the signer's transactions waited/, UNSEALED.slice(1));
    } finally {
      await proxy.close();
    }
  });

  it('that stops sealing at the first send (interval mining turned off): one cause for every check it left unjudged', async () => {
    await anvilCall(anvil.url, 'evm_setIntervalMining', [1]);
    // It seals before the pass: a block (bounded wait) so the head the stall names is a sealed one.
    for (let i = 0; i < 50 && BigInt((await anvilCall(anvil.url, 'eth_blockNumber', [])) as string) < 1n; i++) await new Promise((r) => setTimeout(r, 100));
    const proxy = await startRpcProxy(anvil.url, { beforeFirstSend: async () => void (await anvilCall(anvil.url, 'evm_setIntervalMining', [0])) });
    try {
      const results = await runPreconf(checks, proxy.url, SIGNER_KEY, undefined, TWO_SECOND_BLOCKS);
      expectOneCause(
        results,
        /^inconclusive: the node sealed no block for \d+ ms while the signer's transactions waited \(head 0x[1-9a-f][0-9a-f]*, /,
        UNSEALED,
      );
      expectRoundsJudged(results);
      // It sealed before, so no wait for a seal to align with was given up on.
      expect(results[0].notes!.join('\n')).not.toMatch(/no block was sealed within/);
    } finally {
      await proxy.close();
    }
  });
});

describe('in front of the Flashblocks-mode reference', () => {
  let ref: ReferenceTarget;
  beforeAll(async () => {
    ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
  });
  afterAll(async () => {
    await ref?.stop();
  });

  it('a node that stops answering at the first send: one cause, every check inconclusive, none failed', async () => {
    const proxy = await startRpcProxy(ref.rpcUrl, { silentAfterFirstSend: true });
    try {
      const results = await runPreconf(checks, proxy.url, ref.signerKey);
      expectOneCause(
        results,
        /^inconclusive: the node stopped answering during the pre-confirmation pass \(POST http:\/\/127\.0\.0\.1:\d+\/?: timeout: no complete answer within 5000 ms; asked again for 5 s, eth_chainId got no answer \(.*\): the interface answered the run's start-up probe and then went down\), so nothing more could be observed/,
      );
      expect(proxy.stats.unanswered).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('eth_estimateGas answering -32603 to everything: sized with fixed limits, nonce, code and receipts judged (passed), the estimate check failed on its own evidence (4.4)', async () => {
    const proxy = await startRpcProxy(ref.rpcUrl, { estimateError: { code: -32603, message: 'Internal error' } });
    try {
      // At most three runs: on a loaded runner every attempt's sends can fall just before a seal,
      // and a check then says it could not establish pre-confirmed state (inconclusive, never
      // failed, whatever the estimate did): that run says nothing of what this test judges.
      let results: CheckResult[] = [];
      for (let run = 1; run <= 3; run++) {
        results = await runPreconf(checks, proxy.url, ref.signerKey);
        const unestablished = results.filter((r) => r.status === 'inconclusive' && r.reason.startsWith('pre-confirmed state was not established'));
        if (unestablished.length === 0) break;
        console.log(`run ${run}: ${describeResults(unestablished)}; again`);
      }
      const byId = (id: string) => results.find((r) => r.id === id)!;
      for (const id of ['preconf.nonce.back-to-back', 'preconf.code.deployment-visible', 'preconf.receipts.pending-block'])
        expect(describeResults([byId(id)])).toBe(`${id}: passed`);
      const estimate = byId('preconf.estimate.depends-on-preconfirmed');
      expect(describeResults([estimate])).toMatch(
        /: failed \(eth_estimateGas\(.*"latest"\) returned an error for a transaction that does not revert: \{"code":-32603,"message":"Internal error"\}/,
      );
      expect(estimate.violated).toEqual(['4.4.1']);
      expect(results[0].notes).toContainEqual(
        expect.stringMatching(
          /^eth_estimateGas could not size the transactions \(.*-32603.*\): sized with fixed limits \(100000, 250000, 250000, 100000, 100000\)$/,
        ),
      );
    } finally {
      await proxy.close();
    }
  }, 240_000); // at most three runs of the pass
});
