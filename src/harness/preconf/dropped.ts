// Pending receipts that lose a pre-confirmed transaction (spec 4.3: with "pending", the receipts
// of ALL pre-confirmed transactions in the current pre-confirmed block). The pass sends its
// transactions in two batches, the second once the first shows at "pending" (send.ts), so they
// land in two flashblocks of one block. A node that answers from the newest flashblock only shows
// the first batch, then the second without it. Backends trailing one another never do that: a
// view behind another is an older view, which holds fewer of the suite's transactions, never a
// newer one without an older one. So a round whose receipts hold a transaction an earlier round's
// did not, yet lack one that earlier round held, with no block sealed in between, is evidence.
import { toQuantity } from '../hex';
import { Violation } from './errors';
import type { ReceiptsView, SentTx } from './evidence';
import type { Round } from './timing';

const hashOf = (r: Record<string, unknown>): string => (typeof r.transactionHash === 'string' ? r.transactionHash.toLowerCase() : '');

/**
 * The first pair of pre-seal rounds (`looks`, each read `values`) in which the later one is newer
 * (holds one of `sent` the earlier did not) but lost one the earlier held, with the same head
 * around both and the lost transaction not sealed up to it; as the violation it is.
 */
export function droppedReceipts(
  rounds: readonly Round[],
  looks: readonly number[],
  values: ReadonlyMap<number, unknown>,
  sent: readonly SentTx[],
  sealedIn: ReadonlyMap<string, bigint>,
  t0: number,
): Violation | undefined {
  const ours = (i: number): Set<string> => {
    const v = values.get(i) as ReceiptsView | undefined;
    const hashes = new Set((v?.pending ?? []).map(hashOf));
    return new Set(sent.map((t) => t.hash.toLowerCase()).filter((h) => hashes.has(h)));
  };
  // Only rounds bracketed by reads of one head: nothing was sealed while they were read.
  const bracketed = looks.filter((i) => i >= 1 && i + 1 < rounds.length);
  const nonceOf = (h: string) => sent.find((t) => t.hash.toLowerCase() === h)!.nonce;
  for (let x = 0; x < bracketed.length; x++) {
    const j = bracketed[x];
    const before = ours(j);
    if (before.size === 0) continue;
    for (let y = x + 1; y < bracketed.length; y++) {
      const i = bracketed[y];
      const head = rounds[j - 1].head;
      if (rounds[i + 1].head !== head) break; // a seal in between: a new pre-confirmed block
      const now = ours(i);
      // Lost from the receipts while the pending block still lists it: a flashblock reorg withdraws
      // it from the block too, so one the block no longer lists is no evidence.
      const listed = rounds[i].listed;
      const lost = [...before].filter(
        (h) => !now.has(h) && (sealedIn.get(h) === undefined || sealedIn.get(h)! > head) && (listed === undefined || listed.has(h)),
      );
      const gained = [...now].filter((h) => !before.has(h));
      if (lost.length === 0 || gained.length === 0) continue;
      const at = (k: number) => Math.round(rounds[k].startedAt - t0);
      const list = (hs: string[]) => hs.map((h) => `nonce ${nonceOf(h)} (${h})`).join(', ');
      return new Violation(
        `eth_getBlockReceipts("pending") at +${at(i)} ms held ${list(gained)} but no longer ${list(lost)}, which it held at +${at(j)} ms, with no block sealed in between (head ${toQuantity(head)}): ` +
          'the pending receipts must be those of all pre-confirmed transactions in the current pre-confirmed block (4.3), not of its newest flashblock only',
        {
          violated: ['4.3.2'],
          expected: `receipts of ${list([...before, ...gained])}`,
          actual: { atMs: at(i), transactionHashes: [...now] },
        },
      );
    }
  }
  return undefined;
}
