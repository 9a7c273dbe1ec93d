/**
 * Spec 4.3 (eth_getBlockReceipts) with every block parameter of 4.2, the receipt shape of 2.4,
 * and the profile rule of 4.3 / 5.2 (HTTP 403 on public node addresses).
 *
 * The receipts are compared with the block itself, read with eth_getBlockByNumber(param,
 * false) just before and just after: "one per transaction in the block" (4.3) is judged as
 * set equality of transaction hashes (no order assumed), and every receipt's blockNumber must
 * be the block's number. A tag can move between the reads (a block sealed in between): the
 * receipts are then paired with a block only when that is certain (judgeSealed, judgePending);
 * otherwise the attempt is repeated, at most ATTEMPTS times, before the check reports
 * inconclusive. The same holds for a load balancer whose backends are a block apart (a tag
 * answered from an older block), and at "pending" for backends a few hundred ms apart, which
 * disagree on the newest pre-confirmed transactions (pending-receipts-skew.ts, PENDING_ATTEMPTS):
 * never a guess either way.
 */
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { getReceipts, judgeBlockGas, judgeReceipts, sameSet, type Receipt } from '../../src/harness/receipts';
import { inPendingBlockWindow, judgePendingBlockNumber, pendingBlockWindow } from '../../src/harness/pending-block';
import { blocked, fail, inconclusive, skip } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { toQuantity } from '../../src/harness/hex';
import {
  blockParam,
  describeParam,
  headNumber,
  pause,
  readBlock,
  recentBlocks,
  skewPause,
  SKEW_WINDOW,
  type BlockParamKey,
  type BlockView,
} from '../../src/harness/chain';
import { SPEC_REFRESH_MS } from '../../src/harness/preconf/timing';
import { judgeSealed } from './receipts-sealed';
import { PRECONF_SKEW_MS } from './pending-count';
import { settledPart, Sightings, type PendingSample } from './pending-receipts-skew';

/** Bounded retries when a seal makes the block-vs-receipts pairing ambiguous. */
export const ATTEMPTS = 3;
/**
 * At "pending", also when backends a few hundred ms apart make it ambiguous (pending-receipts-skew.ts):
 * each such re-read follows a pause past the skew bound, so two of them rarely straddle a seal too.
 */
export const PENDING_ATTEMPTS = 5;
const SKEW_REREAD_MS = PRECONF_SKEW_MS + SPEC_REFRESH_MS;

/**
 * "pending" when the node does not show the pre-confirmed block with eth_getBlockByNumber:
 * only the receipts' own consistency can be judged. The pre-confirmed block is the block being
 * built on the head, number head+1; with head L1 read before and L2 after the call, a seal in
 * between can make it anything up to L2+1. The spec does not state the pending block's number,
 * so the check also accepts L1 (a node that shows the pre-confirmed transactions in the block
 * numbered as the head); it fails only for a number below the head read before or beyond the
 * block after the head read after, which cannot be "the current pre-confirmed block".
 */
function judgePendingRange(receipts: Receipt[], l1: bigint, l2: bigint, ctx: CheckContext<'rpc'>): boolean {
  if (receipts.length === 0) {
    ctx.note('no pre-confirmed receipts; eth_getBlockByNumber("pending") not offered, so only the shape was judged');
    return true;
  }
  const n = BigInt(receipts[0].blockNumber);
  const window = pendingBlockWindow({ headBefore: l1, headAfter: l2 });
  // Head reads from a backend a block or two behind (or ahead) of the one that answered the
  // receipts: re-read before any verdict (see chain.ts).
  if (!inPendingBlockWindow(n, window) && n + SKEW_WINDOW >= window.low && n <= window.high + SKEW_WINDOW) {
    ctx.note(
      `eth_getBlockReceipts("pending"): receipts carry blockNumber ${receipts[0].blockNumber}, the head read ${toQuantity(l1)} before and ${toQuantity(l2)} after: backends a block apart?`,
    );
    return false;
  }
  judgePendingBlockNumber('eth_getBlockReceipts("pending"): the receipts\' blockNumber', n, window);
  ctx.note(
    `eth_getBlockByNumber("pending") not offered: judged shape and blockNumber ${receipts[0].blockNumber} within ${toQuantity(window.low)}..${toQuantity(window.high)} (${window.basis})`,
  );
  return true;
}

