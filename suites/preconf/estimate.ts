// Spec 4.4 (and 1.4): with "pending", eth_estimateGas estimates against pre-confirmed state,
// "useful when the transaction depends on an earlier pre-confirmed one".
//
// The observation: deploy a contract whose runtime writes a storage slot (SSTORE of a zero slot
// costs >= 20000 gas on every fork since Istanbul), and estimate the same call into its address
// at "pending" and at "latest" before the seal. At "pending" the code exists, so the estimate
// includes the SSTORE; at "latest" the address has no code, so the call is a plain transfer.
// Comparing the two estimates of one transaction object (rather than an absolute 21000) keeps any
// chain-specific part of an estimate (an L1 data fee, a safety margin) out of the comparison.
// A reverting runtime would also do, but would then judge the error format of 4.4 / 7 as well;
// the rpc group does that.
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { initCodeFor, RUNTIME_SSTORE, SSTORE_MIN_GAS, withSession } from '../../src/harness/preconf/session';

export const estimateDependsOnPreconfirmed = check(
  {
    id: 'preconf.estimate.depends-on-preconfirmed',
    section: '4.4, 1.4',
    level: 'required',
    needs: ['rpc', 'signer'],
    title: 'eth_estimateGas "pending" executes a call into a pre-confirmed deployment (SSTORE, +20000 gas or more) while "latest" still estimates a plain transfer; "latest" catches up at the seal',
  },
  (ctx) =>
    withSession(ctx, async (s) => {
      const init = initCodeFor(RUNTIME_SSTORE);
      const gas = await s.gasFor({ data: init });
      await s.ensureFunds([gas]);
      const callTo = (to: string) => ({ from: s.address, to, value: '0x0' });
      let plain = 0n;

      const seen = await s.observeBeforeSeal('pending gas estimate', {
        async prepare(base) {
          const deployment = await s.sign({ data: init, nonce: base, gas });
          // The same call while the address has no code: the plain-transfer estimate.
          plain = await s.estimate(callTo(deployment.contractAddress!), 'latest');
          return [deployment];
        },
        observe: (sent) => s.estimate(callTo(sent[0].contractAddress!), 'pending'),
        visible: (pending) => pending >= plain + SSTORE_MIN_GAS,
        notVisible: (pending, ms, sent) =>
          `eth_estimateGas of a call into ${sent[0].contractAddress} at "pending" stayed ${pending} for ${ms} ms after its deployment ${sent[0].hash} was accepted, while no block was sealed; ` +
          `a code-less estimate is ${plain}, and executing the pre-confirmed code (an SSTORE) adds at least ${SSTORE_MIN_GAS}`,
        final: async (sent) => {
          const to = sent[0].contractAddress!;
          const [pending, latest] = await Promise.all([s.estimate(callTo(to), 'pending'), s.estimate(callTo(to), 'latest')]);
          return { to, pending, latest };
        },
      });

      const { to, pending, latest } = seen.final;
      ctx.note(`call into ${to}: code-less estimate ${plain}; before the seal (block ${seen.startBlock}) estimate pending ${pending}, latest ${latest}; visible ${seen.visibleAfterMs} ms after the send`);
      ctx.metric('visibleAfterMs', seen.visibleAfterMs);
      if (pending < latest + SSTORE_MIN_GAS) {
        fail(`eth_estimateGas at "pending" (${pending}) does not reflect the pre-confirmed contract: it is not ${SSTORE_MIN_GAS} above the "latest" estimate (${latest})`, {
          expected: `>= ${latest + SSTORE_MIN_GAS}`,
          actual: pending.toString(),
        });
      }
      if (latest >= plain + SSTORE_MIN_GAS) {
        fail(`eth_estimateGas at "latest" (${latest}) already executes the contract before the block holding it was sealed; the code-less estimate is ${plain}`, {
          expected: `< ${plain + SSTORE_MIN_GAS}`,
          actual: latest.toString(),
        });
      }

      const receipt = await s.sealed(seen.sent[0].hash);
      const after = await s.estimate(callTo(to), 'latest');
      if (after < plain + SSTORE_MIN_GAS) {
        fail(`after the seal (block ${String(receipt.blockNumber)}) eth_estimateGas at "latest" (${after}) still does not execute the contract; expected >= ${plain + SSTORE_MIN_GAS}`, {
          expected: `>= ${plain + SSTORE_MIN_GAS}`,
          actual: after.toString(),
        });
      }
    }),
);
