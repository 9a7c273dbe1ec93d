// Spec 4.6 (and 1.4): with "pending", contract deployments are visible before the block seals.
// Judged from the one pre-confirmation pass (src/harness/preconf/pass.ts), which deploys two
// contracts of a few bytes among its back-to-back transactions.
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { preconfPass } from '../../src/harness/preconf/pass';
import { DEPLOYED } from '../../src/harness/preconf/behaviours';
import { failShownBeforeSeal, judgedOf, judgeLater } from './judge';

export const codeDeploymentVisible = check(
  {
    id: 'preconf.code.deployment-visible',
    statements: ['4.6.2', '1.4.1', '4.6.1'],
    level: 'required',
    needs: ['rpc', 'signer'],
    title: '"pending" code shows a pre-confirmed deployment before its block is sealed',
  },
  async (ctx) => {
    const pass = await preconfPass(ctx, ['code']);
    const { before, latestRead, after, sent, visibleAfterMs, later } = judgedOf(ctx, pass, 'code', 'eth_getCode(deployment, "pending")');
    ctx.metric('visibleAfterMs', visibleAfterMs);
    DEPLOYED.forEach(([role, runtime], i) => {
      const address = sent.find((t) => t.role === role)!.contractAddress!;
      ctx.note(`contract ${address}: before the seal pending ${before.pending[i]}, latest ${before.latest[i]}; after the seal latest ${after.latest[i]}`);
      if (before.pending[i] !== runtime) {
        fail(`eth_getCode(${address}, "pending") before the seal is ${show(before.pending[i])}; expected exactly the deployed runtime ${runtime}`, {
          expected: runtime,
          actual: before.pending[i],
        });
      }
      const latest = latestRead.view.latest[i];
      if (latest !== '0x') {
        failShownBeforeSeal(
          latestRead.aheadOfSeal,
          `eth_getCode(${address}, "latest") is ${show(latest)} before the block holding the deployment was sealed; expected "0x"`,
          {
            expected: '0x',
            actual: latest,
          },
        );
      }
      if (after.latest[i] !== runtime) {
        fail(`after the seal eth_getCode(${address}, "latest") is ${show(after.latest[i])}; expected ${runtime}`, {
          expected: runtime,
          actual: after.latest[i],
        });
      }
    });
    ctx.note(`visible at "pending" ${visibleAfterMs} ms after the first send`);
    judgeLater(ctx, later, 'eth_getCode(deployment, "pending")');
  },
);
