// What of a "pending" receipts sample skew between backends lets rpc.getBlockReceipts.block.pending
// judge (settledPart): disagreements on transactions seen less than the skew bound before are left
// out or re-read; older ones are judged. Pure: times are given, no node.
import { settledPart, Sightings, type PendingSample, type SampleTimes } from '../../suites/rpc/pending-receipts-skew';
import { PRECONF_SKEW_MS } from '../../suites/rpc/pending-count';

const at = (t: number): SampleTimes => ({ beforeAnswered: t, receiptsAsked: t, receiptsAnswered: t + 5, afterAsked: t + 5, afterAnswered: t + 10 });
const receipt = (h: string, n = 11) => ({ transactionHash: h, blockNumber: `0x${n.toString(16)}`, gasUsed: '0x5208' });
const sample = (block: string[], receipts: string[], n = 11n, after = block, named = Number(n)): PendingSample => ({
  param: 'pending',
  receipts: receipts.map((h) => receipt(h, named)),
  before: { number: n, txs: block },
  after: { number: n, txs: after },
  heads: { headBefore: n - 1n, headAfter: n - 1n },
});

describe('settledPart', () => {
  it('receipts and block agreeing: judged whole', () => {
    expect(settledPart(sample(['0xa', '0xb'], ['0xb', '0xa']), new Sightings(), at(0))).toBeUndefined();
  });

  it('the first read, the receipts from a backend 400 ms behind (none of the 3 yet): ambiguous, re-read', () => {
    const r = settledPart(sample(['0xa', '0xb', '0xc'], []), new Sightings(), at(0));
    expect(r).toMatchObject({
      ambiguous: expect.stringMatching(/disagree on 3 transaction\(s\) seen .* less than 600 ms before, and the block holds none seen earlier/),
    });
  });

  it('past the bound: the older transactions are judged, a newer one they disagree on is left out', () => {
    const seen = new Sightings();
    seen.see(sample(['0xa'], ['0xa']), at(0));
    const r = settledPart(sample(['0xa', '0xb'], ['0xa']), seen, at(PRECONF_SKEW_MS + 50));
    expect(r).toMatchObject({ leftOut: expect.stringMatching(/^1 transaction\(s\) .* were left out .*; judged on 1 seen earlier$/) });
    expect(r && 'sample' in r ? [r.sample.before.txs, r.sample.receipts.map((x) => x.transactionHash)] : undefined).toEqual([['0xa'], ['0xa']]);
  });

  it('a transaction the block listed past the bound and the receipts still leave out: kept, so the judgement sees it', () => {
    const seen = new Sightings();
    seen.see(sample(['0xa'], []), at(0));
    // Alone it is judged whole; beside a newer disagreement it stays in the part judged.
    expect(settledPart(sample(['0xa'], []), seen, at(PRECONF_SKEW_MS + 50))).toBeUndefined();
    const r = settledPart(sample(['0xa', '0xb'], []), seen, at(PRECONF_SKEW_MS + 50));
    expect(r && 'sample' in r ? [r.sample.before.txs, r.sample.receipts] : undefined).toEqual([['0xa'], []]);
  });

  it('within the bound of the block seen only in the previous block: not old (a reorg re-includes it in the next)', () => {
    const seen = new Sightings();
    seen.see(sample(['0xa'], ['0xa'], 10n), at(0));
    expect(settledPart(sample(['0xa'], [], 11n), seen, at(PRECONF_SKEW_MS + 50))).toMatchObject({ ambiguous: expect.any(String) });
  });

  it('receipts holding one the block listed within the bound but no longer lists (withdrawn): left out', () => {
    const seen = new Sightings();
    seen.see(sample(['0xa', '0xw'], ['0xa', '0xw']), at(0));
    seen.see(sample(['0xa', '0xw'], ['0xa', '0xw']), at(PRECONF_SKEW_MS));
    const r = settledPart(sample(['0xa'], ['0xa', '0xw']), seen, at(PRECONF_SKEW_MS + 50));
    expect(r && 'sample' in r ? r.sample.receipts.map((x) => x.transactionHash) : r).toEqual(['0xa']);
  });

  it('receipts of another block: ambiguous until the pending block was read past the bound and holds a transaction seen past it, or none', () => {
    const seen = new Sightings();
    seen.see(sample(['0xa'], ['0xa'], 11n), at(0));
    const late = at(PRECONF_SKEW_MS + 50);
    // A seal a moment ago (the fallback to "latest" on one backend, the new block on the other).
    expect(settledPart(sample([], ['0xa'], 12n, [], 11), seen, late)).toMatchObject({
      ambiguous: expect.stringMatching(
        /numbered 0xb, beside the pending block 0xc, one of them first read or pre-confirming transactions less than 600 ms before/,
      ),
    });
    seen.see(sample([], [], 12n), late);
    // Past the bound: an empty block beside receipts of the head is "pending" falling back to "latest", which judgePending weighs.
    expect(settledPart(sample([], ['0xa'], 12n, [], 11), seen, at(2 * PRECONF_SKEW_MS + 100))).toBeUndefined();
    // A transaction pre-confirmed in it a moment ago: still ambiguous; once it is old, judged whole.
    seen.see(sample(['0xb'], [], 12n), at(2 * PRECONF_SKEW_MS + 100));
    expect(settledPart(sample(['0xb'], ['0xa'], 12n, ['0xb'], 11), seen, at(2 * PRECONF_SKEW_MS + 150))).toMatchObject({ ambiguous: expect.any(String) });
    expect(settledPart(sample(['0xb'], ['0xa'], 12n, ['0xb'], 11), seen, at(3 * PRECONF_SKEW_MS + 150))).toBeUndefined();
    // One backend falling back to the block just sealed (12, old) while the other is on the next (13, new): ambiguous.
    expect(settledPart(sample(['0xb'], ['0xc'], 12n, ['0xb'], 13), seen, at(3 * PRECONF_SKEW_MS + 150))).toMatchObject({
      ambiguous: expect.stringMatching(/numbered 0xd, beside the pending block 0xc, one of them first read/),
    });
  });

  it('a seal between the reads of the block: receipts leaving out one of the block read before are evidence only past the bound', () => {
    const across = (receipts: string[]): PendingSample => ({ ...sample(['0xa', '0xb'], receipts), after: { number: 12n, txs: [] } });
    const seen = new Sightings();
    seen.see(sample(['0xa'], ['0xa']), at(0));
    // 0xb first seen now: a backend behind may not have it yet.
    expect(settledPart(across(['0xa']), seen, at(PRECONF_SKEW_MS + 50))).toMatchObject({
      ambiguous: expect.stringMatching(/leave out 1 transaction\(s\) of the pending block 0xb, sealed meanwhile/),
    });
    // 0xa seen past the bound and left out: judged (judgePending fails it).
    expect(settledPart(across(['0xb']), seen, at(PRECONF_SKEW_MS + 50))).toBeUndefined();
  });

  it('a seal between the reads of the block: receipts of the block it began holding one the read after does not list are evidence only past the bound', () => {
    // Block 0xb sealed meanwhile; the receipts (from a backend ahead) name 0xc with two
    // transactions, the read after it (a backend 400 ms behind) lists one.
    const across = (receipts: string[], afterTxs = ['0xc']): PendingSample => ({
      ...sample(['0xa'], receipts, 11n, [], 12),
      after: { number: 12n, txs: afterTxs },
    });
    const seen = new Sightings();
    seen.see(sample(['0xa'], ['0xa']), at(0));
    expect(settledPart(across(['0xc', '0xd']), seen, at(PRECONF_SKEW_MS + 50))).toMatchObject({
      ambiguous: expect.stringMatching(/receipts of the block 0xc begun by a seal meanwhile hold 1 transaction\(s\) it did not list just after/),
    });
    // Receipts the read after covers: judged (judgePending pairs them with it).
    expect(settledPart(across(['0xc']), seen, at(PRECONF_SKEW_MS + 50))).toBeUndefined();
    // 0xd seen in block 0xc's receipts past the bound, never listed by it: judged, a foreign receipt fails.
    seen.see(across(['0xc', '0xd']), at(PRECONF_SKEW_MS + 50));
    expect(settledPart(across(['0xc', '0xd']), seen, at(3 * PRECONF_SKEW_MS))).toBeUndefined();
  });

  it('no receipts beside a pending block with old transactions: evidence, unless the head read after them shows that block sealed', () => {
    const seen = new Sightings();
    seen.see(sample(['0xa', '0xb'], ['0xa', '0xb']), at(0));
    // Both reads of block 0xb from a backend still on it, the receipts from one on the next block (empty yet).
    const sealed = { ...sample(['0xa', '0xb'], []), heads: { headBefore: 10n, headAfter: 11n } };
    expect(settledPart(sealed, seen, at(PRECONF_SKEW_MS + 50))).toMatchObject({
      ambiguous: expect.stringMatching(/^no receipts beside the pending block 0xb with 2 transaction\(s\), sealed by the head read after them \(0xb\)/),
    });
    // No seal around it: judged (judgePending fails the missing receipts).
    expect(settledPart(sample(['0xa', '0xb'], []), seen, at(PRECONF_SKEW_MS + 50))).toBeUndefined();
  });
});
