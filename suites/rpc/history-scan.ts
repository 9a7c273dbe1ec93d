// The read-only search of history.ts: blocks below the head that hold state which differs over
// time (an active sender, a contract's creation, a busy block), found once per run and shared.
import type { Hex } from 'viem';
import { viem } from '../../src/harness/viem';
import type { CheckContext } from '../../src/harness/check';
import { isEvmAddress, isHexQuantity } from '../../src/harness/formats';
import { blockErrorKind, BLOCKS_LANE, headNumber, NO_ARCHIVE, recentBlocks, type ChainContext } from '../../src/harness/chain';
import { inconclusive, skip } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import type { RpcAnswer } from '../../src/harness/rpc';

/** Where to look: the latest blocks, then the first ones (a young chain's deployments). */
export const RECENT_BLOCKS = 16;
const FIRST_BLOCKS = 8;
/** Fewer latest blocks for deployments: five checks look for one, and each look reads whole blocks. */
const RECENT_BLOCKS_FOR_CREATION = 8;
/** Blocks this close to the head are left alone (a backend a block behind may lack them). */
const HEAD_MARGIN = 2n;
/** At most this many deployments are probed with eth_getCode. */
const MAX_PROBES = 16;
/** A selector no contract of the chain is expected to have: most contracts revert on it. */
export const PROBE_DATA = '0xc0f0a11e';
const OP_DEPOSIT = '0x7e';
const EIP7702 = '0x4';

export const looked = (recent: number) => `the latest ${recent} and the first ${FIRST_BLOCKS} blocks (at least ${HEAD_MARGIN} below the head)`;

/**
 * The blocks a scan asked for and was not given, and what the node said of them: under history
 * expiry (EIP-4444) a node serves no body older than its window ("pruned history unavailable"),
 * which is why nothing was found, not that the chain has no sender.
 */
class Unread {
  readonly blocks: string[] = [];
  said?: unknown;
  expired = false;

  note(param: string, a: RpcAnswer): void {
    this.blocks.push(param);
    this.said ??= a.hasError ? a.error : a.http.status === 200 ? a.result : `HTTP ${a.http.status}`;
    if (a.hasError && blockErrorKind(a) !== undefined) this.expired = true;
  }
}

/** Nothing found, and why: the blocks looked at, and the ones the node did not serve. */
export class Unfound {
  constructor(
    readonly nothing: string,
    readonly unread: Unread,
  ) {}
}

/** Skipped with the real cause: history the node does not keep (out of scope without --archive), or nothing in what it served. */
export function skipUnfound(u: Unfound, archive: boolean | undefined): never {
  const { blocks, said, expired } = u.unread;
  if (blocks.length === 0) skip(u.nothing);
  const gap = `eth_getBlockByNumber gave no block for ${blocks.length} of the blocks looked at (${blocks.slice(0, 4).join(', ')}${blocks.length > 4 ? ', …' : ''}), answering ${show(said)}`;
  // With --archive the history is in scope, but the blocks are read with a method outside the spec: not judged.
  if (expired && archive)
    inconclusive(
      `the node serves no history for part of the chain (history expiry, EIP-4444?), which --archive asks for: ${gap}; ${u.nothing} among the blocks it served`,
    );
  if (expired)
    skip(`the node serves no history for part of the chain (history expiry, EIP-4444?): ${gap}; ${u.nothing} among the blocks it served`, {
      outOfScope: NO_ARCHIVE,
    });
  skip(`${u.nothing} among the blocks the node served: ${gap}`);
}

/** Blocks below the head worth reading history at: the latest `recent`, then the first ones. */
async function* pastBlocks(ctx: ChainContext, unread: Unread, recent = RECENT_BLOCKS) {
  const head = await headNumber(ctx);
  for await (const b of recentBlocks(ctx, { recent: recent + Number(HEAD_MARGIN), first: FIRST_BLOCKS, unread: (p, a) => unread.note(p, a) })) {
    if (b.number !== undefined && b.number >= 1n && b.number + HEAD_MARGIN <= head) yield { ...b, number: b.number };
  }
}

