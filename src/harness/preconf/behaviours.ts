// What each behaviour of the pass is: the transactions whose seal ends its pre-confirmed
// observation, what it reads in a round, when that read shows the pre-confirmed state, what it
// reads after the seal and what of that is merely a backend behind. The table (DEFS) is the
// observation; what is right or wrong about the readings is judged in suites/preconf.
import type { Hex } from 'viem';
import { toQuantity } from '../hex';
import { RUNTIME_RETURNS_42, RUNTIME_SSTORE, SSTORE_MIN_GAS, type Session } from './session';
import { TX_COUNT, type Afters, type Behaviour, type Receipt, type Role, type SentTx, type Views } from './evidence';
import { Violation } from './errors';

/** What each deployment's runtime is, in the order of the code views. */
export const DEPLOYED: ReadonlyArray<[Role, Hex]> = [
  ['deploy-returns-42', RUNTIME_RETURNS_42],
  ['deploy-sstore', RUNTIME_SSTORE],
];

/** One attempt's transactions and what their views compare with. */
export interface AttemptTxs {
  base: bigint;
  sent: SentTx[];
  /** The call into the SSTORE deployment whose estimate is compared. */
  call: Record<string, unknown>;
  /** The first batch showed at "pending" before the rest was sent: two flashblocks of one block (send.ts). */
  split?: boolean;
}

export interface Def<V, A> {
  /** Transactions whose seal ends this behaviour's pre-confirmed observation. */
  relevant(a: AttemptTxs): SentTx[];
  read(s: Session, a: AttemptTxs): Promise<V>;
  /** The pre-confirmed state shows in the view. */
  visible(v: V, a: AttemptTxs): boolean;
  /** The transactions the view shows (latency samples). */
  shows(v: V, a: AttemptTxs): SentTx[];
  after(s: Session, a: AttemptTxs, sealedIn: Map<string, bigint>): Promise<A>;
  /**
   * What of the after-seal reads does not show the sealed state yet (undefined: all of it
   * does). Only decides whether to re-read (a backend behind a load balancer may not have the
   * sealing block yet); the checks judge the settled reads.
   */
  unsettled(after: A, a: AttemptTxs, sealedIn: Map<string, bigint>, plain: bigint | undefined): string | undefined;
  shown(v: V, a: AttemptTxs): unknown;
  /**
   * The transactions whose pre-confirmed state the read does not show: it still shows the state
   * from before them (undefined: the behaviour is not read again once established; empty: the
   * read shows them all). Only asked of reads before the seal; `plain` is the code-less estimate.
   */
  stale?(v: V, a: AttemptTxs, plain: bigint | undefined): SentTx[];
  /**
   * Whether a read of a tag that must not see the pre-confirmed state ("latest", or no block
   * parameter) sees it, as a backend that has already sealed the block does. Asked of the rounds
   * before the seal: near it (not aheadOfSeal) such a read tells nothing, and when only such
   * rounds showed it the attempt leaves the behaviour unclear (undefined: no such tag is read).
   */
  showsSealed?(v: V, a: AttemptTxs, plain: bigint | undefined): boolean;
}

async function countsBothCases(s: Session): Promise<Views['nonce']> {
  const [pending, latest, pendingLowercase] = await Promise.all([
    s.count('nonce', 'pending'),
    s.count('nonce', 'latest'),
    s.count('nonce', 'pending', 'lowercase'),
  ]);
  return { pending, latest, pendingLowercase };
}
const maxPending = (v: Views['nonce']): bigint => (v.pending > v.pendingLowercase ? v.pending : v.pendingLowercase);

export const deployments = (a: AttemptTxs): SentTx[] => DEPLOYED.map(([role]) => a.sent.find((t) => t.role === role)!);
export const sstore = (a: AttemptTxs): SentTx => a.sent.find((t) => t.role === 'deploy-sstore')!;
const hashOf = (r: Receipt): string => (typeof r.transactionHash === 'string' ? r.transactionHash.toLowerCase() : '');

