// The read-only search of history.ts: blocks below the head that hold state which differs over
// time (an active sender, a contract's creation, a busy block), found once per run and shared.
import { getContractAddress, type Hex } from 'viem';
import type { CheckContext } from '../../src/harness/check';
import { isEvmAddress, isHexQuantity } from '../../src/harness/formats';
import { headNumber, recentBlocks, type ChainContext } from '../../src/harness/chain';

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

/** Blocks below the head worth reading history at: the latest `recent`, then the first ones. */
async function* pastBlocks(ctx: ChainContext, recent = RECENT_BLOCKS) {
  const head = await headNumber(ctx);
  for await (const b of recentBlocks(ctx, { recent: recent + Number(HEAD_MARGIN), first: FIRST_BLOCKS })) {
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
export async function findSender(ctx: ChainContext): Promise<SenderInBlock | undefined> {
  for await (const b of pastBlocks(ctx)) {
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
  return undefined;
}

export interface Creation {
  address: Hex;
  /** The block whose transaction created it. */
  block: bigint;
  /** Its code at "latest" (not "0x": the creation succeeded and the contract still exists). */
  code: string;
}

/** A contract created by a transaction (not a deposit) of a block below the head, still holding code. */
export async function findCreation(ctx: ChainContext): Promise<Creation | undefined> {
  let probed = 0;
  for await (const b of pastBlocks(ctx, RECENT_BLOCKS_FOR_CREATION)) {
    for (const t of b.txs) {
      if ((t.to !== null && t.to !== undefined) || t.type === OP_DEPOSIT || !isEvmAddress(t.from) || !isHexQuantity(t.nonce)) continue;
      if (probed++ >= MAX_PROBES) return undefined;
      const address = getContractAddress({ from: t.from as Hex, nonce: BigInt(t.nonce!) });
      const a = await ctx.rpc.call('eth_getCode', [address, 'latest']);
      if (a.http.status === 200 && typeof a.result === 'string' && a.result !== '0x') return { address, block: b.number, code: a.result };
    }
  }
  return undefined;
}

/** A block below the head with transactions, for its receipts. */
export async function findBusyBlock(ctx: ChainContext): Promise<bigint | undefined> {
  for await (const b of pastBlocks(ctx)) if (b.txs.length > 0) return b.number;
  return undefined;
}

/**
 * What the checks judge is found by scanning blocks: done once per run and shared by the checks
 * that need it (its exchanges shown with each of them), so nine checks do not scan nine times.
 */
export function scanned<T>(ctx: CheckContext<'rpc'>, what: string, scan: (chain: ChainContext) => Promise<T>): Promise<T> {
  return ctx.shared(`rpc.history.${what}`, [SCAN_LANE], (scope) =>
    scan({ rpc: scope.rpc(SCAN_LANE), signal: scope.signal, settings: scope.settings, note: () => undefined }),
  );
}
const SCAN_LANE = 'history-scan';

export const NO_SENDER = `no transaction sender found in ${looked(RECENT_BLOCKS)}`;
export const NO_CREATION = `no contract created by a transaction of ${looked(RECENT_BLOCKS_FOR_CREATION)} still holds code (at most ${MAX_PROBES} deployments probed)`;
