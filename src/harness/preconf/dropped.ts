// Pending receipts that leave out a pre-confirmed transaction (spec 4.3: with "pending", the
// receipts of ALL pre-confirmed transactions in the current pre-confirmed block). The pass sends
// its transactions in two batches, the second once the first shows at "pending" (send.ts), so they
// land in two flashblocks of one block; a node that answers from the newest flashblock only shows
// the second batch without the first.
//
// One answer is enough to see it, whichever backend of a fleet gave it: the suite's transactions
// are one sender's, and a block holds a sender's transactions in nonce order with none left out.
// A pre-confirmed block holding nonce m therefore holds every lower nonce not sealed in an earlier
// block. A view holding nonce m without nonce k < m, where k was sealed in the same block as m or
// later, left k out of the block it pre-confirms: k cannot be in an earlier block, and a view of a
// block holds m only up to m's seal (so it is of that block or an earlier one). Backends trailing
// one another never answer that (an older view holds a prefix of the nonces, never a gap), nor
// does a flashblock reorg (withdrawing nonce k withdraws every later nonce of the sender too).
// Comparing two rounds would need a read of the first batch alone, from before the second showed:
// behind a balancer of three, the few rounds in that window do not always have one.
import { toQuantity } from '../hex';
import { Violation } from './errors';
import type { ReceiptsView, SentTx } from './evidence';
import type { Round } from './timing';

const hashOf = (r: Record<string, unknown>): string => (typeof r.transactionHash === 'string' ? r.transactionHash.toLowerCase() : '');

/**
 * The reads (`looks`, each read `values`) whose pending receipts hold one of `sent` but leave out
 * a lower nonce of it that was sealed in the same block or later (`sealedIn`); as the violation
 * it is, stating k of N: the reads showing it, of those that held any of `sent`.
 */
export function droppedReceipts(
  rounds: readonly Round[],
  looks: readonly number[],
  values: ReadonlyMap<number, unknown>,
  sent: readonly SentTx[],
  sealedIn: ReadonlyMap<string, bigint>,
  t0: number,
): Violation | undefined {
  const blockOf = (t: SentTx) => sealedIn.get(t.hash.toLowerCase());
  const byNonce = [...sent].sort((x, y) => (x.nonce < y.nonce ? -1 : 1));
  const gaps: Array<{ round: number; held: SentTx[]; left: SentTx[] }> = [];
  let holding = 0;
  for (const i of looks) {
    const hashes = new Set(((values.get(i) as ReceiptsView | undefined)?.pending ?? []).map(hashOf));
    const held = byNonce.filter((t) => hashes.has(t.hash.toLowerCase()));
    if (held.length === 0) continue;
    holding++;
    const top = held[held.length - 1];
    const topBlock = blockOf(top);
    if (topBlock === undefined) continue;
    const left = byNonce.filter((t) => t.nonce < top.nonce && !hashes.has(t.hash.toLowerCase()) && (blockOf(t) ?? -1n) >= topBlock);
    if (left.length > 0) gaps.push({ round: i, held, left });
  }
  if (gaps.length === 0) return undefined;
  const [{ round, held, left }] = gaps;
  const at = (k: number) => Math.round(rounds[k].startedAt - t0);
  const list = (ts: readonly SentTx[]) => ts.map((t) => `nonce ${t.nonce} (${t.hash})`).join(', ');
  const top = held[held.length - 1];
  return new Violation(
    `eth_getBlockReceipts("pending") at +${at(round)} ms held ${list(held)} but not ${list(left)}, lower nonces of the same sender sealed in block ${toQuantity(blockOf(top)!)} (nonce ${top.nonce}'s) or later ` +
      `(${gaps.length} of ${holding} reads holding any of this attempt's transactions left one out): a block holds a sender's transactions in nonce order, so the pre-confirmed block held those too, ` +
      'and the pending receipts must be those of all pre-confirmed transactions in the current pre-confirmed block (4.3), not of its newest flashblock only',
    {
      violated: ['4.3.2'],
      expected: `receipts of ${list(byNonce.filter((t) => t.nonce <= top.nonce))}`,
      actual: { atMs: at(round), transactionHashes: held.map((t) => t.hash) },
    },
  );
}
