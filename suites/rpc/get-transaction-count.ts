/**
 * Spec 4.5 (eth_getTransactionCount) with every block parameter of 4.2, and the invariants of
 * 4.5 and 1.4 that the "pending" count is at least the "latest" one and includes the
 * pre-confirmed transactions.
 */
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, skip } from '../../src/harness/verdict';
import { callResult, expectEqual, expectSchema } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { isEvmAddress, isHexQuantity } from '../../src/harness/formats';
import { randomAddress, toQuantity } from '../../src/harness/hex';
import { judgePreconfirmedCounts, preconfirmedNow } from './pending-count';
import { blockParam, describeParam, recentBlocks, resultAt, sealedHead, skewPause, SKEW_PAUSES_MS, type BlockParamKey } from '../../src/harness/chain';

/**
 * A fresh random address has sent no transaction, so its count is 0 at every block: "0x0" is
 * the only right answer, whatever block the tag resolves to.
 */
const COUNT_AT: Array<[id: string, statements: string[], key: BlockParamKey]> = [
  ['rpc.getTransactionCount.block.latest', ['4.5.1', '4.2.2'], 'latest'],
  ['rpc.getTransactionCount.block.pending', ['4.5.1', '4.2.2', '1.4.1'], 'pending'],
  ['rpc.getTransactionCount.block.safe', ['4.5.1', '4.2.2'], 'safe'],
  ['rpc.getTransactionCount.block.finalized', ['4.5.1', '4.2.2'], 'finalized'],
  ['rpc.getTransactionCount.block.earliest', ['4.5.1', '4.2.2'], 'earliest'],
  ['rpc.getTransactionCount.block.head-number', ['4.5.1', '4.2.2'], 'head-number'],
];

function countAtBlock([id, statements, key]: (typeof COUNT_AT)[number]): Check {
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rpc'],
      title: `a fresh address's transaction count at ${describeParam(key)} is "0x0"`,
    },
    async (ctx) => {
      const param = await blockParam(ctx, key);
      const count = await resultAt(ctx, 'eth_getTransactionCount', [randomAddress(), param], key);
      expectSchema('hexQuantity', count, `eth_getTransactionCount at ${param}`, ['4.5.1']);
      expectEqual(count, '0x0', `eth_getTransactionCount of a fresh address at ${param}`, ['4.5.1']);
    },
  );
}

/** How far back to look for accounts that are sending now. */
export const ACTIVE_BLOCKS = 5;
/** At most this many senders are compared (bounded run time). */
const MAX_SENDERS = 5;

/**
 * Fails when a "pending" count is below the sender's count at the block before `head`, a head read
 * before the count: every backend within a block of that head has sealed that block (the skew
 * bound), and its pending count includes all its sealed transactions. A read that gives no count
 * there decides nothing.
 */
async function belowSealed(ctx: CheckContext<'rpc'>, account: string, pendingCount: string, head: bigint | undefined): Promise<void> {
  if (head === undefined || head < 1n) return;
  const sealed = toQuantity(head - 1n);
  const at = await ctx.rpc.call('eth_getTransactionCount', [account, sealed]);
  if (!at.hasResult || !isHexQuantity(at.result) || BigInt(pendingCount) >= BigInt(at.result as string)) return;
  fail(
    `${account}: "pending" count ${show(pendingCount)} is below its count ${show(at.result)} at block ${sealed}, one below the sealed head ${toQuantity(head)} read before it: every backend within a block of that head has sealed block ${sealed}, and the pending count includes all sealed transactions`,
    {
      violated: ['4.5.2', '1.4.1'],
      expected: `>= ${at.result as string}`,
      actual: pendingCount,
    },
  );
}