/**
 * The pre-confirmed block, shown by eth_getBlockByNumber("pending") (maybe without a hash, or
 * with one recomputed at each read, so only number and transactions are compared). While its
 * number stays and its transactions only grow between the two reads, the receipts are bracketed
 * (see judgeReceipts). Across one seal (number N -> N+1) the receipts name their block: for
 * N+1 (begun after the call's start) at most its transactions read after; for N (sealed
 * meanwhile, read by number) at least those pre-confirmed before and at most those it sealed.
 * Anything else (a shrinking set, several seals, empty receipts across a seal) is ambiguous.
 */
async function judgePending(ctx: CheckContext<'rpc'>, sample: PendingSample): Promise<string | undefined> {
  const { param, receipts, before, after, heads } = sample;
  const n = (b: BlockView) => (b.number !== undefined ? toQuantity(b.number) : '"pending"');
  const fallback = await judgeFallbackToHead(ctx, sample);
  if (fallback === AMBIGUOUS) return undefined;
  if (fallback) return fallback;
  if (before.number === after.number) {
    if (!before.txs.every((h) => after.txs.includes(h))) return undefined;
    // The number as every check judges it (pending-block.ts), the node's own number for the block first.
    if (receipts.length > 0) {
      const window = pendingBlockWindow({ ...heads, pendingBlockNumbers: [before.number, after.number] });
      judgePendingBlockNumber(`eth_getBlockReceipts(${show(param)}): the receipts' blockNumber`, BigInt(receipts[0].blockNumber), window);
    }
    judgeReceipts(`eth_getBlockReceipts(${show(param)})`, receipts, undefined, before.txs, after.txs);
    return sameSet(before.txs, after.txs)
      ? `block ${n(before)}: ${receipts.length} receipt(s) for ${before.txs.length} transaction(s)`
      : `block ${n(before)}: ${receipts.length} receipt(s), ${before.txs.length} transaction(s) pre-confirmed before and ${after.txs.length} after the call`;
  }
  if (before.number === undefined || after.number !== before.number + 1n || receipts.length === 0) return undefined;
  const named = BigInt(receipts[0].blockNumber);
  if (named === after.number) {
    judgeReceipts(`eth_getBlockReceipts(${show(param)})`, receipts, after.number, [], after.txs);
    return `block ${n(after)} (begun by a seal during the call): ${receipts.length} receipt(s), ${after.txs.length} transaction(s) pre-confirmed just after`;
  }
  if (named !== before.number) return undefined;
  const sealed = await readBlock(ctx, toQuantity(named));
  if (!sealed || !before.txs.every((h) => sealed.txs.includes(h))) return undefined;
  judgeReceipts(`eth_getBlockReceipts(${show(param)})`, receipts, named, before.txs, sealed.txs);
  return `block ${n(before)} (sealed during the call): ${receipts.length} receipt(s), ${before.txs.length} transaction(s) pre-confirmed before, ${sealed.txs.length} sealed`;
}

/** A pairing that cannot be made with certainty: the attempt is repeated, never judged. */
const AMBIGUOUS = Symbol('ambiguous');

/**
 * Right after a seal, until the next block's first flashblock, a Flashblocks node answers
 * "pending" from its new head, and its eth_getBlockByNumber("pending") may already show the
 * (still empty) block being built under head + 1. Receipts numbered as a head read around this
 * sample (from the head read before it, or a few blocks below: a backend behind, up to the head
 * read after it: a seal during the sample), below the number the node gave its pending block,
 * while the pending block read before the call had no transaction, pass when they are exactly
 * that sealed block's receipts (one per transaction, gas adding up). Anything else there is
 * ambiguous, never a failure: they may also be the pre-confirmed part of a block sealed during
 * the call, or a backend that has not sealed it yet. Once the pending block shows pre-confirmed
 * transactions, receipts of the head leave them out: the number rule applies.
 */
