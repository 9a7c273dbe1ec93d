/**
 * Plumbing shared by the JSON-RPC checks: the block-parameter table of spec 4.2, learning the
 * head block number, reading a block to compare receipts with, and turning an answer into a
 * result with a section-precise failure. The rules themselves live in the check files.
 */
import { fail, skip } from './verdict';
import type { CheckContext } from './check';
import { show, isRecord } from './json';
import { isHexQuantity } from './formats';
import { BLOCK_TAGS, toQuantity, type BlockTag } from './hex';
import { resultOf } from './expect';

/**
 * The block parameters of spec 4.2: the five tags, and a block number as a hex string. For the
 * number the checks use the current head (`head-number`), learned at run time.
 */
export type BlockParamKey = BlockTag | 'head-number';
export const BLOCK_PARAM_KEYS: readonly BlockParamKey[] = [...BLOCK_TAGS, 'head-number'];

/** A short phrase naming a block parameter in titles. */
export function describeParam(key: BlockParamKey): string {
  return key === 'head-number' ? 'the head block number as hex' : `"${key}"`;
}

/**
 * The head (latest sealed) block number. eth_blockNumber is not one of the four methods of the
 * spec but a standard one; when it fails, `eth_getBlockByNumber("latest")` is asked instead.
 * Neither method is judged here: when both fail the check cannot pick a number and skips.
 */
export async function headNumber(ctx: Pick<CheckContext, 'rpc' | 'note'>): Promise<bigint> {
  const a = await ctx.rpc.call('eth_blockNumber', []);
  if (a.http.status === 200 && isHexQuantity(a.result)) return BigInt(a.result as string);
  const b = await ctx.rpc.call('eth_getBlockByNumber', ['latest', false]);
  if (b.http.status === 200 && isRecord(b.result) && isHexQuantity(b.result.number)) {
    ctx.note(`eth_blockNumber gave no hex quantity (${show(a.json ?? a.http.status)}); head taken from eth_getBlockByNumber("latest")`);
    return BigInt(b.result.number as string);
  }
  skip('cannot learn the head block number: eth_blockNumber and eth_getBlockByNumber("latest") both gave no hex number (neither is a method of the spec)');
}

/** The value to send for a block parameter key. */
export async function blockParam(ctx: Pick<CheckContext, 'rpc' | 'note'>, key: BlockParamKey): Promise<string> {
  if (key !== 'head-number') return key;
  const n = await headNumber(ctx);
  ctx.note(`block number used: ${toQuantity(n)} (${n})`);
  return toQuantity(n);
}


/**
 * Spec 1.4: each of the four methods accepts "pending"; 4.2: the block parameter accepts every
 * tag and a hex number. A method that refuses a block parameter violates these: the failure
 * cites 1.4 (and 4.2) for "pending", 4.2 for the others.
 */
export function sectionOfParam(key: BlockParamKey | 'omitted'): string {
  return key === 'pending' ? '1.4, 4.2' : '4.2';
}

/**
 * Call a method with a block parameter and return its result; a refusal (an error, or no
 * JSON-RPC result) fails with the section of that parameter (see sectionOfParam).
 */
export async function resultAt<T = unknown>(
  ctx: Pick<CheckContext, 'rpc'>,
  method: string,
  params: unknown[],
  key: BlockParamKey | 'omitted',
  section403?: { section: string; hint: string },
): Promise<T> {
  const answer = await ctx.rpc.call(method, params);
  const section = sectionOfParam(key);
  if (section !== '4.2' && answer.hasError && !(answer.http.status === 403 && section403)) {
    fail(`${method} refused the block parameter "${key}": error ${show(answer.error ?? (answer.json as Record<string, unknown>).error)}`, {
      section,
      expected: 'a result (each of the four methods accepts "pending")',
      actual: (answer.json as Record<string, unknown>).error,
    });
  }
  return resultOf<T>(method, answer, section403);
}

/** What a check needs of a block to compare receipts with (eth_getBlockByNumber, hashes only). */
export interface BlockView {
  number?: bigint;
  hash?: string;
  /** Transaction hashes, lower-cased. */
  txs: string[];
}

/**
 * Read a block with eth_getBlockByNumber(param, false). That method is not one of the spec's
 * four, so an answer that is not a usable block object is "not offered" (undefined), never a
 * verdict. A block without a number or hash (as some nodes show "pending") keeps them undefined.
 */
export async function readBlock(ctx: Pick<CheckContext, 'rpc'>, param: string): Promise<BlockView | undefined> {
  const a = await ctx.rpc.call('eth_getBlockByNumber', [param, false]);
  const b = a.http.status === 200 ? a.result : undefined;
  if (!isRecord(b) || !Array.isArray(b.transactions)) return undefined;
  const txs: string[] = [];
  for (const t of b.transactions) {
    if (typeof t === 'string') txs.push(t.toLowerCase());
    else if (isRecord(t) && typeof t.hash === 'string') txs.push(t.hash.toLowerCase());
    else return undefined;
  }
  return {
    number: isHexQuantity(b.number) ? BigInt(b.number as string) : undefined,
    hash: typeof b.hash === 'string' ? b.hash.toLowerCase() : undefined,
    txs,
  };
}

/** A transaction object of eth_getBlockByNumber(n, true), as far as the checks read it. */
export interface TxView {
  from?: string;
  to?: string | null;
  nonce?: string;
  hash?: string;
}

/**
 * Blocks to look at for chain activity, newest first: the pre-confirmed block, the `recent`
 * latest sealed blocks, then the `first` blocks after genesis (where a young chain, such as a
 * dev chain, holds its deployments). Bounded: at most 1 + recent + first block reads.
 */
export async function* recentBlocks(
  ctx: Pick<CheckContext, 'rpc' | 'note' | 'signal'>,
  opts: { recent: number; first?: number; pending?: boolean },
): AsyncGenerator<{ param: string; number?: bigint; txs: TxView[] }> {
  const read = async (param: string) => {
    const a = await ctx.rpc.call('eth_getBlockByNumber', [param, true]);
    const b = a.http.status === 200 ? a.result : undefined;
    if (!isRecord(b) || !Array.isArray(b.transactions)) return undefined;
    return { param, number: isHexQuantity(b.number) ? BigInt(b.number as string) : undefined, txs: b.transactions.filter(isRecord) as TxView[] };
  };
  if (opts.pending) {
    const p = await read('pending');
    if (p) yield p;
  }
  const head = await headNumber(ctx);
  const seen = new Set<bigint>();
  const oldest = head >= BigInt(opts.recent) ? head - BigInt(opts.recent) + 1n : 0n;
  for (let n = head; n >= oldest; n--) {
    if (ctx.signal.aborted) return;
    seen.add(n);
    const b = await read(toQuantity(n));
    if (b) yield b;
  }
  for (let n = 1n; n <= BigInt(opts.first ?? 0) && n <= head; n++) {
    if (ctx.signal.aborted) return;
    if (seen.has(n)) continue;
    const b = await read(toQuantity(n));
    if (b) yield b;
  }
}