export interface SenderInBlock {
  sender: string;
  block: bigint;
  /** Nonces of its transactions in the block. */
  first: bigint;
  last: bigint;
  count: number;
}

/**
 * An account that sent transactions in a block below the head. Blocks holding EIP-7702
 * transactions are passed over (an authorization moves its signer's nonce mid-block), and so
 * are OP-stack deposits and their senders (a deposit's nonce field is not the sender's count,
 * yet it raises it).
 */
export async function findSender(ctx: ChainContext): Promise<SenderInBlock | Unfound> {
  const unread = new Unread();
  for await (const b of pastBlocks(ctx, unread)) {
    if (b.txs.some((t) => t.type === EIP7702)) continue;
    // A deposit raises its sender's count too, without a nonce of its own: leave such senders out.
    const depositors = new Set(b.txs.filter((t) => t.type === OP_DEPOSIT && typeof t.from === 'string').map((t) => t.from!.toLowerCase()));
    const nonces = new Map<string, bigint[]>();
    for (const t of b.txs) {
      if (t.type === OP_DEPOSIT || !isEvmAddress(t.from) || !isHexQuantity(t.nonce) || depositors.has(t.from!.toLowerCase())) continue;
      const from = t.from!.toLowerCase();
      nonces.set(from, [...(nonces.get(from) ?? []), BigInt(t.nonce!)]);
    }
    const [sender, ns] = [...nonces][0] ?? [];
    if (!sender) continue;
    ns.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    return { sender, block: b.number, first: ns[0], last: ns[ns.length - 1], count: ns.length };
  }
  return new Unfound(NO_SENDER, unread);
}

export interface Creation {
  address: Hex;
  /** The block whose transaction created it. */
  block: bigint;
  /** Its code at "latest" (not "0x": the creation succeeded and the contract still exists). */
  code: string;
}

/** A contract created by a transaction (not a deposit) of a block below the head, still holding code. */
export async function findCreation(ctx: ChainContext): Promise<Creation | Unfound> {
  let probed = 0;
  const unread = new Unread();
  for await (const b of pastBlocks(ctx, unread, RECENT_BLOCKS_FOR_CREATION)) {
    for (const t of b.txs) {
      if ((t.to !== null && t.to !== undefined) || t.type === OP_DEPOSIT || !isEvmAddress(t.from) || !isHexQuantity(t.nonce)) continue;
      if (probed++ >= MAX_PROBES) return new Unfound(NO_CREATION, unread);
      const address = viem().getContractAddress({ from: t.from as Hex, nonce: BigInt(t.nonce!) });
      const a = await ctx.rpc.call('eth_getCode', [address, 'latest']);
      if (a.http.status === 200 && typeof a.result === 'string' && a.result !== '0x') return { address, block: b.number, code: a.result };
    }
  }
  return new Unfound(NO_CREATION, unread);
}

/** A block below the head with transactions, for its receipts. */
export async function findBusyBlock(ctx: ChainContext): Promise<bigint | Unfound> {
  const unread = new Unread();
  for await (const b of pastBlocks(ctx, unread)) if (b.txs.length > 0) return b.number;
  return new Unfound(`no block with transactions in ${looked(RECENT_BLOCKS)}`, unread);
}

/**
 * What the checks judge is found by scanning blocks: done once per run and shared by the checks
 * that need it (its exchanges shown with each of them), so nine checks do not scan nine times.
 */
export function scanned<T>(ctx: CheckContext<'rpc'>, what: string, scan: (chain: ChainContext) => Promise<T>): Promise<T> {
  return ctx.shared(`rpc.history.${what}`, [SCAN_LANE, BLOCKS_LANE], (scope) =>
    scan({ rpc: scope.rpc(SCAN_LANE), signal: scope.signal, settings: scope.settings, note: () => undefined, shared: scope.shared }),
  );
}
const SCAN_LANE = 'history-scan';

export const NO_SENDER = `no transaction sender found in ${looked(RECENT_BLOCKS)}`;
export const NO_CREATION = `no contract created by a transaction of ${looked(RECENT_BLOCKS_FOR_CREATION)} still holds code (at most ${MAX_PROBES} deployments probed)`;