async function judgeFallbackToHead(
  ctx: CheckContext<'rpc'>,
  { param, receipts, before, after, heads }: PendingSample,
): Promise<string | typeof AMBIGUOUS | undefined> {
  if (receipts.length === 0 || before.txs.length > 0) return undefined;
  const named = BigInt(receipts[0].blockNumber);
  const lowHead = heads.headBefore < heads.headAfter ? heads.headBefore : heads.headAfter;
  const highHead = heads.headBefore > heads.headAfter ? heads.headBefore : heads.headAfter;
  const numbered = [before.number, after.number].filter((x): x is bigint => x !== undefined);
  if (named > highHead || named + SKEW_WINDOW < lowHead || !numbered.some((x) => x > named)) return undefined;
  const sealed = await readBlock(ctx, toQuantity(named));
  const hashes = receipts.map((r) => String(r.transactionHash).toLowerCase());
  if (!sealed || !sameSet(hashes, sealed.txs) || receipts.some((r) => r.blockNumber !== receipts[0].blockNumber)) return AMBIGUOUS;
  const what = `eth_getBlockReceipts(${show(param)}) answered from the sealed block ${toQuantity(named)} ("latest" in place of a pending block with no transaction yet)`;
  judgeReceipts(what, receipts, named, sealed.txs);
  judgeBlockGas(what, receipts, sealed.gasUsed);
  return `block ${toQuantity(named)}, the head read ${toQuantity(heads.headBefore)} before and ${toQuantity(heads.headAfter)} after: "pending" answered as "latest" while the pending block (${numbered.map(toQuantity).join(', ')}) had no transaction yet; ${receipts.length} receipt(s) for ${sealed.txs.length} transaction(s)`;
}

const RECEIPTS_AT: Array<[id: string, statements: string[], key: BlockParamKey]> = [
  // The root of a public node judged as dedicated (receipts refused with 403: RECEIPTS_ROOT) states 4.3.3 and 5.2.1 too.
  ['rpc.getBlockReceipts.block.latest', ['4.3.1', '4.2.2', '2.4.1', '4.3.3', '5.2.1'], 'latest'],
  ['rpc.getBlockReceipts.block.pending', ['4.3.2', '4.3.1', '4.2.2', '2.4.1', '1.4.1'], 'pending'],
  ['rpc.getBlockReceipts.block.safe', ['4.3.1', '4.2.2', '2.4.1'], 'safe'],
  ['rpc.getBlockReceipts.block.finalized', ['4.3.1', '4.2.2', '2.4.1'], 'finalized'],
  ['rpc.getBlockReceipts.block.earliest', ['4.3.1', '4.2.2', '2.4.1'], 'earliest'],
  ['rpc.getBlockReceipts.block.head-number', ['4.3.1', '4.2.2', '2.4.1'], 'head-number'],
];

function receiptsAtBlock([id, statements, key]: (typeof RECEIPTS_AT)[number]): Check {
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rpc', 'profile:dedicated'],
      title: `eth_getBlockReceipts at ${describeParam(key)}: a receipt per transaction`,
    },
    async (ctx) => {
      const param = await blockParam(ctx, key);
      const pending = key === 'pending';
      let beyondEveryTime = true;
      const seen = new Sightings();
      const attempts = pending ? PENDING_ATTEMPTS : ATTEMPTS;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        const l1 = pending ? await headNumber(ctx) : 0n;
        const before = await readBlock(ctx, param);
        const beforeAnswered = performance.now();
        const receipts = await getReceipts(ctx, param, key);
        const receiptsAnswered = performance.now();
        const after = await readBlock(ctx, param);
        const afterAnswered = performance.now();
        const l2 = pending ? await headNumber(ctx) : 0n;
        if (!before || !after) {
          if (pending) {
            if (judgePendingRange(receipts, l1, l2, ctx)) return;
            beyondEveryTime = false;
            continue;
          }
          inconclusive(
            `eth_getBlockByNumber(${show(param)}, false) gives no block to compare with (it is not a method of the spec): the receipts' shape passed, their completeness could not be judged`,
          );
        }
        if (pending) {
          const sample: PendingSample = { param, receipts, before, after, heads: { headBefore: l1, headAfter: l2 } };
          // Each read was asked when the one before it was answered.
          const times = { beforeAnswered, receiptsAsked: beforeAnswered, receiptsAnswered, afterAsked: receiptsAnswered, afterAnswered };
          const settled = settledPart(sample, seen, times);
          seen.see(sample, times);
          if (settled && 'ambiguous' in settled) {
            beyondEveryTime = false;
            ctx.note(`attempt ${attempt}: ${settled.ambiguous}; re-reading after ${SKEW_REREAD_MS} ms`);
            await pause(SKEW_REREAD_MS, ctx.signal);
            continue;
          }
          if (settled) ctx.note(`attempt ${attempt}: ${settled.leftOut}`);
          const done = await judgePending(ctx, settled?.sample ?? sample);
          if (done) return void ctx.note(`${done}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
          beyondEveryTime = false;
          ctx.note(
            `attempt ${attempt}: block ${show(param)} changed between reads (${before.number ?? '?'} -> ${after.number ?? '?'}, ${before.txs.length} -> ${after.txs.length} transactions); retrying`,
          );
          continue;
        }
        const outcome = await judgeSealed(ctx, param, receipts, before, after);
        if ('judged' in outcome) return void ctx.note(`${outcome.judged}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
        if ('beyondHead' in outcome) {
          if (attempt === ATTEMPTS && beyondEveryTime) outcome.beyondHead();
          ctx.note(`attempt ${attempt}: the receipts name a block beyond the head read; retrying`);
          continue;
        }
        beyondEveryTime = false;
        ctx.note(`attempt ${attempt}: ${outcome.ambiguous}; retrying`);
        // A backend behind catches up within a block time or so.
        if (attempt < ATTEMPTS) await skewPause(ctx, attempt - 1);
      }
      inconclusive(
        `block ${show(param)}: the receipts could not be paired with a block in any of ${attempts} attempts (blocks sealed or pre-confirmed meanwhile, or backends a block or a few hundred ms apart; see notes)`,
      );
    },
  );
}

