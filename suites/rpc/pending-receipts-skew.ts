/**
 * "pending" receipts beside the pending block, on a fleet: the block read before and after the
 * receipts and the receipts themselves may each come from another backend of one address, and
 * backends fed by one sequencer show the pre-confirmed state a few hundred ms apart (a conformant
 * fleet). Two such answers disagree on the transactions pre-confirmed in the last few hundred ms,
 * and on the block's number just after a seal: that is skew, never evidence on first sight.
 *
 * So a transaction on which the two disagree is compared only once it was seen in that block at
 * least PRECONF_SKEW_MS (the suite's one skew bound) before the answer that leaves it out was
 * asked, and, when the receipts hold one the block does not list, the block had not listed it
 * within that bound either (a flashblock reorg withdraws transactions): every backend within the
 * bound shows it by then, so one view that still breaks the rule is evidence. Disagreements on
 * newer transactions are left out of the comparison; the attempt is judged on the rest when the
 * block holds at least one transaction old enough, otherwise read again after a pause longer than
 * the bound. The suite's own delays (a busy runner answering late) only make a transaction older
 * than measured, never younger: they can hide a discrepancy, not invent one.
 */
import type { BlockView } from '../../src/harness/chain';
import { toQuantity } from '../../src/harness/hex';
import type { Receipt } from '../../src/harness/receipts';
import { PRECONF_SKEW_MS } from './pending-count';

/** One sample at "pending": the receipts, the pending block read before and after them, and the heads read around it. */
export interface PendingSample {
  param: string;
  receipts: Receipt[];
  before: BlockView;
  after: BlockView;
  heads: { headBefore: bigint; headAfter: bigint };
}

/** When each read of a sample was sent and answered (performance.now()). */
export interface SampleTimes {
  beforeAnswered: number;
  receiptsAsked: number;
  receiptsAnswered: number;
  afterAsked: number;
  afterAnswered: number;
}

const hashOf = (r: Receipt): string => String(r.transactionHash).toLowerCase();
const numberOf = (r: Receipt | undefined): bigint | undefined => (r && /^0x[0-9a-f]+$/i.test(r.blockNumber) ? BigInt(r.blockNumber) : undefined);
const key = (n: bigint | undefined, h: string) => `${n ?? '?'}:${h}`;

/** What the reads of one check showed, across its attempts: when each transaction was first seen in each block, and last listed by it. */
export class Sightings {
  private readonly first = new Map<string, number>();
  private readonly listed = new Map<string, number>();
  private readonly blocks = new Map<bigint | undefined, number>();

  see({ receipts, before, after }: PendingSample, t: SampleTimes): void {
    const note = (n: bigint | undefined, h: string, at: number, listing: boolean) => {
      if (!this.first.has(key(n, h))) this.first.set(key(n, h), at);
      if (listing) this.listed.set(key(n, h), at);
    };
    for (const [b, at] of [
      [before, t.beforeAnswered],
      [after, t.afterAnswered],
    ] as const) {
      if (!this.blocks.has(b.number)) this.blocks.set(b.number, at);
      for (const h of b.txs) note(b.number, h, at, true);
    }
    for (const r of receipts) note(numberOf(r), hashOf(r), t.receiptsAnswered, false);
    const named = numberOf(receipts[0]);
    if (named !== undefined && !this.blocks.has(named)) this.blocks.set(named, t.receiptsAnswered);
  }

  /** A block numbered `n` was first read (as the pending block, or named by pending receipts) at least the skew bound before `at`. */
  blockOld(n: bigint | undefined, at: number): boolean {
    const first = this.blocks.get(n);
    return first !== undefined && first <= at - PRECONF_SKEW_MS;
  }

  /** Seen in block `n` at least the skew bound before `at`. */
  old(n: bigint | undefined, h: string, at: number): boolean {
    const first = this.first.get(key(n, h));
    return first !== undefined && first <= at - PRECONF_SKEW_MS;
  }

  /** Listed by a pending block numbered `n` within the skew bound before `at`. */
  listedLately(n: bigint | undefined, h: string, at: number): boolean {
    const last = this.listed.get(key(n, h));
    return last !== undefined && last > at - PRECONF_SKEW_MS;
  }
}

/**
 * The sample as far as skew lets it be judged: undefined when the receipts and the block (one
 * number before and after) disagree on nothing newer than the bound, so the sample is judged
 * whole; the sample without the newer disagreements, when the block holds a transaction old
 * enough to judge on; or why it is ambiguous.
 */
