// What the pre-confirmation pass hands to the checks: evidence, never verdicts. Readings before
// and after the seal, timelines of misses, the nonce readings that contradict 4.5, and why
// something could not be observed. The rules these are weighed against live in suites/preconf.
import { toQuantity } from '../hex';
import { show } from '../json';
import type { Receipt, Sent } from './session';
import type { Miss, Percentiles } from './timing';
import type { Violation } from './errors';
import type { SpellingWeight } from './spelling';

/** The transactions of one attempt, in nonce order from the pending count. */
export const TX_PLAN = ['transfer', 'deploy-returns-42', 'deploy-sstore', 'transfer', 'transfer'] as const;
export type Role = (typeof TX_PLAN)[number];
export const TX_COUNT = TX_PLAN.length;

export interface SentTx extends Sent {
  role: Role;
}

export type Behaviour = 'nonce' | 'code' | 'estimate' | 'receipts';
export const BEHAVIOURS: readonly Behaviour[] = ['nonce', 'code', 'estimate', 'receipts'];

/** The spec method each behaviour is read with (latency is reported per method). */
export const METHOD_OF: Record<Behaviour, string> = {
  nonce: 'eth_getTransactionCount',
  code: 'eth_getCode',
  estimate: 'eth_estimateGas',
  receipts: 'eth_getBlockReceipts',
};

// ---- what each behaviour reads ----------------------------------------------------------------

export interface NonceView {
  /** The signer's address checksummed (EIP-55). */
  pending: bigint;
  latest: bigint;
  /** The same "pending" count with the address in lowercase, read in the same round. */
  pendingLowercase: bigint;
}
export interface CodeView {
  /** One per deployment, in DEPLOYED order (lower-cased). */
  pending: string[];
  latest: string[];
}
export interface EstimateView {
  pending: bigint;
  latest: bigint;
  /** The same call with no block parameter (its default is "latest", 4.4), read in the same round. */
  omitted: bigint;
}
export type { Receipt };
export interface ReceiptsView {
  pending: Receipt[];
  latest: Receipt[];
  /** What eth_getBlockByNumber("pending") said its number was (undefined: not offered). */
  pendingBlock?: bigint;
}
export interface NonceAfter {
  pending: bigint;
  latest: bigint;
  pendingLowercase: bigint;
}
export interface CodeAfter {
  latest: string[];
}
export interface EstimateAfter {
  latest: bigint;
}
export interface ReceiptsAfter {
  /** eth_getBlockReceipts of each block that sealed one of the transactions. */
  blocks: Array<{
    number: bigint;
    receipts: Receipt[];
    /** What the node said of a block it did not know (yet); never in a judged outcome. */ unknown?: string;
  }>;
}

export interface Views {
  nonce: NonceView;
  code: CodeView;
  estimate: EstimateView;
  receipts: ReceiptsView;
}
export interface Afters {
  nonce: NonceAfter;
  code: CodeAfter;
  estimate: EstimateAfter;
  receipts: ReceiptsAfter;
}

// ---- what an attempt established -------------------------------------------------------------

/**
 * A read of a behaviour at "pending" after the round that first showed it pre-confirmed, up to
 * the seal of its transactions: under sampling, every backend behind a balancer must keep
 * showing that state once the suite has seen it.
 */
export interface LaterRead {
  /** From the answer of the round that first showed it to the start of this read (a lower bound on the time between the two answers). */
  afterMs: number;
  /** It still showed the state from before the transactions. */
  old: boolean;
  /** No block was sealed around it (preSeal): a read near a seal may meet a backend a block behind. */
  preSeal: boolean;
  /** The pending block read in the same round no longer listed the transactions: withdrawn (a flashblock reorg), not a sample of the state. */
  withdrawn: boolean;
  /** Answered more than the skew bound before any backend sealed the transactions (timing.ts, aheadOfSeal): its "latest" cannot be a sealed backend's. */
  aheadOfSeal: boolean;
  /** What it read, as shown. */
  shown: unknown;
}

/** What an attempt established for one behaviour: a pre-confirmed observation and the one after the seal. */
export interface Judged<V, A> {
  attempt: number;
  base: bigint;
  sent: SentTx[];
  /** Read in one round while nothing of it was sealed. */
  before: V;
  /**
   * The round whose reads at "latest" (and with no block parameter) are judged against the
   * pre-confirmed state: the first round before the seal, answered ahead of it, in which they
   * showed that state (behaviours.ts, showsSealed), else the round of `before`. `aheadOfSeal`:
   * answered more than the skew bound before any backend sealed the transactions (timing.ts);
   * only then is such a read evidence, as nearer the seal it may come from a backend that had
   * sealed. The pass establishes no behaviour whose only such reads were near the seal.
   */
  latestRead: { view: V; aheadOfSeal: boolean };
  /** The heads read in the rounds around it (for the pending block window). */
  headBefore: bigint;
  headAfter: bigint;
  after: A;
  /** Block number that sealed each transaction (by lower-case hash). */
  sealedIn: Map<string, bigint>;
  /** From the first send to the answer of the round that showed it. */
  visibleAfterMs: number;
  /** The reads after that round, up to the seal (empty for a behaviour not read again). */
  later?: LaterRead[];
}