export const DEFS: { [B in Behaviour]: Def<Views[B], Afters[B]> } = {
  nonce: {
    relevant: (a) => a.sent,
    // The pending count asked with the address checksummed and in lowercase: a node counting
    // pool transactions for one spelling only shows as a disagreement within one round.
    read: countsBothCases,
    // Every planned transaction: until the second batch is sent (watch.ts) the view cannot show it.
    visible: (v, a) => a.sent.length === TX_COUNT && maxPending(v) >= a.base + BigInt(TX_COUNT),
    shows: (v, a) => a.sent.filter((t) => maxPending(v) > t.nonce),
    after: countsBothCases,
    // Only what a backend that has not imported the sealing block shows (counts below the sealed
    // count) is re-read; a count above it, or pending and latest apart, is for the check to judge.
    unsettled: (after, a) => {
      const sealed = a.base + BigInt(a.sent.length);
      return after.latest < sealed || after.pending < sealed || after.pendingLowercase < sealed
        ? `counts pending ${after.pending} (lowercase ${after.pendingLowercase}), latest ${after.latest} (sealed count ${sealed})`
        : undefined;
    },
    shown: (v) => ({ pending: toQuantity(v.pending), pendingLowercase: toQuantity(v.pendingLowercase), latest: toQuantity(v.latest) }),
    // Either spelling at or below a transaction's nonce: that answer left it out.
    stale: (v, a) => a.sent.filter((t) => (v.pending < v.pendingLowercase ? v.pending : v.pendingLowercase) <= t.nonce),
    showsSealed: (v, a) => v.latest > a.base,
  },
  code: {
    relevant: deployments,
    read: async (s, a) => {
      const reads = await Promise.all(
        deployments(a).flatMap((t) => [s.code('code', t.contractAddress!, 'pending'), s.code('code', t.contractAddress!, 'latest')]),
      );
      return { pending: reads.filter((_, i) => i % 2 === 0), latest: reads.filter((_, i) => i % 2 === 1) };
    },
    visible: (v) => v.pending.every((c) => c !== '0x'),
    shows: (v, a) => deployments(a).filter((_, i) => v.pending[i] !== '0x'),
    after: async (s, a) => ({ latest: await Promise.all(deployments(a).map((t) => s.code('code', t.contractAddress!, 'latest'))) }),
    // No code yet is what a lagging backend shows; other code is for the check to judge.
    unsettled: (after) => (after.latest.some((c) => c === '0x') ? `"latest" code ${after.latest.join(', ')}` : undefined),
    shown: (v, a) => Object.fromEntries(deployments(a).map((t, i) => [t.contractAddress!, { pending: v.pending[i], latest: v.latest[i] }])),
    stale: (v, a) => deployments(a).filter((_, i) => v.pending[i] === '0x'),
    showsSealed: (v) => v.latest.some((c) => c !== '0x'),
  },
  estimate: {
    relevant: (a) => [sstore(a)],
    read: async (s, a) => {
      // And with no block parameter: its default is "latest" (4.4), so before the seal it must not
      // see the pre-confirmed contract (older clients default to "pending").
      const [pending, latest, omitted] = await Promise.all([
        s.estimate('estimate', a.call, 'pending'),
        s.estimate('estimate', a.call, 'latest'),
        s.estimate('estimate', a.call),
      ]);
      return { pending, latest, omitted };
    },
    visible: (v) => v.pending >= v.latest + SSTORE_MIN_GAS,
    shows: (v, a) => (v.pending >= v.latest + SSTORE_MIN_GAS ? [sstore(a)] : []),
    after: async (s, a) => ({ latest: await s.estimate('estimate', a.call, 'latest') }),
    // At most the code-less estimate: the backend does not have the contract yet. Anything above
    // it but short of the SSTORE is for the check to judge.
    unsettled: (after, _a, _sealedIn, plain) =>
      plain !== undefined && after.latest <= plain ? `"latest" estimate ${after.latest} (code-less ${plain})` : undefined,
    shown: (v) => ({ pending: v.pending.toString(), latest: v.latest.toString(), noBlockParameter: v.omitted.toString() }),
    // Against the code-less estimate, not the "latest" one read beside it: the comparison holds
    // whichever of the two a seal has already changed.
    stale: (v, a, plain) => (v.pending < (plain ?? v.latest) + SSTORE_MIN_GAS ? [sstore(a)] : []),
    // Either estimate executing the contract: a sealed backend's "latest" (the default) does.
    showsSealed: (v, _a, plain) => [v.latest, v.omitted].some((gas) => gas >= (plain ?? v.latest) + SSTORE_MIN_GAS),
  },
  receipts: {
    relevant: (a) => a.sent,
    read: async (s) => {
      const [pending, latest, pendingBlock] = await Promise.all([
        s.receipts('receipts', 'pending'),
        s.receipts('receipts', 'latest'),
        s.pendingBlockNumber('receipts'),
      ]);
      return { pending, latest, pendingBlock };
    },
    visible: (v, a) => a.sent.length === TX_COUNT && a.sent.every((t) => v.pending.some((r) => hashOf(r) === t.hash.toLowerCase())),
    shows: (v, a) => a.sent.filter((t) => v.pending.some((r) => hashOf(r) === t.hash.toLowerCase())),
    after: async (s, _a, sealedIn) => {
      const numbers = [...new Set(sealedIn.values())].sort((x, y) => (x < y ? -1 : 1));
      return {
        blocks: await Promise.all(
          numbers.map(async (number) => {
            const r = await s.receiptsAt('receipts', number);
            return Array.isArray(r) ? { number, receipts: r } : { number, receipts: [], unknown: r.unknown };
          }),
        ),
      };
    },
    // Only a block the node did not know is re-read: an array of receipts for a sealed block
    // comes from a backend that has it, and what it holds is the check's to judge.
    unsettled: (after) => {
      const unknown = after.blocks.filter((blk) => blk.unknown !== undefined);
      return unknown.length === 0 ? undefined : unknown.map((blk) => blk.unknown).join('; ');
    },
    shown: (v) => ({ receipts: v.pending.length, transactionHashes: v.pending.slice(0, 20).map(hashOf) }),
    // Read on up to the seal: behind a balancer, a backend answering the newest flashblock only
    // shows a newer view that lost an older transaction in these reads (dropped.ts).
    stale: (v, a) => a.sent.filter((t) => !v.pending.some((r) => hashOf(r) === t.hash.toLowerCase())),
    showsSealed: (v, a) => a.sent.some((t) => v.latest.some((r) => hashOf(r) === t.hash.toLowerCase())),
  },
};

export type Captured<T> = { value: T } | { violation: Violation };

/** Runs a read; an answer at odds with a rule (a Violation) is kept for the behaviour's own check. */
export async function capture<T>(f: () => Promise<T>): Promise<Captured<T>> {
  try {
    return { value: await f() };
  } catch (err) {
    if (err instanceof Violation) return { violation: err };
    throw err;
  }
}
