/**
 * Spec 4.3 at a sealed block (tags other than "pending", or a number): the receipts paired with
 * the block the tag designated, read before and after the call (get-block-receipts.ts), or found
 * ambiguous and read again. Kept apart so the pairing rules, skew and reorgs, read as one piece.
 */
import type { CheckContext } from '../../src/harness/check';
import { judgeBlockGas, judgeReceipts, sameSet, type Receipt } from '../../src/harness/receipts';
import { fail } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { toQuantity } from '../../src/harness/hex';
import { headNumber, readBlock, type BlockView } from '../../src/harness/chain';

/** What one attempt at a sealed block came to: judged (a note), ambiguous (retry), or beyond the head. */
export type Outcome = { judged: string } | { ambiguous: string } | { beyondHead: () => never };

/**
 * A sealed block (tags other than "pending", or a number): judged when the pairing is certain.
 * Either the block read the same before and after the call and the receipts name it, or the
 * receipts name another block that the tag may have designated meanwhile, read by number and
 * compared with them. Moving tags ("latest", "safe", "finalized") behind a load balancer may be
 * answered by a backend a block behind or ahead (see chain.ts): receipts of an older block, or
 * none from a block that has transactions, are ambiguous, never a failure on first sight; a block
 * beyond every head read is a failure only when every attempt shows it (beyondHead). What no
 * backend within a block of the others can answer fails as read, never taken back by a later read
 * (a fleet's bad backend is met on some reads only): at "latest", a block two or more below the
 * head read before, or beyond the head re-read after and two or more beyond the block read after.
 * A number or "earliest" designates one block: any mismatch fails.
 */
