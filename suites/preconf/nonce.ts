// Spec 4.5 (and 1.4): eth_getTransactionCount(addr, "pending") includes all pre-confirmed
// transactions; it is the value to use as the next nonce, which avoids nonce gaps.
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { withSession } from '../../src/harness/preconf/session';

/** Transactions sent back to back, without waiting for a seal. */
export const BACK_TO_BACK = 3;

export const nonceBackToBack = check(
  {
    id: 'preconf.nonce.back-to-back',
    section: '4.5, 1.4',
    level: 'required',
    needs: ['rpc', 'signer'],
    title: `eth_getTransactionCount "pending" counts ${BACK_TO_BACK} back-to-back pre-confirmed transactions exactly (no gap, no double count) before the seal; "latest" catches up at the seal`,
  },
  (ctx) =>
    withSession(ctx, async (s) => {
      const k = BigInt(BACK_TO_BACK);
      const gas = await s.gasFor({ to: s.address });
      await s.ensureFunds(Array.from({ length: BACK_TO_BACK }, () => gas));

      const seen = await s.observeBeforeSeal('pending transaction count', {
        // Explicit nonces from the pending count; sent one after the other without waiting.
        prepare: (base) => Promise.all(Array.from({ length: BACK_TO_BACK }, (_, i) => s.sign({ to: s.address, nonce: base + BigInt(i), gas }))),
        observe: () => s.count('pending'),
        visible: (pending, _sent, base) => pending >= base + k,
        notVisible: (pending, ms, _sent, base) =>
          `eth_getTransactionCount(signer, "pending") stayed ${pending} for ${ms} ms after ${BACK_TO_BACK} transactions with nonces ${base}..${base + k - 1n} were accepted, ` +
          `while no block was sealed; expected ${base + k} (pending must include pre-confirmed transactions, refreshed about every 200 ms)`,
        final: async () => {
          const [pending, latest] = await Promise.all([s.count('pending'), s.count('latest')]);
          return { pending, latest };
        },
      });

      const { base, final, startBlock } = seen;
      ctx.note(`before the seal (block ${startBlock}): latest ${final.latest}, pending ${final.pending}; visible at "pending" ${seen.visibleAfterMs} ms after the first send`);
      ctx.metric('visibleAfterMs', seen.visibleAfterMs);
      if (final.pending !== base + k) {
        fail(
          `eth_getTransactionCount(signer, "pending") is ${final.pending} with ${BACK_TO_BACK} pre-confirmed transactions on a sealed count of ${base}: ` +
            (final.pending < base + k ? 'a gap (not all pre-confirmed transactions are counted)' : 'a double count'),
          { expected: `0x${(base + k).toString(16)}`, actual: `0x${final.pending.toString(16)}` },
        );
      }
      if (final.latest !== base) {
        fail(`eth_getTransactionCount(signer, "latest") is ${final.latest} before the block holding the transactions was sealed; expected the sealed count ${base}`, {
          expected: `0x${base.toString(16)}`,
          actual: `0x${final.latest.toString(16)}`,
        });
      }

      // After the seal: latest catches up, and pending equals latest.
      for (const tx of seen.sent) await s.sealed(tx.hash);
      const [pending, latest] = await Promise.all([s.count('pending'), s.count('latest')]);
      if (latest !== base + k) {
        fail(`after the seal eth_getTransactionCount(signer, "latest") is ${latest}; expected ${base + k}`, { expected: `0x${(base + k).toString(16)}`, actual: `0x${latest.toString(16)}` });
      }
      if (pending !== latest) {
        fail(`after the seal eth_getTransactionCount(signer, "pending") is ${pending} but "latest" is ${latest}; with nothing pre-confirmed they must be equal`, {
          expected: `0x${latest.toString(16)}`,
          actual: `0x${pending.toString(16)}`,
        });
      }
    }),
);
