// Spec 4.3 (and 1.4): eth_getBlockReceipts("pending") returns the receipts of all pre-confirmed
// transactions in the current pre-confirmed block. Dedicated nodes only (public ones answer 403).
import { check } from '../../src/harness/check';
import { fail, inconclusive } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { quantity, toQuantity } from '../../src/harness/hex';
import { withSession, type Sent } from '../../src/harness/preconf/session';
import { judgeReceipts, type Receipt as BlockReceipt } from '../../src/harness/receipts';

/** Self-transfers sent back to back. */
export const RECEIPT_TXS = 2;

type Receipt = Record<string, unknown>;

const hashOf = (r: Receipt): string => (typeof r.transactionHash === 'string' ? r.transactionHash.toLowerCase() : '');
const ours = (receipts: Receipt[], sent: Sent[]): Map<string, Receipt[]> => {
  const by = new Map<string, Receipt[]>(sent.map((t) => [t.hash.toLowerCase(), []]));
  for (const r of receipts) by.get(hashOf(r))?.push(r);
  return by;
};

/** Each of our transactions exactly once, in block `number` (judgeReceipts), and succeeded. */
function judgeOurs(receipts: Receipt[], sent: Sent[], number: bigint, where: string): void {
  const mine = [...ours(receipts, sent).values()].flat();
  judgeReceipts(where, mine as unknown as BlockReceipt[], number, sent.map((t) => t.hash.toLowerCase()));
  for (const r of mine) {
    if (r.status !== '0x1') fail(`${where}: the receipt of ${hashOf(r)} has status ${show(r.status)}; the 0-value self-transfer succeeded, expected "0x1"`, { expected: '0x1', actual: r.status });
  }
}

export const receiptsPendingBlock = check(
  {
    id: 'preconf.receipts.pending-block',
    section: '4.3, 1.4',
    level: 'required',
    needs: ['rpc', 'signer', 'profile:dedicated'],
    title: `eth_getBlockReceipts "pending" holds the receipts of ${RECEIPT_TXS} pre-confirmed transactions (status 0x1, the pending block number) before the seal, and the sealing block's receipts hold them after`,
  },
  (ctx) =>
    withSession(ctx, async (s) => {
      const gas = await s.gasFor({ to: s.address });
      await s.ensureFunds(Array.from({ length: RECEIPT_TXS }, () => gas));

      const seen = await s.observeBeforeSeal('pending block receipts', {
        prepare: (base) => Promise.all(Array.from({ length: RECEIPT_TXS }, (_, i) => s.sign({ to: s.address, nonce: base + BigInt(i), gas }))),
        observe: () => s.receipts('pending'),
        visible: (receipts, sent) => [...ours(receipts, sent).values()].every((found) => found.length > 0),
        notVisible: (receipts, ms, sent) => {
          const missing = [...ours(receipts, sent)].filter(([, f]) => f.length === 0).map(([h]) => h);
          return (
            `eth_getBlockReceipts("pending") (${receipts.length} receipts) still lacked ${missing.join(', ')} ${ms} ms after they were accepted, while no block was sealed; ` +
            'it must hold the receipts of all pre-confirmed transactions'
          );
        },
        shown: (receipts) => ({ receipts: receipts.length, transactionHashes: receipts.slice(0, 20).map(hashOf) }),
        final: async () => {
          const [pending, latest] = await Promise.all([s.receipts('pending'), s.receipts('latest')]);
          return { pending, latest };
        },
      });

      const { final, sent, startBlock } = seen;
      const pendingNumber = startBlock + 1n;
      ctx.note(`before the seal (latest block ${startBlock}): ${final.pending.length} pending receipts; visible ${seen.visibleAfterMs} ms after the first send`);
      ctx.metric('visibleAfterMs', seen.visibleAfterMs);
      judgeOurs(final.pending, sent, pendingNumber, 'eth_getBlockReceipts("pending") before the seal');
      const early = [...ours(final.latest, sent)].filter(([, f]) => f.length > 0).map(([h]) => h);
      if (early.length > 0) {
        fail(`eth_getBlockReceipts("latest") already holds ${early.join(', ')} while latest is still block ${startBlock}, sealed before they were sent`, { expected: 'no receipts of unsealed transactions', actual: early });
      }

      // After the seal: the block that holds each transaction has its receipt.
      for (const tx of sent) {
        const receipt = await s.sealed(tx.hash);
        const number = quantity(receipt.blockNumber);
        if (number === undefined) inconclusive(`eth_getTransactionReceipt(${tx.hash}).blockNumber is ${show(receipt.blockNumber)}, not a hex quantity: the sealing block is unknown`);
        const block = await s.receipts(toQuantity(number));
        judgeOurs(block, [tx], number, `eth_getBlockReceipts(${toQuantity(number)}) of the block that sealed ${tx.hash}`);
      }
    }),
);
