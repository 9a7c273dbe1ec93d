// Spec 4.3 (and 1.4): eth_getBlockReceipts("pending") returns the receipts of all pre-confirmed
// transactions in the current pre-confirmed block. Dedicated nodes only (public ones answer 403).
// Judged from the one pre-confirmation pass (src/harness/preconf/pass.ts). The number the
// receipts give the pre-confirmed block is judged against the window the observations allow
// (src/harness/pending-block.ts), as every check that needs it does.
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { quantity, toQuantity } from '../../src/harness/hex';
import { preconfPass } from '../../src/harness/preconf/pass';
import type { Receipt, SentTx } from '../../src/harness/preconf/evidence';
import { failShownBeforeSeal, judgedOf, judgeLater } from './judge';
import { TRANSFER_GAS } from '../../src/harness/evm';
import { judgeReceipts, type Receipt as BlockReceipt } from '../../src/harness/receipts';
import { judgePendingBlockNumber, pendingBlockWindow } from '../../src/harness/pending-block';

const hashOf = (r: Receipt): string => (typeof r.transactionHash === 'string' ? r.transactionHash.toLowerCase() : '');
const ours = (receipts: Receipt[], sent: SentTx[]): Receipt[] => receipts.filter((r) => sent.some((t) => t.hash.toLowerCase() === hashOf(r)));

/** The block number the receipts name (all the same, judgeReceipts checks), or a 2.4 failure. */
function numberOf(where: string, receipts: Receipt[]): bigint | undefined {
  for (const r of receipts) {
    if (quantity(r.blockNumber) === undefined)
      fail(`${where}: the receipt of ${hashOf(r)} has blockNumber ${show(r.blockNumber)}, not a hex quantity`, {
        violated: ['2.4.1'],
        expected: 'hex quantity',
        actual: r.blockNumber,
      });
  }
  return receipts.length === 0 ? undefined : quantity(receipts[0].blockNumber);
}

/** Each of our transactions exactly once, in block `number` (judgeReceipts), and succeeded. */
function judgeOurs(where: string, receipts: Receipt[], sent: SentTx[], number: bigint | undefined): void {
  const mine = ours(receipts, sent);
  judgeReceipts(
    where,
    mine as unknown as BlockReceipt[],
    number,
    sent.map((t) => t.hash.toLowerCase()),
  );
  for (const r of mine) {
    if (r.status !== '0x1')
      fail(
        `${where}: the receipt of ${hashOf(r)} has status ${show(r.status)}; the transaction succeeded (a 0-value self-transfer or a tiny deployment), expected "0x1"`,
        { expected: '0x1', actual: r.status },
      );
    // A 0-value self-transfer without data costs exactly the intrinsic 21000 gas on every fork,
    // and a receipt's gasUsed is its own transaction's (2.4): anything else is another figure,
    // such as cumulativeGasUsed, in its place.
    const tx = sent.find((t) => t.hash.toLowerCase() === hashOf(r));
    if (tx?.role === 'transfer' && quantity(r.gasUsed) !== TRANSFER_GAS)
      fail(
        `${where}: the receipt of ${hashOf(r)}, a 0-value self-transfer, has gasUsed ${show(r.gasUsed)}; such a transfer uses exactly 21000 (0x5208) gas, and a receipt's gasUsed is its own transaction's`,
        { violated: ['2.4.1'], expected: '0x5208', actual: r.gasUsed },
      );
  }
}

export const receiptsPendingBlock = check(
  {
    id: 'preconf.receipts.pending-block',
    statements: ['4.3.2', '1.4.1', '2.4.1', '4.3.1'],
    level: 'required',
    needs: ['rpc', 'signer', 'profile:dedicated'],
    title: '"pending" receipts hold the pre-confirmed transactions before the seal',
  },
  async (ctx) => {
    const pass = await preconfPass(ctx, ['receipts']);
    const { before, latestRead, after, sent, headBefore, headAfter, sealedIn, visibleAfterMs, later } = judgedOf(
      ctx,
      pass,
      'receipts',
      'eth_getBlockReceipts("pending")',
    );
    ctx.metric('visibleAfterMs', visibleAfterMs);
    const where = 'eth_getBlockReceipts("pending") before the seal';
    const window = pendingBlockWindow({ headBefore, headAfter, pendingBlockNumbers: [before.pendingBlock] });
    const number = numberOf(where, ours(before.pending, sent));
    if (number !== undefined) judgePendingBlockNumber(where, number, window);
    judgeOurs(where, before.pending, sent, number);
    ctx.note(
      `before the seal (${window.basis}): ${before.pending.length} pending receipts numbered ${number === undefined ? '?' : toQuantity(number)}; visible ${visibleAfterMs} ms after the first send`,
    );
    const early = ours(latestRead.view.latest, sent).map(hashOf);
    if (early.length > 0) {
      failShownBeforeSeal(latestRead.aheadOfSeal, `eth_getBlockReceipts("latest") already holds ${early.join(', ')} while none of them was sealed`, {
        expected: 'no receipts of unsealed transactions',
        actual: early,
      });
    }
    // After the seal: the block that holds each transaction has its receipt.
    for (const { number: n, receipts } of after.blocks) {
      const txs = sent.filter((t) => sealedIn.get(t.hash.toLowerCase()) === n);
      judgeOurs(`eth_getBlockReceipts(${toQuantity(n)}) of the block that sealed ${txs.length} of them`, receipts, txs, n);
    }
    // Every later read up to the seal is a sample: a backend of a fleet answering "pending" from
    // "latest" shows receipts without the pre-confirmed transactions past the skew bound.
    judgeLater(ctx, later, 'eth_getBlockReceipts("pending")');
  },
);