/** Where to look for a block with transactions: the latest blocks, then the first ones. */
const RECENT_BLOCKS = 16;
const FIRST_BLOCKS = 8;

/**
 * The tag checks may meet only empty blocks on a quiet chain, where "one receipt per
 * transaction" and the receipt shape (2.4) are judged on nothing. This one looks for the newest
 * block that has transactions and asks its receipts by number.
 */
const receiptsOfBusyBlock = check(
  {
    id: 'rpc.getBlockReceipts.nonempty-block',
    // 4.2.2: the block is asked by number; under --archive, receipts pruned there fail it (chain.ts prunedHistory).
    statements: ['4.3.1', '2.4.1', '4.2.2'],
    level: 'required',
    needs: ['rpc', 'profile:dedicated'],
    title: 'eth_getBlockReceipts of a busy block: one receipt (2.4 shape) per transaction',
  },
  async (ctx) => {
    let target: string | undefined;
    for await (const block of recentBlocks(ctx, { recent: RECENT_BLOCKS, first: FIRST_BLOCKS })) {
      if (block.txs.length > 0 && block.number !== undefined) {
        target = toQuantity(block.number);
        break;
      }
    }
    if (!target) skip(`no block with transactions among the latest ${RECENT_BLOCKS} and the first ${FIRST_BLOCKS} blocks`);
    const block = await readBlock(ctx, target);
    if (!block) inconclusive(`eth_getBlockByNumber(${show(target)}, false) gives no block to compare with (it is not a method of the spec)`);
    const receipts = await getReceipts(ctx, target, 'head-number');
    judgeReceipts(`eth_getBlockReceipts(${show(target)})`, receipts, block.number, block.txs);
    judgeBlockGas(`eth_getBlockReceipts(${show(target)})`, receipts, block.gasUsed);
    ctx.note(`block ${target}: ${receipts.length} receipt(s) for ${block.txs.length} transaction(s)`);
  },
);

/** 4.3 and 5.2: on the public node addresses the method is refused with HTTP 403. */
function public403(id: string, param: string): Check {
  return check(
    {
      id,
      statements: ['4.3.3', '5.2.1', '7.3'],
      level: 'required',
      needs: ['rpc', 'profile:public'],
      title: `a public node address refuses eth_getBlockReceipts(${show(param)}) with HTTP 403`,
    },
    async (ctx) => {
      // Without the run's configured headers: 5.2 is about calls made without credentials.
      const { http } = await ctx.rpc.call('eth_getBlockReceipts', [param], undefined, { omitConfiguredHeaders: true });
      // Credentials demanded (401): the node refuses every call so, a 5.2 failure stated once by the public accepts check.
      if (http.status === 401)
        blocked(
          'rpc.public.accepts.getTransactionCount',
          `eth_getBlockReceipts(${show(param)}) on a public node address answered HTTP 401: credentials demanded`,
          {
            violated: ['5.2.1'],
            expected: 403,
            actual: 401,
          },
        );
      if (http.status !== 403) {
        fail(`eth_getBlockReceipts(${show(param)}) on a public node address answered HTTP ${http.status}; expected HTTP 403`, {
          expected: 403,
          actual: http.status,
          hint: 'if the target is a dedicated node, run with --profile dedicated (the default)',
        });
      }
    },
  );
}

export const receiptsChecks: Check[] = [
  ...RECEIPTS_AT.map(receiptsAtBlock),
  receiptsOfBusyBlock,
  public403('rpc.getBlockReceipts.public-403', 'latest'),
  public403('rpc.getBlockReceipts.public-403-pending', 'pending'),
];
