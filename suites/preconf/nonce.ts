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
import { fail } from '../../src/harness/verdict';
import { toQuantity } from '../../src/harness/hex';
import { preconfPass } from '../../src/harness/preconf/pass';
import { TX_COUNT, type NonceContradiction, type SpellingEvidence } from '../../src/harness/preconf/evidence';
import { failOn, failShownBeforeSeal, judgedOf, judgeLater, notesAndNonce } from './judge';

/** What a wrong count breaks: the pending count is the next nonce and includes what is pre-confirmed (4.5, 1.4); not 4.2.2, which only the safe/finalized reads cite. */
const COUNT_RULES = ['4.5.2', '1.4.1', '4.5.1'];

/** Rounds in which the two spellings of the address disagreed consistently (spelling.ts): the pending count depends on the spelling. */
function judgeSpelling(e: SpellingEvidence): never {
  const higher = e.lower === 'checksummed' ? 'lowercase' : 'checksummed';
  const values = (s: 'checksummed' | 'lowercase') => [...new Set(e.apart.map((r) => toQuantity(s === 'checksummed' ? r.checksummed : r.lowercase)))].join('/');
  const first = e.apart[0];
  fail(
    `the two spellings of the signer's address disagree: eth_getTransactionCount(signer, "pending") asked with the address checksummed and in lowercase at once answered ` +
      `${values(e.lower)} ${e.lower} and ${values(higher)} ${higher} in ${e.apart.length} of ${e.rounds} rounds over ${e.spanMs} ms in attempt ${e.attempt}, and the two never agreed after the first ` +
      `(${e.sent} transactions sent from a sealed count of ${e.base}; the first at +${Math.round(first.atMs)} ms: ${toQuantity(first.checksummed)} checksummed, ${toQuantity(first.lowercase)} lowercase). ` +
      'Backends a refresh apart would agree within a few hundred ms; this lasted longer: an address names one account however its letters are cased, and the pending count includes every pre-confirmed transaction (4.5, 1.4)',
    {
      violated: ['4.5.2', '1.4.1'],
      expected: 'one pending count for both spellings of the address',
      actual: e.apart.slice(0, 5).map((r) => ({ atMs: Math.round(r.atMs), checksummed: toQuantity(r.checksummed), lowercase: toQuantity(r.lowercase) })),
    },
  );
}

/** The readings that ended the pass, against 4.5 / 1.4: the pending count is the next nonce, never below latest. */
function judgeContradiction(c: NonceContradiction): never {
  if (c.kind === 'malformed') failOn(c.violation);
  if (c.kind === 'pending-below-latest') {
    const [first, last] = [c.reads[0], c.reads[c.reads.length - 1]];
    const seen = (r: { latest: bigint; pending: bigint }) => `"pending" ${r.pending} right after "latest" ${r.latest}`;
    fail(
      `eth_getTransactionCount(signer, "pending") answered ${last.pending} right after "latest" answered ${last.latest} (twice: ${seen(first)}, then ${seen(last)}): ` +
        'the pending count includes everything sealed plus what is pre-confirmed (1.4), and it is the nonce to use next (4.5), so it can never be below the latest count',
      { violated: COUNT_RULES, expected: `>= ${toQuantity(last.latest)}`, actual: toQuantity(last.pending) },
    );
  }
  fail(
    `${c.refusal}, although eth_getTransactionCount(signer, "pending") answered ${c.base} before the send and ${c.reread} when re-read after it: ` +
      'the pending count is not the nonce to use next (4.5) and leaves out a transaction the node already holds (1.4)',
    { violated: COUNT_RULES, expected: `nonce ${c.base} accepted (the pending count)`, actual: c.error ?? c.refusal },
  );
}

export const nonceBackToBack = check(
  {
    id: 'preconf.nonce.back-to-back',
    // 4.2.2 too: "safe" and "finalized", read beside it, must not count them before the seal (attempt.ts).
    statements: ['4.5.2', '1.4.1', '4.5.1', '4.2.2'],
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
    const spelled = pass.outcomes.nonce;
    if (spelled?.kind === 'spelling') {
      notesAndNonce(ctx, pass);
      judgeSpelling(spelled.evidence);
    }
    const { base, before, latestRead, after, sent, visibleAfterMs, later } = judgedOf(ctx, pass, 'nonce', 'eth_getTransactionCount(signer, "pending")');
    const k = BigInt(sent.length);
    // An address names one account whatever the case of its letters (EIP-55 is a checksum). Two
    // answers of one round may meet backends a refresh apart: the pass hands over a judged
    // observation only when its rounds cleared a disagreement (a later round agreed, or the
    // lower spelling also gave the higher count); a consistent one is the failure above.
    const spellings = (v: { pending: bigint; pendingLowercase: bigint }) => ({ checksummed: toQuantity(v.pending), lowercase: toQuantity(v.pendingLowercase) });
    if (before.pending !== before.pendingLowercase)
      ctx.note(
        `the round that first showed the state had the spellings apart (${JSON.stringify(spellings(before))}); later rounds agreed or the spellings swapped values (backends a refresh apart)`,
      );
    if (after.pending !== after.pendingLowercase)
      fail(
        'after the seal, eth_getTransactionCount(signer, "pending") answered one count for the checksummed address and another for the same address in lowercase: ' +
          'the pending count must include every pre-confirmed transaction of the account (4.5, 1.4), however its address is spelled',
        { violated: ['4.5.2'], expected: 'the same count for both spellings', actual: spellings(after) },
      );
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
        { violated: COUNT_RULES, expected: toQuantity(base + k), actual: toQuantity(pending) },
      );
    }
    const latest = latestRead.view.latest;
    if (latest !== base) {
      const message = `eth_getTransactionCount(signer, "latest") is ${latest} before the block holding the transactions was sealed; expected the sealed count ${base}`;
      const detail = { violated: COUNT_RULES, expected: toQuantity(base), actual: toQuantity(latest) };
      // Above the sealed count is what a backend that had sealed them shows: evidence only ahead of the seal.
      if (latest > base) failShownBeforeSeal(latestRead.aheadOfSeal, message, detail);
      fail(message, detail);
    }
    // After the seal: latest catches up, and pending equals latest.
    if (after.latest !== base + k) {
      fail(`after the seal eth_getTransactionCount(signer, "latest") is ${after.latest}; expected ${base + k}`, {
        violated: COUNT_RULES,
        expected: toQuantity(base + k),
        actual: toQuantity(after.latest),
      });
    }
    if (after.pending !== after.latest) {
      fail(
        `after the seal eth_getTransactionCount(signer, "pending") is ${after.pending} but "latest" is ${after.latest}; with nothing pre-confirmed they must be equal`,
        {
          violated: COUNT_RULES,
          expected: toQuantity(after.latest),
          actual: toQuantity(after.pending),
        },
      );
    }
    judgeLater(ctx, later, 'eth_getTransactionCount(signer, "pending")');
  },
);
