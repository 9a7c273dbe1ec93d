// Spec 4.5 (and 1.4): eth_getTransactionCount(addr, "pending") includes all pre-confirmed
// transactions; it is the value to use as the next nonce, which avoids nonce gaps.
//
// Judged from the one pre-confirmation pass (src/harness/preconf/pass.ts): its transactions are
// sent back to back with consecutive nonces starting at the pending count. Besides the counts
// before and after the seal, the node's own answers can prove a violation directly: a "pending"
// count below the "latest" count read just before it (on two reads of the pair), or "nonce too
// low" for the very nonce the pending count gave (re-read once: another sender of the key could
// only have raised it). The pass stops at those readings; this check states them, and the other
// preconf checks are blocked by it (judge.ts).
import { check } from '../../src/harness/check';
import { fail, inconclusive } from '../../src/harness/verdict';
import { toQuantity } from '../../src/harness/hex';
import { preconfPass } from '../../src/harness/preconf/pass';
import { TX_COUNT, type NonceContradiction } from '../../src/harness/preconf/evidence';
import { failOn, judgedOf, judgeLater } from './judge';
import { REFRESH_TOLERANCE_MS } from '../../src/harness/preconf/timing';

/** A later read's two spellings, as shown (hex quantities), disagree. */
const spellingsDisagree = (shown: unknown): boolean => {
  const v = shown as { pending?: unknown; pendingLowercase?: unknown } | null;
  return typeof v?.pending === 'string' && typeof v.pendingLowercase === 'string' && v.pending !== v.pendingLowercase;
};

/** The readings that ended the pass, against 4.5 / 1.4: the pending count is the next nonce, never below latest. */
function judgeContradiction(c: NonceContradiction): never {
  if (c.kind === 'malformed') failOn(c.violation);
  if (c.kind === 'pending-below-latest') {
    const [first, last] = [c.reads[0], c.reads[c.reads.length - 1]];
    const seen = (r: { latest: bigint; pending: bigint }) => `"pending" ${r.pending} right after "latest" ${r.latest}`;
    fail(
      `eth_getTransactionCount(signer, "pending") answered ${last.pending} right after "latest" answered ${last.latest} (twice: ${seen(first)}, then ${seen(last)}): ` +
        'the pending count includes everything sealed plus what is pre-confirmed (1.4), and it is the nonce to use next (4.5), so it can never be below the latest count',
      { expected: `>= ${toQuantity(last.latest)}`, actual: toQuantity(last.pending) },
    );
  }
  fail(
    `${c.refusal}, although eth_getTransactionCount(signer, "pending") answered ${c.base} before the send and ${c.reread} when re-read after it: ` +
      'the pending count is not the nonce to use next (4.5) and leaves out a transaction the node already holds (1.4)',
    { expected: `nonce ${c.base} accepted (the pending count)`, actual: c.error ?? c.refusal },
  );
}

export const nonceBackToBack = check(
  {
    id: 'preconf.nonce.back-to-back',
    statements: ['4.5.2', '1.4.1', '4.5.1'],
    level: 'required',
    needs: ['rpc', 'signer'],
    title: `"pending" nonce counts ${TX_COUNT} back-to-back pre-confirmed transactions exactly`,
  },
  async (ctx) => {
    const pass = await preconfPass(ctx, ['nonce']);
    if (pass.nonce) {
      for (const line of pass.notes) ctx.note(line);
      judgeContradiction(pass.nonce);
    }
    const { base, before, after, sent, visibleAfterMs, later } = judgedOf(ctx, pass, 'nonce', 'eth_getTransactionCount(signer, "pending")');
    const k = BigInt(sent.length);
    // An address names one account whatever the case of its letters (EIP-55 is a checksum).
    // The round that first showed the state may straddle a refresh: its two spellings, asked at
    // once, can meet the old and the new state. Only a disagreement seen again past the refresh
    // tolerance, or after the seal, is evidence; one that nothing later could confirm or clear is
    // ambiguous.
    const spellings = (v: { pending: bigint; pendingLowercase: bigint }) => ({ checksummed: toQuantity(v.pending), lowercase: toQuantity(v.pendingLowercase) });
    const disagreeing = (later ?? []).filter((r) => r.preSeal && r.afterMs > REFRESH_TOLERANCE_MS && spellingsDisagree(r.shown));
    const settled = (later ?? []).filter((r) => r.preSeal && r.afterMs > REFRESH_TOLERANCE_MS);
    const spellingFailure = (when: string, actual: unknown) =>
      fail(
        `${when}, eth_getTransactionCount(signer, "pending") answered one count for the checksummed address and another for the same address in lowercase: ` +
          'the pending count must include every pre-confirmed transaction of the account (4.5, 1.4), however its address is spelled',
        { violated: ['4.5.2'], expected: 'the same count for both spellings', actual },
      );
    if (before.pending !== before.pendingLowercase) {
      if (disagreeing.length > 0) spellingFailure(`before the seal, ${disagreeing[0].afterMs} ms after the state was first seen`, disagreeing[0].shown);
      if (settled.length === 0)
        inconclusive(
          `in the round that first showed the pre-confirmed state the two spellings of the signer's address disagreed (${JSON.stringify(spellings(before))}), and no later read before the seal could tell a refresh between the two answers from a count that depends on the spelling`,
        );
      ctx.note(`the round that first showed the state had the spellings apart (${JSON.stringify(spellings(before))}); ${settled.length} later read(s) agree`);
    }
    if (after.pending !== after.pendingLowercase) spellingFailure('after the seal', spellings(after));
    // The count as the round showed it: the spelling that had it (their disagreement is judged above).
    const pending = before.pending > before.pendingLowercase ? before.pending : before.pendingLowercase;
    ctx.note(
      `before the seal: latest ${before.latest}, pending ${pending} (sealed count ${base}); visible at "pending" ${visibleAfterMs} ms after the first send`,
    );
    ctx.metric('visibleAfterMs', visibleAfterMs);
    if (pending !== base + k) {
      fail(
        `eth_getTransactionCount(signer, "pending") is ${pending} with ${sent.length} pre-confirmed transactions on a sealed count of ${base}: ` +
          (pending < base + k ? 'a gap (not all pre-confirmed transactions are counted)' : 'a double count'),
        { expected: toQuantity(base + k), actual: toQuantity(pending) },
      );
    }
    if (before.latest !== base) {
      fail(
        `eth_getTransactionCount(signer, "latest") is ${before.latest} before the block holding the transactions was sealed; expected the sealed count ${base}`,
        {
          expected: toQuantity(base),
          actual: toQuantity(before.latest),
        },
      );
    }
    // After the seal: latest catches up, and pending equals latest.
    if (after.latest !== base + k) {
      fail(`after the seal eth_getTransactionCount(signer, "latest") is ${after.latest}; expected ${base + k}`, {
        expected: toQuantity(base + k),
        actual: toQuantity(after.latest),
      });
    }
    if (after.pending !== after.latest) {
      fail(
        `after the seal eth_getTransactionCount(signer, "pending") is ${after.pending} but "latest" is ${after.latest}; with nothing pre-confirmed they must be equal`,
        {
          expected: toQuantity(after.latest),
          actual: toQuantity(after.pending),
        },
      );
    }
    judgeLater(ctx, later, 'eth_getTransactionCount(signer, "pending")');
  },
);
