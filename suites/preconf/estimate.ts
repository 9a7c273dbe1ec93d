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
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { preconfPass } from '../../src/harness/preconf/pass';
import { judgedOf, judgeLater } from './judge';
import { SSTORE_MIN_GAS } from '../../src/harness/preconf/session';

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
    judgeLater(ctx, later, 'eth_estimateGas(call into the deployment, "pending")');
  },
);