export function settledPart(
  sample: PendingSample,
  seen: Sightings,
  t: SampleTimes,
): { sample: PendingSample; leftOut: string } | { ambiguous: string } | undefined {
  const { receipts, before, after } = sample;
  const n = before.number;
  const block = `the pending block${n !== undefined ? ` ${toQuantity(n)}` : ''}`;
  const ambiguous = (what: string) => ({ ambiguous: `${what}: backends a few hundred ms apart may have answered them` });
  const got = new Set(receipts.map(hashOf));
  const named = numberOf(receipts[0]);
  // Receipts holding one that `read` (the block numbered m, read after them) does not list:
  // evidence only once it was seen in block m past the bound, and the block had not listed it
  // within the bound either (a reorg withdraws); before that a backend ahead may have answered them.
  const extraNew = (m: bigint | undefined, read: BlockView) =>
    [...got].filter((h) => !read.txs.includes(h) && (!seen.old(m, h, t.afterAsked) || seen.listedLately(m, h, t.afterAsked)));
  if (before.number !== after.number) {
    // A seal between the two reads of the block: the receipts are judged against the block they
    // name (judgePending). Of the block read before, sealed meanwhile, they may come from a
    // backend still on it a few hundred ms behind: a transaction of it they leave out is evidence
    // only once it was seen past the bound. Of the block begun by the seal, from a backend ahead
    // of the one that answered the read after: a receipt that read does not list is evidence
    // only once it was seen in that block past the bound.
    if (named !== undefined && named === after.number) {
      const ahead = extraNew(named, after);
      if (ahead.length === 0) return undefined;
      return ambiguous(
        `the receipts of the block ${toQuantity(named)} begun by a seal meanwhile hold ${ahead.length} transaction(s) it did not list just after, seen less than ${PRECONF_SKEW_MS} ms before`,
      );
    }
    if (named !== undefined && named !== n) return undefined;
    const fresh = before.txs.filter((h) => !got.has(h) && !seen.old(n, h, t.receiptsAsked));
    if (fresh.length === 0) return undefined;
    return ambiguous(`the receipts leave out ${fresh.length} transaction(s) of ${block}, sealed meanwhile, seen less than ${PRECONF_SKEW_MS} ms before`);
  }
  // No receipts, which name no block, while the head read after them shows the pending block
  // sealed: both reads of the block may come from a backend still on it, the receipts from one
  // already on the next block (empty until its first transaction).
  if (receipts.length === 0 && before.txs.length > 0 && n !== undefined && sample.heads.headAfter >= n)
    return ambiguous(
      `no receipts beside ${block} with ${before.txs.length} transaction(s), sealed by the head read after them (${toQuantity(sample.heads.headAfter)})`,
    );
  const oldInBlock = before.txs.filter((h) => seen.old(n, h, t.receiptsAsked));
  // Receipts of another block: judged (the number and fallback rules) only once both blocks were
  // read at least the bound before, and on the state this one holds: a seal a moment ago (one
  // backend falling back to the block just sealed, the other already on the next), or
  // transactions pre-confirmed a moment ago, may still be seen by one backend only.
  if (named !== undefined && n !== undefined && named !== n) {
    const settled = seen.blockOld(n, t.receiptsAsked) && seen.blockOld(named, t.receiptsAsked);
    if (settled && (before.txs.length === 0 || oldInBlock.length > 0)) return undefined;
    return ambiguous(
      `the receipts are numbered ${toQuantity(named)}, beside ${block}, one of them first read or pre-confirming transactions less than ${PRECONF_SKEW_MS} ms before`,
    );
  }
  const missingNew = before.txs.filter((h) => !got.has(h) && !seen.old(n, h, t.receiptsAsked));
  const extra = extraNew(n, after);
  if (missingNew.length === 0 && extra.length === 0) return undefined;
  const apart = `${missingNew.length + extra.length} transaction(s) seen in ${block} or its receipts less than ${PRECONF_SKEW_MS} ms before`;
  if (oldInBlock.length === 0) return ambiguous(`the receipts and ${block} read around them disagree on ${apart}, and the block holds none seen earlier`);
  const drop = new Set([...missingNew, ...extra]);
  return {
    sample: {
      ...sample,
      receipts: receipts.filter((r) => !drop.has(hashOf(r))),
      before: { ...before, txs: before.txs.filter((h) => !drop.has(h)) },
      after: { ...after, txs: after.txs.filter((h) => !drop.has(h)) },
    },
    leftOut: `${apart} were left out of the comparison (backends a few hundred ms apart may differ on them); judged on ${oldInBlock.length} seen earlier`,
  };
}
