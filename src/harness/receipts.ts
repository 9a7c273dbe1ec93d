/**
 * Judging a block's receipts against the transactions the block is known to hold (spec 4.3: one
 * receipt per transaction in the block; 2.4: each names its block). Shared by the read-only
 * eth_getBlockReceipts checks and the pre-confirmation checks.
 */
import { resultAt, type BlockParamKey, type ChainContext } from './chain';
import { expectSchema } from './expect';
import { toQuantity } from './hex';
import { show } from './json';
import { blocked, fail } from './verdict';

/** The receipt fields of 2.4 the checks read (the receipt schema guarantees their encodings). */
export interface Receipt {
  transactionHash: string;
  blockNumber: string;
  gasUsed: string;
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return s.size === new Set(b).size && b.every((x) => s.has(x));
}

function list(xs: string[], max = 5): string {
  return xs.length <= max ? xs.join(', ') : `${xs.slice(0, max).join(', ')} and ${xs.length - max} more`;
}

/**
 * One receipt per transaction, all numbered `number`. The transaction set is known exactly
 * (`lower` = `upper`, a block read unchanged around the call) or, for the growing pre-confirmed
 * block, bracketed: the transactions pre-confirmed before the call (`lower`) must have a
 * receipt, and every receipt must be of a transaction pre-confirmed by just after it (`upper`).
 */
export function judgeReceipts(what: string, receipts: Receipt[], number: bigint | undefined, lower: string[], upper: string[] = lower): void {
  if (number !== undefined) {
    const wrong = receipts.find((r) => BigInt(r.blockNumber) !== number);
    if (wrong) {
      fail(`${what}: receipt of ${wrong.transactionHash} has blockNumber ${wrong.blockNumber}, but the block is ${toQuantity(number)}`, {
        violated: ['4.3.1'],
        expected: toQuantity(number),
        actual: wrong.blockNumber,
      });
    }
  }
  const got = receipts.map((r) => r.transactionHash.toLowerCase());
  const dup = got.filter((h, i) => got.indexOf(h) !== i);
  if (dup.length > 0)
    fail(`${what}: several receipts for ${list([...new Set(dup)])}`, { violated: ['4.3.1'], expected: 'one receipt per transaction', actual: dup });
  const missing = lower.filter((h) => !got.includes(h));
  const extra = got.filter((h) => !upper.includes(h));
  if (missing.length > 0 || extra.length > 0) {
    const exact = sameSet(lower, upper);
    const parts = [
      missing.length
        ? `no receipt for ${missing.length} transaction(s) of the block${exact ? '' : ' (in it before and after the call)'}: ${list(missing)}`
        : '',
      extra.length ? `${extra.length} receipt(s) of transactions not in the block${exact ? '' : ' (not even just after the call)'}: ${list(extra)}` : '',
    ].filter(Boolean);
    const has = exact ? `${lower.length}` : `${lower.length} before and ${upper.length} after the call`;
    fail(`${what}: ${parts.join('; ')} (block has ${has} transaction(s), answer has ${receipts.length} receipt(s))`, {
      violated: ['4.3.1'],
      expected: exact ? lower : { atLeast: lower, atMost: upper },
      actual: got,
    });
  }
}

/**
 * A receipt's gasUsed is the gas of its transaction alone (2.4), so the receipts of all of a
 * block's transactions (4.3: one per transaction) add up to the block's gasUsed. Judged only
 * when the block gave its gasUsed and the receipts are known to be the block's whole set (after
 * judgeReceipts with an exact set); a receipt carrying cumulativeGasUsed as gasUsed overshoots.
 */
export function judgeBlockGas(what: string, receipts: ReadonlyArray<Pick<Receipt, 'gasUsed'>>, blockGasUsed: bigint | undefined): void {
  if (blockGasUsed === undefined || receipts.length === 0) return;
  const each = receipts.map((r) => (typeof r.gasUsed === 'string' && /^0x[0-9a-f]+$/i.test(r.gasUsed) ? BigInt(r.gasUsed) : undefined));
  if (each.some((g) => g === undefined)) return;
  const sum = each.reduce((a, b) => a! + b!, 0n)!;
  if (sum === blockGasUsed) return;
  fail(
    `${what}: the receipts' gasUsed add up to ${sum} (${toQuantity(sum)}), but the block's gasUsed is ${blockGasUsed} (${toQuantity(blockGasUsed)}); ` +
      `a receipt's gasUsed is its own transaction's gas${sum > blockGasUsed ? ' (cumulativeGasUsed in its place adds up to more)' : ''}`,
    { violated: ['4.3.1', '2.4.1'], expected: toQuantity(blockGasUsed), actual: receipts.map((r) => r.gasUsed) },
  );
}

/**
 * The check that states "eth_getBlockReceipts refused with HTTP 403" under --profile dedicated:
 * a public node judged as dedicated is one mistake, so one failure (naming the fix) with every
 * other check that needs the method blocked by it.
 */
export const RECEIPTS_ROOT = { id: 'rpc.getBlockReceipts.block.latest', violated: ['4.3.3', '5.2.1'] } as const;
export const PUBLIC_PROFILE_HINT = 'if the target is a public node address (where 5.2 refuses this method), run with --profile public';

/**
 * An HTTP 403 under --profile dedicated breaks the profile rule of 4.3 / 5.2, not the envelope:
 * blocked by RECEIPTS_ROOT (its own failure when thrown by the root itself).
 */
export function dedicated403(param: string): never {
  blocked(
    RECEIPTS_ROOT.id,
    `eth_getBlockReceipts(${show(param)}) answered HTTP 403: refused, but a dedicated node must serve it (4.3; --profile dedicated is the default)`,
    {
      violated: RECEIPTS_ROOT.violated,
      expected: 'HTTP 200 with a JSON-RPC result',
      actual: 'HTTP 403',
      hint: PUBLIC_PROFILE_HINT,
    },
  );
}

/** eth_getBlockReceipts(param): an array of receipts of schema 2.4, all of one block (4.3). */
export async function getReceipts(ctx: ChainContext, param: string, key: BlockParamKey | 'number'): Promise<Receipt[]> {
  const result = await resultAt(ctx, 'eth_getBlockReceipts', [param], key, () => dedicated403(param));
  if (!Array.isArray(result)) {
    fail(`eth_getBlockReceipts(${show(param)}) answered ${show(result)}, not an array of receipts`, {
      violated: ['4.3.1'],
      expected: 'an array of receipt objects (empty when the block has no transactions)',
      actual: result,
    });
  }
  result.forEach((r, i) => expectSchema('receipt', r, `receipt [${i}] of eth_getBlockReceipts(${show(param)})`, ['2.4.1', '4.3.1']));
  const receipts = result as Receipt[];
  const numbers = new Set(receipts.map((r) => r.blockNumber));
  if (numbers.size > 1) {
    fail(`eth_getBlockReceipts(${show(param)}) mixes receipts of several blocks: blockNumber ${[...numbers].join(', ')}`, {
      violated: ['4.3.1'],
      expected: 'the receipts of one block',
      actual: [...numbers],
    });
  }
  return receipts;
}
