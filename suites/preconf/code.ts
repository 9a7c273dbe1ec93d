// Spec 4.6 (and 1.4): with "pending", contract deployments are visible before the block seals.
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { initCodeFor, RUNTIME_RETURNS_42, withSession } from '../../src/harness/preconf/session';

export const codeDeploymentVisible = check(
  {
    id: 'preconf.code.deployment-visible',
    section: '4.6, 1.4',
    level: 'required',
    needs: ['rpc', 'signer'],
    title: 'eth_getCode "pending" returns a pre-confirmed deployment\'s exact runtime bytecode before the seal while "latest" returns "0x"; "latest" has it after the seal',
  },
  (ctx) =>
    withSession(ctx, async (s) => {
      const init = initCodeFor(RUNTIME_RETURNS_42);
      const gas = await s.gasFor({ data: init });
      await s.ensureFunds([gas]);

      const seen = await s.observeBeforeSeal('pending code of a deployment', {
        prepare: async (base) => [await s.sign({ data: init, nonce: base, gas })],
        observe: (sent) => s.code(sent[0].contractAddress!, 'pending'),
        visible: (code) => code !== '0x',
        notVisible: (code, ms, sent) =>
          `eth_getCode(${sent[0].contractAddress}, "pending") stayed ${show(code)} for ${ms} ms after the deployment ${sent[0].hash} was accepted, while no block was sealed; ` +
          `expected the runtime ${RUNTIME_RETURNS_42} (deployments are visible at "pending" before the block seals)`,
        final: async (sent) => {
          const address = sent[0].contractAddress!;
          const [pending, latest] = await Promise.all([s.code(address, 'pending'), s.code(address, 'latest')]);
          return { address, pending, latest };
        },
      });

      const { address, pending, latest } = seen.final;
      ctx.note(`contract ${address} (nonce ${seen.base}): before the seal (block ${seen.startBlock}) pending ${pending}, latest ${latest}; visible ${seen.visibleAfterMs} ms after the send`);
      ctx.metric('visibleAfterMs', seen.visibleAfterMs);
      if (pending.toLowerCase() !== RUNTIME_RETURNS_42) {
        fail(`eth_getCode(${address}, "pending") before the seal is ${show(pending)}; expected exactly the deployed runtime ${RUNTIME_RETURNS_42}`, { expected: RUNTIME_RETURNS_42, actual: pending });
      }
      if (latest !== '0x') {
        fail(`eth_getCode(${address}, "latest") is ${show(latest)} before the block holding the deployment was sealed; expected "0x"`, { expected: '0x', actual: latest });
      }

      const receipt = await s.sealed(seen.sent[0].hash);
      const after = await s.code(address, 'latest');
      if (receipt.status !== '0x1') ctx.note(`the sealed deployment has status ${show(receipt.status)}`);
      if (after.toLowerCase() !== RUNTIME_RETURNS_42) {
        fail(`after the seal (block ${show(receipt.blockNumber)}) eth_getCode(${address}, "latest") is ${show(after)}; expected ${RUNTIME_RETURNS_42}`, { expected: RUNTIME_RETURNS_42, actual: after });
      }
    }),
);