export interface MissRecord {
  attempt: number;
  /** The transaction missed (the first whose miss counts) and the block that sealed it. */
  nonce: bigint;
  sealedIn: bigint;
  miss: Miss;
  /** The last value read at "pending", as shown. */
  last: unknown;
  /** A read of the view that got no answer while the node went on (why the looks stopped), in words. */
  hung?: string;
}

export type Outcome<V, A> =
  | { kind: 'judged'; judged: Judged<V, A> }
  /** An answer that is itself at odds with a rule (not a hex quantity, an error for a valid call, ...). */
  | { kind: 'malformed'; violation: Violation }
  /**
   * Sealed without ever showing at "pending", sent early and watched closely, on this many
   * attempts; or on fewer when the node then stopped sealing or answering (`thenStopped`: why).
   */
  | { kind: 'missed'; misses: MissRecord[]; thenStopped?: string }
  /**
   * The pending count depends on the address's spelling (nonce only; spelling.ts): rounds of one
   * attempt in which the two spellings consistently disagreed, seal or no seal.
   */
  | { kind: 'spelling'; evidence: SpellingEvidence }
  /** Not established: the attempts' history (never a verdict by itself); `gateway` when a gateway's lost send ended the pass. */
  | { kind: 'unjudged'; reason: string; gateway?: true };

/** The rounds that separate a spelling-dependent count from skew (spelling.ts, weighSpellings). */
export type SpellingEvidence = Extract<SpellingWeight, { kind: 'disagree' }> & { attempt: number; base: bigint; sent: number };

/**
 * The nonce readings that contradict 4.5 / 1.4 (the pass stops there: the nonce the signer must
 * use could not be had): a "pending" count below the "latest" count read just before it, on two
 * reads of the pair; or "nonce too low" for the nonce the pending count gave, re-read once.
 */
export type NonceContradiction =
  | { kind: 'pending-below-latest'; reads: Array<{ latest: bigint; pending: bigint }> }
  | { kind: 'nonce-too-low'; base: bigint; reread: bigint; refusal: string; error?: unknown }
  /** The count itself was not a quantity (or not answered as one). */
  | { kind: 'malformed'; violation: Violation };

/** Why the pass ended before everything was established, once, for every check. */
export type Stop =
  /** The node accepted the transactions but sealed no block for several block intervals. */
  | { cause: 'stalled'; reason: string }
  /** The node stopped answering (no HTTP answer). */
  | { cause: 'no-answer'; reason: string }
  /** The node refused the signer's transactions. */
  | { cause: 'refused'; reason: string }
  /** The gateway in front of the node answered a send (502/503/504) on every try: that nonce is lost. */
  | { cause: 'gateway'; reason: string }
  /** Nothing could be observed: a helper method, funds, the spend cap, the run stopped. */
  | { cause: 'unobservable'; reason: string };

/** The chart data of the latency check (the report renders it): times in ms from the first send. */
export interface Timeline {
  flashblockMs?: number;
  blockTimeMs?: number;
  sends: Array<{ method: string; sentAtMs: number; visibleAtMs?: number; sealedAtMs?: number }>;
}

export interface PassResult {
  /** Lines every check shows (alignment, attempts, timings). */
  notes: string[];
  /** How many attempts the pass made (each sends the whole batch again). */
  attempts: number;
  /** Nonce readings that contradict 4.5 / 1.4: the pass stopped there. */
  nonce?: NonceContradiction;
  /** Why the pass ended early: every behaviour not established shares it. */
  stop?: Stop;
  /** eth_estimateGas at "latest" of the same call into an address without code. */
  plain?: bigint;
  outcomes: { [B in Behaviour]?: Outcome<Views[B], Afters[B]> };
  latency: {
    /** Per spec method: from eth_sendRawTransaction to the answer of the first pre-seal round that showed it. */
    samples: Record<string, number[]>;
    timeline: Timeline;
    rtt?: Percentiles;
  };
}

/** A miss in words, with its timeline. */
export function describeMiss(b: Behaviour, m: MissRecord): string {
  const method = METHOD_OF[b];
  const margin = Math.round(m.miss.marginMs);
  // The margin runs from the send's answer to the last read that still saw the block unsealed:
  // a send answered after that read (a slow or retried send) may have been sealed before it was answered.
  const sent =
    margin >= 0
      ? `accepted ${margin} ms or more before block ${toQuantity(m.sealedIn)} sealed it`
      : `accepted only ${-margin} ms after the last read that still saw block ${toQuantity(m.sealedIn)} unsealed had started (it may have been sealed before its send was answered)`;
  const looked =
    m.miss.looks === 0
      ? `with no look at "pending" with ${method} between its acceptance and the seal`
      : m.miss.looks === 1
        ? `never pre-confirmed in the one look with ${method}, ${Math.round(m.miss.maxGapMs)} ms before the last read that saw the block unsealed (that look: ${show(m.last)})`
        : `never pre-confirmed in ${m.miss.looks} looks with ${method} at most ${Math.round(m.miss.maxGapMs)} ms apart (last look before the seal${m.miss.lastLookMs === undefined ? '' : `, begun ${Math.round(m.miss.lastLookMs)} ms after its acceptance`}: ${show(m.last)})`;
  return `attempt ${m.attempt}: nonce ${m.nonce} ${sent}, ${looked}` + (m.hung ? `; ${m.hung}` : '');
}
