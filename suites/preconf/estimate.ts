// Spec 4.4 (and 1.4): with "pending", eth_estimateGas estimates against pre-confirmed state,
// "useful when the transaction depends on an earlier pre-confirmed one".
//
// The observation (from the one pre-confirmation pass, src/harness/preconf/pass.ts): a
// deployment whose runtime writes a storage slot (SSTORE of a zero slot costs >= 20000 gas on
// every fork since Istanbul), and the same call into its address estimated at "pending" and at
// "latest" in one round before the seal. At "pending" the code exists, so the estimate includes
// the SSTORE; at "latest" the address has no code, so the call is a plain transfer — compared
// with the same call into an address that never had code, estimated before the send. Comparing
// estimates of one transaction object keeps any chain-specific part of an estimate (an L1 data
// fee, a safety margin) out of the comparison. A reverting runtime would also do, but would then
// judge the error format of 4.4 / 7 as well; the rpc group does that.
import { check, type CheckContext } from '../../src/harness/check';
import type { EstimateView, Judged } from '../../src/harness/preconf/evidence';
import { SKEW_BOUND_MS } from '../../src/harness/preconf/timing';
import { fail } from '../../src/harness/verdict';
import { preconfPass } from '../../src/harness/preconf/pass';
import { failShownBeforeSeal, judgedOf, judgeLater } from './judge';
import { SSTORE_MIN_GAS } from '../../src/harness/preconf/session';

/**
 * 4.4: the block parameter defaults to "latest". Before the seal the call into the pre-confirmed
 * contract is the one whose estimate differs between the tags, so the same call with no block
 * parameter tells the default apart: it must equal the "latest" estimate read beside it (or the
 * code-less one, which "latest" is until the seal). One that sees the contract (older clients
 * default to "pending") fails, in the first pre-confirmed round or in any later one before the
 * seal (behind a balancer, one backend may be such a client) — when answered more than the skew
 * bound before any backend sealed (aheadOfSeal). Nearer the seal the three reads of a round may
 * meet backends either side of it, and the one that had sealed rightly executes the contract by
 * default: such a read is counted, not judged.
 */
function judgeDefault(ctx: Pick<CheckContext, 'note'>, to: string, plain: bigint, judged: Judged<EstimateView, unknown>): void {
  const { before, latestRead, later } = judged;
  const reads = [
    { when: 'before the seal', ...latestRead.view, aheadOfSeal: latestRead.aheadOfSeal },
    ...(later ?? []).flatMap((r) => {
      const v = r.shown as { pending?: string; latest?: string; noBlockParameter?: string };
      if (!r.preSeal || v.noBlockParameter === undefined || v.latest === undefined) return [];
      const when = `${r.afterMs} ms after the state was first seen (before the seal)`;
      return [{ when, omitted: BigInt(v.noBlockParameter), latest: BigInt(v.latest), pending: BigInt(v.pending ?? '0'), aheadOfSeal: r.aheadOfSeal }];
    }),
  ];
  let nearSeal = 0;
  for (const [k, { when, omitted, latest, pending, aheadOfSeal }] of reads.entries()) {
    if (omitted === latest || omitted === plain) continue;
    const message =
      `${when}, eth_estimateGas of the call into ${to} with no block parameter answered ${omitted}, while "latest" answered ${latest} and "pending" ${pending}: ` +
      (omitted >= latest + SSTORE_MIN_GAS ? 'the default block is "pending" (it sees the pre-confirmed contract)' : 'the default block is not "latest"') +
      '; the block parameter defaults to "latest" (4.4)';
    const detail = { violated: ['4.4.1'], expected: `${latest} (the "latest" estimate)`, actual: omitted.toString() };
    // Executing the contract is what a backend that had already sealed answers: evidence only ahead of the seal.
    if (aheadOfSeal || omitted < plain + SSTORE_MIN_GAS) fail(message, detail);
    // Near the seal, the first pre-confirmed round leaves the check unjudged (the pass retries such
    // an attempt); a later read is counted.
    if (k === 0) failShownBeforeSeal(false, message, detail);
    nearSeal++;
  }
  ctx.note(
    `with no block parameter the estimate was ${before.omitted} before the seal, as at "latest" (${before.latest}): the default is "latest"` +
      (nearSeal
        ? `; ${nearSeal} read(s) within ${SKEW_BOUND_MS} ms of the seal executed the contract by default, as a backend that had already sealed does (not judged)`
        : ''),
  );
}

export const estimateDependsOnPreconfirmed = check(
  {
    id: 'preconf.estimate.depends-on-preconfirmed',
    statements: ['4.4.3', '1.4.1', '4.4.1'],
    level: 'required',
    needs: ['rpc', 'signer'],
    title: 'a "pending" estimate sees a pre-confirmed deployment before the seal',
  },
  async (ctx) => {
    const pass = await preconfPass(ctx, ['estimate']);
    const judged = judgedOf(ctx, pass, 'estimate', 'eth_estimateGas(call into the deployment, "pending")');
    const { before, after, sent, visibleAfterMs, later } = judged;
    const to = sent.find((t) => t.role === 'deploy-sstore')!.contractAddress!;
    const plain = pass.plain!;
    ctx.note(
      `call into ${to}: code-less estimate ${plain}; before the seal pending ${before.pending}, latest ${before.latest}; after the seal latest ${after.latest}; visible ${visibleAfterMs} ms after the first send`,
    );
    ctx.metric('visibleAfterMs', visibleAfterMs);
    if (before.pending < before.latest + SSTORE_MIN_GAS) {
      fail(
        `eth_estimateGas at "pending" (${before.pending}) does not reflect the pre-confirmed contract: it is not ${SSTORE_MIN_GAS} above the "latest" estimate (${before.latest})`,
        {
          expected: `>= ${before.latest + SSTORE_MIN_GAS}`,
          actual: before.pending.toString(),
        },
      );
    }
    const { view: latestView, aheadOfSeal } = judged.latestRead;
    if (latestView.latest >= plain + SSTORE_MIN_GAS) {
      failShownBeforeSeal(
        aheadOfSeal,
        `eth_estimateGas at "latest" (${latestView.latest}) already executes the contract before the block holding it was sealed; the code-less estimate is ${plain}`,
        {
          expected: `< ${plain + SSTORE_MIN_GAS}`,
          actual: latestView.latest.toString(),
        },
      );
    }
    if (after.latest < plain + SSTORE_MIN_GAS) {
      fail(`after the seal eth_estimateGas at "latest" (${after.latest}) still does not execute the contract; expected >= ${plain + SSTORE_MIN_GAS}`, {
        expected: `>= ${plain + SSTORE_MIN_GAS}`,
        actual: after.latest.toString(),
      });
    }
    judgeDefault(ctx, to, plain, judged);
    judgeLater(ctx, later, 'eth_estimateGas(call into the deployment, "pending")');
  },
);