export async function judgeSealed(ctx: CheckContext<'rpc'>, param: string, receipts: Receipt[], before: BlockView, after: BlockView): Promise<Outcome> {
  const what = `eth_getBlockReceipts(${show(param)})`;
  const summary = (n: bigint | undefined, txs: string[]) =>
    `block ${n !== undefined ? toQuantity(n) : show(param)}: ${receipts.length} receipt(s) for ${txs.length} transaction(s)`;
  const steady = before.number === after.number && before.hash === after.hash && sameSet(before.txs, after.txs);
  const moving = param === 'latest' || param === 'safe' || param === 'finalized';
  const judge = (block: BlockView, n: bigint | undefined, tail = ''): Outcome => {
    judgeReceipts(what, receipts, n, block.txs);
    judgeBlockGas(what, receipts, block.gasUsed);
    return { judged: `${summary(n, block.txs)}${tail}` };
  };
  if (receipts.length === 0 || before.number === undefined || after.number === undefined) {
    if (!steady)
      return { ambiguous: `block ${show(param)} changed between reads (${before.number ?? '?'} -> ${after.number ?? '?'}) and the receipts name no block` };
    if (moving && receipts.length === 0 && before.txs.length > 0)
      return {
        ambiguous: `no receipts, but block ${before.number ?? '?'} read before and after has ${before.txs.length} transaction(s): a backend behind may have answered from an older, empty block`,
      };
    return judge(before, before.number);
  }
  const n = BigInt(receipts[0].blockNumber);
  if (steady && (n === before.number || !moving)) return judge(before, before.number);
  const low = before.number < after.number ? before.number : after.number;
  const high = before.number > after.number ? before.number : after.number;
  const moved = `; the tag moved from ${toQuantity(before.number)} to ${toQuantity(after.number)} meanwhile, paired by the receipts' blockNumber`;
  if (n >= low && n <= high) {
    // A block of that number read twice with two hashes was replaced between the reads (a reorg of
    // the head): the receipts may be of either version. The receipts' own blockHash (a standard
    // field, not one the spec shows) picks the version when it names one of them; else ambiguous.
    const said = (receipts[0] as { blockHash?: unknown }).blockHash;
    const named = typeof said === 'string' ? said.toLowerCase() : undefined;
    const views = [before, after].filter((b) => b.number === n);
    const replaced = views.length === 2 && before.hash !== after.hash;
    const byHash = named === undefined ? undefined : views.find((b) => typeof b.hash === 'string' && b.hash.toLowerCase() === named);
    if (replaced && !byHash)
      return {
        ambiguous: `block ${toQuantity(n)} was replaced between the reads (hash ${before.hash ?? '?'}, then ${after.hash ?? '?'}): a reorg of the head? the receipts may be of either`,
      };
    const block = byHash ?? views[0] ?? (await readBlock(ctx, toQuantity(n)));
    if (!block) return { ambiguous: `block ${toQuantity(n)} named by the receipts could not be read` };
    // Read once, with another hash than the receipts name: replaced since (read again by number)?
    // Only a block that did change is not judged by its older version; receipts naming a hash no
    // read of it shows are judged against it as read.
    if (named !== undefined && !byHash && views.length > 0 && typeof block.hash === 'string' && block.hash.toLowerCase() !== named) {
      const now = await readBlock(ctx, toQuantity(n));
      if (now && typeof now.hash === 'string' && now.hash.toLowerCase() !== block.hash.toLowerCase()) {
        if (now.hash.toLowerCase() === named)
          return judge(now, n, `${moved}; block ${toQuantity(n)} replaced meanwhile (a reorg?), paired by the receipts' blockHash`);
        return { ambiguous: `block ${toQuantity(n)} was replaced between the reads (hash ${block.hash}, then ${now.hash}): a reorg of the head?` };
      }
    }
    return judge(block, n, moved);
  }
  // At "latest", two or more blocks below the head read before them: no backend within a block of
  // that one has such a head, so no skew explains it; it fails as read (a later read that looks
  // right takes nothing back: a fleet's bad backend is met on some reads only).
  if (param === 'latest' && n + 1n < before.number)
    fail(
      `${what}: the receipts name block ${toQuantity(n)}, two or more below the head ${toQuantity(before.number)} read just before them with eth_getBlockByNumber("latest"): every backend within a block of that head has sealed ${toQuantity(before.number - 1n)} or later`,
      { violated: ['4.3.1'], expected: `receipts of block ${toQuantity(before.number - 1n)} or later`, actual: receipts[0].blockNumber },
    );
  if (n < low)
    return {
      ambiguous: `the receipts name block ${toQuantity(n)}, older than the tag's block read before and after (${toQuantity(low)}..${toQuantity(high)}): a backend behind?`,
    };
  // Beyond both reads of the tag: judged against that block if the head (re-read) has reached it.
  const head = await headNumber(ctx);
  if (n <= head) {
    const block = await readBlock(ctx, toQuantity(n));
    if (block)
      return judge(
        block,
        n,
        `; named by the receipts while the tag read ${toQuantity(low)}..${toQuantity(high)} (a backend ahead), paired by their blockNumber`,
      );
    return { ambiguous: `block ${toQuantity(n)} named by the receipts could not be read` };
  }
  // At "latest", beyond the head re-read and two or more beyond the block read after them (sealed,
  // read with eth_getBlockByNumber: eth_blockNumber may name the block being built): no backend
  // within a block of that one had sealed it when the receipts were answered. It fails as read.
  // ("safe" and "finalized" may differ between backends by many blocks: not judged so.)
  if (param === 'latest' && n > high + 1n)
    fail(
      `${what}: the receipts name block ${toQuantity(n)}, beyond the head re-read after them (${toQuantity(head)}) and two or more beyond the block read before and after them (${toQuantity(low)}..${toQuantity(high)}): no backend within a block of that one had sealed it`,
      { violated: ['4.3.1'], expected: `receipts of block ${toQuantity(low)}..${toQuantity(high + 1n)}`, actual: receipts[0].blockNumber },
    );
  return {
    beyondHead: () =>
      fail(
        `${what}: the receipts name block ${toQuantity(n)}, beyond the head (${toQuantity(head)}) and the tag's block read before and after (${toQuantity(low)}..${toQuantity(high)}), in every attempt`,
        {
          violated: ['4.3.1'],
          expected: `receipts of block ${toQuantity(low)}..${toQuantity(high)}`,
          actual: receipts[0].blockNumber,
        },
      ),
  };
}
