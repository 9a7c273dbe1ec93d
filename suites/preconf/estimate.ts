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
import type { EstimateView, LaterRead } from '../../src/harness/preconf/evidence';
import { fail } from '../../src/harness/verdict';
import { preconfPass } from '../../src/harness/preconf/pass';
import { judgedOf, judgeLater } from './judge';
import { SSTORE_MIN_GAS } from '../../src/harness/preconf/session';

/**
 * 4.4: the block parameter defaults to "latest". Before the seal the call into the pre-confirmed
 * contract is the one whose estimate differs between the tags, so the same call with no block
 * parameter tells the default apart: it must equal the "latest" estimate read beside it (or the
 * code-less one, which "latest" is until the seal). One that sees the contract (older clients
 * default to "pending") fails, in the first pre-confirmed round or in any later one before the
 * seal (behind a balancer, one backend may be such a client).
 */
function judgeDefault(ctx: Pick<CheckContext, 'note'>, to: string, plain: bigint, before: EstimateView, later: readonly LaterRead[] | undefined): void {
  const seesContract = (omitted: bigint, latest: bigint) => omitted !== latest && omitted !== plain;
  const failDefault = (when: string, omitted: bigint, latest: bigint, pending: bigint) =>
    fail(
      `${when}, eth_estimateGas of the call into ${to} with no block parameter answered ${omitted}, while "latest" answered ${latest} and "pending" ${pending}: ` +
        (omitted >= latest + SSTORE_MIN_GAS ? 'the default block is "pending" (it sees the pre-confirmed contract)' : 'the default block is not "latest"') +
        '; the block parameter defaults to "latest" (4.4)',
      { violated: ['4.4.1'], expected: `${latest} (the "latest" estimate)`, actual: omitted.toString() },
    );
  if (seesContract(before.omitted, before.latest)) failDefault('before the seal', before.omitted, before.latest, before.pending);
  for (const r of later ?? []) {
    const v = r.shown as { pending?: string; latest?: string; noBlockParameter?: string };
    if (!r.preSeal || v.noBlockParameter === undefined || v.latest === undefined) continue;
    const [omitted, latest] = [BigInt(v.noBlockParameter), BigInt(v.latest)];
    if (seesContract(omitted, latest))
      failDefault(`${r.afterMs} ms after the state was first seen (before the seal)`, omitted, latest, BigInt(v.pending ?? '0'));
  }
  ctx.note(`with no block parameter the estimate was ${before.omitted} before the seal, as at "latest" (${before.latest}): the default is "latest"`);
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
    const { before, after, sent, visibleAfterMs, later } = judgedOf(ctx, pass, 'estimate', 'eth_estimateGas(call into the deployment, "pending")');
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
    if (before.latest >= plain + SSTORE_MIN_GAS) {
      fail(
        `eth_estimateGas at "latest" (${before.latest}) already executes the contract before the block holding it was sealed; the code-less estimate is ${plain}`,
        {
          expected: `< ${plain + SSTORE_MIN_GAS}`,
          actual: before.latest.toString(),
        },
      );
    }
    if (after.latest < plain + SSTORE_MIN_GAS) {
      fail(`after the seal eth_estimateGas at "latest" (${after.latest}) still does not execute the contract; expected >= ${plain + SSTORE_MIN_GAS}`, {
        expected: `>= ${plain + SSTORE_MIN_GAS}`,
        actual: after.latest.toString(),
      });
    }
    judgeDefault(ctx, to, plain, before, later);
    judgeLater(ctx, later, 'eth_estimateGas(call into the deployment, "pending")');
  },
);
