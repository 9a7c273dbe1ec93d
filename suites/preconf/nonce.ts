// Spec 4.5 (and 1.4): eth_getTransactionCount(addr, "pending") includes all pre-confirmed
// transactions; it is the value to use as the next nonce, which avoids nonce gaps.
//
// Judged from the one pre-confirmation pass (src/harness/preconf/pass.ts): its transactions are
// sent back to back with consecutive nonces starting at the pending count. Besides the counts
// before and after the seal, the node's own answers can prove a violation directly: a "pending"
// count below the "latest" count read just before it, or "nonce too low" for the very nonce the
// pending count gave (re-read once: another sender of the key could only have raised it).
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { toQuantity } from '../../src/harness/hex';
import { judgedOf, outcomeOf, preconfPass, TX_COUNT } from '../../src/harness/preconf/pass';

export const nonceBackToBack = check(
  {
    id: 'preconf.nonce.back-to-back',
    statements: ['4.5.2', '1.4.1'],
    level: 'required',
    needs: ['rpc', 'signer'],
    title: `"pending" nonce counts ${TX_COUNT} back-to-back pre-confirmed transactions exactly`,
  },
  async (ctx) => {
    const pass = await preconfPass(ctx, ['nonce']);
    if (pass.nonceEvidence) {
      for (const line of pass.notes) ctx.note(line);
      throw pass.nonceEvidence;
    }
    const { base, before, after, sent, visibleAfterMs } = judgedOf(outcomeOf(ctx, pass, 'nonce'), 'nonce', 'eth_getTransactionCount(signer, "pending")');
    const k = BigInt(sent.length);
    ctx.note(`before the seal: latest ${before.latest}, pending ${before.pending} (sealed count ${base}); visible at "pending" ${visibleAfterMs} ms after the first send`);
    ctx.metric('visibleAfterMs', visibleAfterMs);
    if (before.pending !== base + k) {
      fail(
        `eth_getTransactionCount(signer, "pending") is ${before.pending} with ${sent.length} pre-confirmed transactions on a sealed count of ${base}: ` +
          (before.pending < base + k ? 'a gap (not all pre-confirmed transactions are counted)' : 'a double count'),
        { expected: toQuantity(base + k), actual: toQuantity(before.pending) },
      );
    }
    if (before.latest !== base) {
      fail(`eth_getTransactionCount(signer, "latest") is ${before.latest} before the block holding the transactions was sealed; expected the sealed count ${base}`, {
        expected: toQuantity(base),
        actual: toQuantity(before.latest),
      });
    }
    // After the seal: latest catches up, and pending equals latest.
    if (after.latest !== base + k) {
      fail(`after the seal eth_getTransactionCount(signer, "latest") is ${after.latest}; expected ${base + k}`, { expected: toQuantity(base + k), actual: toQuantity(after.latest) });
    }
    if (after.pending !== after.latest) {
      fail(`after the seal eth_getTransactionCount(signer, "pending") is ${after.pending} but "latest" is ${after.latest}; with nothing pre-confirmed they must be equal`, {
        expected: toQuantity(after.latest),
        actual: toQuantity(after.pending),
      });
    }
  },
);