const pendingNotBelowLatest = check(
  {
    id: 'rpc.getTransactionCount.pending-ge-latest',
    statements: ['4.5.2', '1.4.1', '4.5.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: 'an active sender\'s "pending" count is >= its "latest" count',
  },
  async (ctx) => {
    // Active accounts: senders of the pre-confirmed block (if the node shows it) and of the
    // latest few sealed blocks. eth_getBlockByNumber is only a way to find them; not judged.
    const found = new Set<string>();
    const looked: string[] = [];
    for await (const block of recentBlocks(ctx, { recent: ACTIVE_BLOCKS, pending: true })) {
      looked.push(block.param);
      for (const tx of block.txs) if (isEvmAddress(tx.from)) found.add(tx.from!.toLowerCase());
      if (found.size >= MAX_SENDERS) break;
    }
    if (found.size === 0) skip(`no active sender found in the latest blocks (no transactions in ${looked.join(', ') || 'any block read'})`);
    const accounts = [...found].slice(0, MAX_SENDERS);
    ctx.note(`accounts compared: ${accounts.join(', ')}`);
    // Read once, before every count: an older head only lowers the bound, so one read serves them all.
    const head = await sealedHead(ctx);
    for (const account of accounts) {
      // Order matters: "latest" first, then "pending". A seal between the two reads moves
      // pre-confirmed transactions into "latest" of a *later* moment, so the pending count read
      // second can only be larger or equal: the comparison stays sound across a seal. Behind a
      // load balancer the two reads may reach backends a block apart, so a shortfall that skew
      // explains is re-read (after a pause) and fails only when every attempt shows it. A count
      // below the sender's count at the block before the sealed head read first, which every backend
      // within the skew bound of a block has sealed, is no skew: it fails as read, never taken
      // back by a later read that looked right (a fleet's bad backend is met on some reads only).
      for (let attempt = 1; ; attempt++) {
        const latest = await callResult(ctx.rpc, 'eth_getTransactionCount', [account, 'latest']);
        const pendingCount = await resultAt(ctx, 'eth_getTransactionCount', [account, 'pending'], 'pending');
        expectSchema('hexQuantity', latest, `eth_getTransactionCount(${account}, "latest")`, ['4.5.1']);
        expectSchema('hexQuantity', pendingCount, `eth_getTransactionCount(${account}, "pending")`, ['4.5.1']);
        if (BigInt(pendingCount as string) >= BigInt(latest as string)) break;
        await belowSealed(ctx, account, pendingCount as string, head);
        if (attempt > SKEW_PAUSES_MS.length) {
          fail(
            `${account}: "pending" count ${show(pendingCount)} is below the "latest" count ${show(latest)} read just before, in each of ${attempt} attempts; the pending count includes all pre-confirmed transactions on top of the sealed ones`,
            {
              expected: `>= ${latest as string}`,
              actual: pendingCount,
            },
          );
        }
        ctx.note(`attempt ${attempt}: ${account} "pending" ${show(pendingCount)} below "latest" ${show(latest)}; re-reading (backends a block apart?)`);
        await skewPause(ctx, attempt - 1);
      }
    }
  },
);

/**
 * 4.5: the pending count includes *all* pre-confirmed transactions, other senders' too: at least
 * each one's pre-confirmed nonce + 1 (the watch of pending-count.ts). A check of its own, so that
 * a run (or a sample) that found no pre-confirmed transaction to count says so (skipped) instead
 * of passing on the "latest" comparison alone, and the power --samples states for it counts only
 * the samples that judged one.
 */
const pendingCountsPreconfirmed = check(
  {
    id: 'rpc.getTransactionCount.pending-counts-preconfirmed',
    statements: ['4.5.2', '1.4.1', '4.5.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: '"pending" counts include pre-confirmed transactions, other senders\' too',
  },
  async (ctx) => {
    const preconfirmed = await preconfirmedNow(ctx);
    const { judged, words } = await judgePreconfirmedCounts(ctx, preconfirmed.nonces, preconfirmed.at, MAX_SENDERS);
    if (!judged) skip(words);
    ctx.note(words);
  },
);

export const transactionCountChecks: Check[] = [...COUNT_AT.map(countAtBlock), pendingNotBelowLatest, pendingCountsPreconfirmed];
