// The pre-confirmation pass (spec 1.4; "pending" in 4.3-4.6): every behaviour the preconf checks
// judge is observed in ONE session with the signer — one aligned send window, one observation
// phase, one seal, one after-seal verification — and each check judges its own part of the
// outcome (suites/preconf). A failed attempt is retried as a whole.
//
// An attempt:
//   1. the base nonce: "latest" count, then the "pending" count read just after it (a pending
//      count below it is direct evidence against 4.5 / 1.4), waiting until nothing of the
//      signer is unsealed;
//   2. five transactions signed with consecutive nonces from the pending count (a self-transfer,
//      a deployment returning 42, a deployment writing a storage slot, two self-transfers);
//   3. the send window: right after a seal is seen, the first transaction alone (a "nonce too
//      low" for the pending count, re-read once, is direct evidence), then the others at once;
//   4. rounds of reads, every POLL_INTERVAL_MS, each with the "latest" block and every view not
//      yet established: pending and latest counts, pending and latest code of both
//      deployments, pending and latest estimates of a call into the SSTORE contract, pending and
//      latest block receipts with eth_getBlockByNumber("pending"). A view counts as pre-confirmed
//      only in a round bracketed by unchanged heads with none of its transactions sealed
//      (timing.ts, preSeal);
//   5. the seal: each transaction is sealed when a block with a non-zero hash, at or below the
//      head, holds it — never because a receipt exists (Flashblocks nodes answer receipts of
//      pre-confirmed transactions with a zero block hash);
//   6. the reads after the seal, re-read (head first, then a skewPause) until they show the
//      sealed state or the pauses run out: behind a load balancer a read right after the seal
//      may reach a backend that has not imported the sealing block yet (issue 9), so a stale
//      answer is never a failure on first sight; one that stays stale leaves the behaviour
//      unjudged in that attempt.
// A transaction sealed without its view ever showing it at "pending" before ITS block sealed is a
// miss; it counts when it was sent early and watched closely (timing.ts, weighTxMisses), and two
// counted misses are a failure. Anything else
// is retried, then left inconclusive with the timeline.
import type { Hex } from 'viem';
import type { SharedScope, CheckContext } from '../check';
import { blocked, Blocked, CheckFailure, fail, Inconclusive, inconclusive, skip } from '../verdict';
import { randomAddress, toQuantity } from '../hex';
import { show } from '../json';
import { skewPause, SKEW_PAUSES_MS, type BlockView } from '../chain';
import { initCodeFor, isNonceTooLow, RUNTIME_RETURNS_42, RUNTIME_SSTORE, Session, SSTORE_MIN_GAS, type Receipt, type Sent, type Signed } from './session';
import {
  blockPollMs,
  EVIDENCE_ATTEMPTS,
  MAX_ATTEMPTS,
  percentiles,
  POLL_INTERVAL_MS,
  preSeal,
  realClock,
  SEAL_WAIT_MS,
  ALIGN_WAIT_MS,
  SPEC_REFRESH_MS,
  weighTxMisses,
  type Clock,
  type Miss,
  type Percentiles,
  type Round,
} from './timing';

/** The run-scoped key of the pass (CheckContext.shared). */
export const PASS_KEY = 'preconf.pass';

/** Where exchanges are shown: setup (sizing, nonces, sends), the head reads, and one lane per behaviour. */
export type Lane = 'setup' | 'heads' | Behaviour;
export type Behaviour = 'nonce' | 'code' | 'estimate' | 'receipts';
export const BEHAVIOURS: readonly Behaviour[] = ['nonce', 'code', 'estimate', 'receipts'];

/** The spec method each behaviour is read with (latency is reported per method). */
export const METHOD_OF: Record<Behaviour, string> = { nonce: 'eth_getTransactionCount', code: 'eth_getCode', estimate: 'eth_estimateGas', receipts: 'eth_getBlockReceipts' };

/** The transactions of one attempt, in nonce order from the pending count. */
export const TX_PLAN = ['transfer', 'deploy-returns-42', 'deploy-sstore', 'transfer', 'transfer'] as const;
export type Role = (typeof TX_PLAN)[number];
export const TX_COUNT = TX_PLAN.length;
/** What each deployment's runtime is, in the order of the code views. */
export const DEPLOYED: ReadonlyArray<[Role, Hex]> = [
  ['deploy-returns-42', RUNTIME_RETURNS_42],
  ['deploy-sstore', RUNTIME_SSTORE],
];

export interface SentTx extends Sent {
  role: Role;
}

// ---- what each behaviour reads ----------------------------------------------------------------

export interface NonceView {
  pending: bigint;
  latest: bigint;
}
export interface CodeView {
  /** One per deployment, in DEPLOYED order (lower-cased). */
  pending: string[];
  latest: string[];
}
export interface EstimateView {
  pending: bigint;
  latest: bigint;
}
export interface ReceiptsView {
  pending: Receipt[];
  latest: Receipt[];
  /** What eth_getBlockByNumber("pending") said its number was (undefined: not offered). */
  pendingBlock?: bigint;
}
export interface NonceAfter {
  pending: bigint;
  latest: bigint;
}
export interface CodeAfter {
  latest: string[];
}
export interface EstimateAfter {
  latest: bigint;
}
export interface ReceiptsAfter {
  /** eth_getBlockReceipts of each block that sealed one of the transactions. */
  blocks: Array<{ number: bigint; receipts: Receipt[]; /** What the node said of a block it did not know (yet); never in a judged outcome. */ unknown?: string }>;
}

interface Views {
  nonce: NonceView;
  code: CodeView;
  estimate: EstimateView;
  receipts: ReceiptsView;
}
interface Afters {
  nonce: NonceAfter;
  code: CodeAfter;
  estimate: EstimateAfter;
  receipts: ReceiptsAfter;
}

/** One attempt's transactions and what their views compare with. */
export interface AttemptTxs {
  base: bigint;
  sent: SentTx[];
  /** The call into the SSTORE deployment whose estimate is compared. */
  call: Record<string, unknown>;
}

/** What an attempt established for one behaviour: a pre-confirmed observation and the one after the seal. */
export interface Judged<V, A> {
  attempt: number;
  base: bigint;
  sent: SentTx[];
  /** Read in one round while nothing of it was sealed. */
  before: V;
  /** The heads read in the rounds around it (for the pending block window). */
  headBefore: bigint;
  headAfter: bigint;
  after: A;
  /** Block number that sealed each transaction (by lower-case hash). */
  sealedIn: Map<string, bigint>;
  /** From the first send to the answer of the round that showed it. */
  visibleAfterMs: number;
}

export interface MissRecord {
  attempt: number;
  /** The transaction missed (the first whose miss counts) and the block that sealed it. */
  nonce: bigint;
  sealedIn: bigint;
  miss: Miss;
  /** The last value read at "pending", as shown. */
  last: unknown;
}

export type Outcome<V, A> =
  | { kind: 'judged'; judged: Judged<V, A> }
  /** An answer that is itself a violation (not a hex quantity, an error for a valid call, ...). */
  | { kind: 'malformed'; failure: Failure }
  /** Sealed without ever showing at "pending" although sent early and watched closely, on EVIDENCE_ATTEMPTS attempts. */
  | { kind: 'missed'; misses: MissRecord[] }
  | { kind: 'unjudged'; reason: string; blockedBy?: typeof NONCE_ROOT };

/** The chart data of the latency check (the report renders it): times in ms from the first send. */
export interface Timeline {
  flashblockMs?: number;
  blockTimeMs?: number;
  sends: Array<{ method: string; sentAtMs: number; visibleAtMs?: number; sealedAtMs?: number }>;
}

export interface PassResult {
  /** Lines every check shows (alignment, attempts, timings). */
  notes: string[];
  /** Direct evidence against 4.5 / 1.4 from the nonce reads or the send (fails the nonce check; the others are not judged). */
  nonceEvidence?: Failure;
  /** The node refused the signer's transactions: nothing after that could be judged. */
  refused?: string;
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

// ---- the behaviours ----------------------------------------------------------------------------

interface Def<V, A> {
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
}

const deployments = (a: AttemptTxs): SentTx[] => DEPLOYED.map(([role]) => a.sent.find((t) => t.role === role)!);
const sstore = (a: AttemptTxs): SentTx => a.sent.find((t) => t.role === 'deploy-sstore')!;
const hashOf = (r: Receipt): string => (typeof r.transactionHash === 'string' ? r.transactionHash.toLowerCase() : '');

const DEFS: { [B in Behaviour]: Def<Views[B], Afters[B]> } = {
  nonce: {
    relevant: (a) => a.sent,
    read: async (s) => {
      const [pending, latest] = await Promise.all([s.count('nonce', 'pending'), s.count('nonce', 'latest')]);
      return { pending, latest };
    },
    visible: (v, a) => v.pending >= a.base + BigInt(a.sent.length),
    shows: (v, a) => a.sent.filter((t) => v.pending > t.nonce),
    after: async (s) => {
      const [pending, latest] = await Promise.all([s.count('nonce', 'pending'), s.count('nonce', 'latest')]);
      return { pending, latest };
    },
    // Only what a backend that has not imported the sealing block shows (counts below the sealed
    // count) is re-read; a count above it, or pending and latest apart, is for the check to judge.
    unsettled: (after, a) => {
      const sealed = a.base + BigInt(a.sent.length);
      return after.latest < sealed || after.pending < sealed ? `counts pending ${after.pending}, latest ${after.latest} (sealed count ${sealed})` : undefined;
    },
    shown: (v) => ({ pending: toQuantity(v.pending), latest: toQuantity(v.latest) }),
  },
  code: {
    relevant: deployments,
    read: async (s, a) => {
      const reads = await Promise.all(deployments(a).flatMap((t) => [s.code('code', t.contractAddress!, 'pending'), s.code('code', t.contractAddress!, 'latest')]));
      return { pending: reads.filter((_, i) => i % 2 === 0), latest: reads.filter((_, i) => i % 2 === 1) };
    },
    visible: (v) => v.pending.every((c) => c !== '0x'),
    shows: (v, a) => deployments(a).filter((_, i) => v.pending[i] !== '0x'),
    after: async (s, a) => ({ latest: await Promise.all(deployments(a).map((t) => s.code('code', t.contractAddress!, 'latest'))) }),
    // No code yet is what a lagging backend shows; other code is for the check to judge.
    unsettled: (after) => (after.latest.some((c) => c === '0x') ? `"latest" code ${after.latest.join(', ')}` : undefined),
    shown: (v, a) => Object.fromEntries(deployments(a).map((t, i) => [t.contractAddress!, { pending: v.pending[i], latest: v.latest[i] }])),
  },
  estimate: {
    relevant: (a) => [sstore(a)],
    read: async (s, a) => {
      const [pending, latest] = await Promise.all([s.estimate('estimate', a.call, 'pending'), s.estimate('estimate', a.call, 'latest')]);
      return { pending, latest };
    },
    visible: (v) => v.pending >= v.latest + SSTORE_MIN_GAS,
    shows: (v, a) => (v.pending >= v.latest + SSTORE_MIN_GAS ? [sstore(a)] : []),
    after: async (s, a) => ({ latest: await s.estimate('estimate', a.call, 'latest') }),
    // At most the code-less estimate: the backend does not have the contract yet. Anything above
    // it but short of the SSTORE is for the check to judge.
    unsettled: (after, _a, _sealedIn, plain) => (plain !== undefined && after.latest <= plain ? `"latest" estimate ${after.latest} (code-less ${plain})` : undefined),
    shown: (v) => ({ pending: v.pending.toString(), latest: v.latest.toString() }),
  },
  receipts: {
    relevant: (a) => a.sent,
    read: async (s) => {
      const [pending, latest, pendingBlock] = await Promise.all([s.receipts('receipts', 'pending'), s.receipts('receipts', 'latest'), s.pendingBlockNumber('receipts')]);
      return { pending, latest, pendingBlock };
    },
    visible: (v, a) => a.sent.every((t) => v.pending.some((r) => hashOf(r) === t.hash.toLowerCase())),
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
  },
};

/**
 * A violation seen in an answer: a CheckFailure, or Blocked when another check states its rule
 * (eth_getBlockReceipts refused with HTTP 403 under --profile dedicated: see dedicated403).
 */
type Failure = CheckFailure | Blocked;
type Captured<T> = { value: T } | { failure: Failure };

/** Runs a read; a violation in its answer (a Failure) is kept for the behaviour's own check. */
async function capture<T>(f: () => Promise<T>): Promise<Captured<T>> {
  try {
    return { value: await f() };
  } catch (err) {
    if (err instanceof CheckFailure || err instanceof Blocked) return { failure: err };
    throw err;
  }
}

// ---- one attempt -------------------------------------------------------------------------------

interface Track {
  looks: number[];
  values: Map<number, unknown>;
  failure?: Failure;
  /** A round that showed it, waiting for the round after to bracket it. */
  awaiting?: number;
  final?: number;
}

type AttemptEnd =
  | { kind: 'observed'; results: { [B in Behaviour]?: Outcome<Views[B], Afters[B]> | { kind: 'miss'; record: MissRecord } | { kind: 'unclear'; reason: string } } }
  | { kind: 'void'; reason: string }
  | { kind: 'nonce-evidence'; failure: Failure }
  | { kind: 'refused'; reason: string }
  /** Nothing more can be attempted (the spend cap, a wait that ran out): what is judged stays. */
  | { kind: 'stopped'; reason: string };

interface PassState {
  s: Session;
  time: Clock;
  signal: AbortSignal;
  behaviours: Behaviour[];
  gas: Record<Role, bigint>;
  notes: string[];
  /** The first send of the pass: the timeline's zero. */
  t0?: number;
  aligned: boolean;
  rttSamples: number[];
  samples: Record<string, number[]>;
  timeline: Timeline;
  blockTimes: number[];
  /** eth_estimateGas at "latest" of the call into an address without code (undefined: not read). */
  plain?: bigint;
}

const sleep = (st: PassState, ms: number) => st.time.sleep(Math.max(0, ms), st.signal);
const rel = (st: PassState, t: number) => Math.round(t - (st.t0 ?? t));

/** The "latest" block, timed (its duration is a round-trip sample). */
async function readHead(st: PassState): Promise<{ block: BlockView; startedAt: number; endedAt: number }> {
  const startedAt = st.time.now();
  const block = await st.s.block('heads', 'latest');
  const endedAt = st.time.now();
  st.rttSamples.push(endedAt - startedAt);
  return { block, startedAt, endedAt };
}

/**
 * The base nonce: "latest", then "pending" read just after it. A pending count below it is
 * direct evidence (4.5, 1.4) once the same pair of reads shows it again (so one answer from a
 * replica a block behind is not taken for the node's rule); a pending count above it means
 * something of the signer is still unsealed, so it waits (bounded) until everything this session
 * sent is sealed.
 */
async function readBase(st: PassState, latestFirst?: bigint): Promise<bigint> {
  const started = st.time.now();
  let latestHint = latestFirst;
  let below: string | undefined;
  for (;;) {
    const latest = latestHint ?? (await st.s.count('nonce', 'latest'));
    latestHint = undefined;
    const pending = await st.s.count('nonce', 'pending');
    if (pending < latest) {
      const seen = `"pending" ${pending} right after "latest" ${latest}`;
      if (below === undefined) {
        below = seen;
        // A replica a block behind may have answered one of them: re-read after a pause, as the
        // read-only check does (chain.ts skewPause), before taking it as evidence.
        await skewPause(st.s.scope, 0);
        continue;
      }
      fail(
        `eth_getTransactionCount(signer, "pending") answered ${pending} right after "latest" answered ${latest} (twice: ${below}, then ${seen}): ` +
          'the pending count includes everything sealed plus what is pre-confirmed (1.4), and it is the nonce to use next (4.5), so it can never be below the latest count',
        { expected: `>= ${toQuantity(latest)}`, actual: toQuantity(pending) },
      );
    }
    if (pending === latest && latest > st.s.highestNonce) return pending;
    const waited = st.time.now() - started;
    if (waited >= SEAL_WAIT_MS) {
      inconclusive(`the signer still had unsealed transactions after ${Math.round(waited)} ms (pending count ${pending}, latest ${latest}, highest nonce sent ${st.s.highestNonce}); is another process using this key?`);
    }
    await sleep(st, blockPollMs(waited));
  }
}

/**
 * Waits for a seal, so the sends start a block interval; the round of the read that saw it. A
 * seal is a head above every head read before: behind a load balancer a backend a block behind
 * may answer between two current ones, and its head going back up is no seal.
 */
async function align(st: PassState): Promise<{ round: Round; sealSeen: boolean }> {
  let prev = await readHead(st);
  const highest = prev.block.number!;
  const started = st.time.now();
  if (!st.aligned) return { round: { startedAt: prev.startedAt, endedAt: prev.endedAt, head: prev.block.number! }, sealSeen: false };
  for (;;) {
    await sleep(st, POLL_INTERVAL_MS - (st.time.now() - prev.startedAt));
    const cur = await readHead(st);
    if (cur.block.number! > highest) return { round: { startedAt: cur.startedAt, endedAt: cur.endedAt, head: cur.block.number! }, sealSeen: true };
    prev = cur;
    if (st.time.now() - started >= ALIGN_WAIT_MS) {
      st.aligned = false;
      st.notes.push(`no block was sealed within ${ALIGN_WAIT_MS} ms, so the sends could not be aligned with a seal; later attempts send at once`);
      return { round: { startedAt: cur.startedAt, endedAt: cur.endedAt, head: highest }, sealSeen: false };
    }
  }
}

/** Waits (bounded, never throwing) until everything this session sent is sealed, so the next user of the key starts clean. */
async function settle(st: PassState): Promise<void> {
  const started = st.time.now();
  try {
    while (!st.signal.aborted && st.time.now() - started < SEAL_WAIT_MS) {
      if ((await st.s.count('setup', 'latest')) > st.s.highestNonce) return;
      await sleep(st, blockPollMs(st.time.now() - started));
    }
  } catch {
    // a later attempt or run waits again and says so
  }
}

/**
 * The after-seal reads of one behaviour, re-read until they show the sealed state: behind a load
 * balancer a read right after the seal may reach a backend that has not imported the sealing
 * block (its "latest" one behind, the block unknown). Issue 9: never a failure on first sight;
 * the head is re-read, then the reads after a skewPause, at most SKEW_PAUSES_MS.length times.
 * Reads that still do not show it leave the behaviour unjudged in this attempt (unsettled); an
 * answer that is itself a violation on every read is kept for the check (failure).
 */
async function afterSeal(st: PassState, b: Behaviour, a: AttemptTxs, sealedIn: Map<string, bigint>): Promise<Captured<unknown> | { unsettled: string }> {
  const def = DEFS[b] as Def<unknown, unknown>;
  const seen: string[] = [];
  for (let retry = 0; ; retry++) {
    const read = await capture(() => def.after(st.s, a, sealedIn));
    const stale = 'failure' in read ? read.failure.message : def.unsettled(read.value, a, sealedIn, st.plain);
    if (stale === undefined) return read;
    if (retry >= SKEW_PAUSES_MS.length || st.signal.aborted) {
      if ('failure' in read) return read;
      const sealed = [...new Set(def.relevant(a).map((t) => sealedIn.get(t.hash.toLowerCase())!))].map(toQuantity).join(', ');
      return {
        unsettled:
          `${b}: after the seal (block ${sealed}) the reads still did not show the sealed state in ${retry + 1} reads over ${SKEW_PAUSES_MS.slice(0, retry).reduce((x, y) => x + y, 0)} ms ` +
          `(${seen.concat(stale).join('; then ')}): a backend behind a load balancer that has not imported the block cannot be told from a node that does not catch up, so this is not judged`,
      };
    }
    // The head first (it shows whether the sealing block is known at all), then the pause.
    const head = await capture(() => st.s.block('heads', 'latest'));
    seen.push(`${stale} with the head read at ${'value' in head ? toQuantity(head.value.number!) : 'nothing'}`);
    await skewPause(st.s.scope, retry);
  }
}

async function attempt(st: PassState, n: number, latestFirst?: bigint): Promise<AttemptEnd> {
  const { s } = st;
  // 1. the base nonce (evidence against 4.5 / 1.4 ends the pass)
  const based = await capture(() => readBase(st, latestFirst));
  if ('failure' in based) return { kind: 'nonce-evidence', failure: based.failure };
  const base = based.value;

  // 2. sign, after reserving the worst case
  const limits = TX_PLAN.map((r) => st.gas[r]);
  const refusedBudget = s.reserve(limits);
  if (refusedBudget) {
    // In scope (a key was given) but not judged: inconclusive, so the run cannot read as conformant.
    if (n === 1) inconclusive(`${refusedBudget} (raise --max-spend-wei to judge pre-confirmed state)`);
    return { kind: 'stopped', reason: refusedBudget };
  }
  const signed: Signed[] = await Promise.all(
    TX_PLAN.map((role, i) => {
      const runtime = DEPLOYED.find(([r]) => r === role)?.[1];
      return s.sign({ ...(runtime ? { data: initCodeFor(runtime) } : { to: s.address }), nonce: base + BigInt(i), gas: st.gas[role] });
    }),
  );

  // 3. the send window, right after a seal
  const aligned = await align(st);
  const rounds: Round[] = [aligned.round];
  const first = await s.post('setup', signed[0]);
  if ('refused' in first) {
    if (isNonceTooLow(first.error)) {
      // Re-read once: a second sender of this key can only have raised the count.
      const again = await capture(() => s.count('nonce', 'pending'));
      if ('failure' in again) return { kind: 'nonce-evidence', failure: again.failure };
      if (again.value <= base) {
        return {
          kind: 'nonce-evidence',
          failure: new CheckFailure(
            `${first.refused}, although eth_getTransactionCount(signer, "pending") answered ${base} before the send and ${again.value} when re-read after it: ` +
              'the pending count is not the nonce to use next (4.5) and leaves out a transaction the node already holds (1.4)',
            { expected: `nonce ${base} accepted (the pending count)`, actual: first.error ?? first.refused },
          ),
        };
      }
      return { kind: 'void', reason: `nonce ${base} was "too low" but the pending count rose to ${again.value} meanwhile: another sender of this key may have used it` };
    }
    return { kind: 'refused', reason: first.refused };
  }
  const rest = await Promise.all(signed.slice(1).map((t) => s.post('setup', t)));
  const refusal = rest.find((p): p is Extract<typeof p, { refused: string }> => 'refused' in p);
  if (refusal) {
    await settle(st);
    return { kind: 'refused', reason: refusal.refused };
  }
  const sent: SentTx[] = [first, ...rest].map((p, i) => ({ ...(p as { sent: Sent }).sent, role: TX_PLAN[i] }));
  st.t0 ??= sent[0].startedAt;
  const sstoreTx = sent.find((t) => t.role === 'deploy-sstore')!;
  const a: AttemptTxs = { base, sent, call: { from: s.address, to: sstoreTx.contractAddress!, value: '0x0' } };
  const acceptedBy = Math.max(...sent.map((t) => t.acceptedAt));

  // 4. rounds of reads until everything is established or sealed
  const tracks = new Map<Behaviour, Track>(st.behaviours.map((b) => [b, { looks: [], values: new Map() }]));
  const sealedIn = new Map<string, bigint>();
  const sealSeenAt = new Map<string, number>();
  const firstSeen = new Map<string, number>(); // `${method} ${hash}` -> round end
  const pendingShows: Array<{ round: number; method: string; txs: SentTx[] }> = [];
  let knownHead = aligned.round.head;
  let highestHead = aligned.round.head;
  let deadline = sent[0].startedAt + SEAL_WAIT_MS;
  const firstSealed = (txs: SentTx[]): bigint | undefined => {
    let min: bigint | undefined;
    for (const t of txs) {
      const b = sealedIn.get(t.hash.toLowerCase());
      if (b !== undefined && (min === undefined || b < min)) min = b;
    }
    return min;
  };
  const active = (b: Behaviour): boolean => {
    const t = tracks.get(b)!;
    return t.final === undefined && t.failure === undefined && t.awaiting === undefined && firstSealed(DEFS[b].relevant(a)) === undefined;
  };

  for (let i = 1; ; i++) {
    const reading = st.behaviours.filter(active);
    const allSealed = sent.every((t) => sealedIn.has(t.hash.toLowerCase()));
    const awaiting = st.behaviours.some((b) => tracks.get(b)!.awaiting !== undefined);
    if (allSealed && !awaiting) break;
    if (st.time.now() >= deadline) break;
    const startedAt = st.time.now();
    const [head, ...reads] = await Promise.all([st.s.block('heads', 'latest'), ...reading.map((b) => capture(() => (DEFS[b] as Def<unknown, unknown>).read(s, a)))]);
    const endedAt = st.time.now();
    st.rttSamples.push(endedAt - startedAt);
    // A round's head is the highest read so far: a backend a block behind answering "latest"
    // must not make a round after a seal look like one before it (preSeal compares heads).
    if (head.number! > highestHead) highestHead = head.number!;
    rounds.push({ startedAt, endedAt, head: highestHead });

    // Seals: every block from the last known head up to this one, read by number when skipped.
    if (head.number! > knownHead) {
      const numbers: bigint[] = [];
      for (let k = knownHead + 1n; k < head.number!; k++) numbers.push(k);
      const between = await Promise.all(numbers.map((k) => st.s.block('heads', toQuantity(k))));
      for (const blk of [...between, head]) {
        if (!blk.hash || /^0x0*$/.test(blk.hash)) break; // not sealed yet as far as we can tell
        for (const t of sent) {
          const h = t.hash.toLowerCase();
          if (!sealedIn.has(h) && blk.txs.includes(h)) {
            sealedIn.set(h, blk.number!);
            sealSeenAt.set(h, endedAt);
          }
        }
        knownHead = blk.number!;
      }
      // The first seal after the aligned one gives the block time; the deadline follows it.
      if (aligned.sealSeen && head.number === aligned.round.head + 1n && st.blockTimes.length < n) {
        const blockTime = endedAt - aligned.round.endedAt;
        st.blockTimes.push(blockTime);
        deadline = Math.min(deadline, sent[0].startedAt + 3 * blockTime + 2000);
      }
    }

    reading.forEach((b, k) => {
      const t = tracks.get(b)!;
      const r = reads[k];
      if ('failure' in r) {
        t.failure = r.failure;
        return;
      }
      t.looks.push(i);
      t.values.set(i, r.value);
      const def = DEFS[b] as Def<unknown, unknown>;
      if (def.visible(r.value, a)) t.awaiting = i;
      pendingShows.push({ round: i, method: METHOD_OF[b], txs: def.shows(r.value, a) });
    });

    // The round before this one is now bracketed (or not).
    for (const b of st.behaviours) {
      const t = tracks.get(b)!;
      if (t.awaiting === undefined || t.awaiting >= i) continue;
      if (preSeal(rounds, t.awaiting, firstSealed(DEFS[b].relevant(a)))) t.final = t.awaiting;
      t.awaiting = undefined;
    }
    for (const p of pendingShows.filter((x) => x.round === i - 1)) {
      for (const tx of p.txs) {
        const key = `${p.method} ${tx.hash}`;
        if (!firstSeen.has(key) && preSeal(rounds, p.round, sealedIn.get(tx.hash.toLowerCase()))) firstSeen.set(key, rounds[p.round].endedAt);
      }
    }

    const establishing = st.behaviours.some((b) => active(b) || tracks.get(b)!.awaiting !== undefined);
    const since = st.time.now() - startedAt;
    await sleep(st, (establishing ? POLL_INTERVAL_MS : blockPollMs(st.time.now() - sent[0].startedAt)) - since);
  }

  // 5./6. after the seal: the reads of every established behaviour whose transactions are sealed
  const results: Extract<AttemptEnd, { kind: 'observed' }>['results'] = {};
  const judgedNow = st.behaviours.filter((b) => tracks.get(b)!.final !== undefined && DEFS[b].relevant(a).every((t) => sealedIn.has(t.hash.toLowerCase())));
  const afters = await Promise.all(judgedNow.map((b) => afterSeal(st, b, a, sealedIn)));
  const timelineNote: string[] = [];
  for (const b of st.behaviours) {
    const t = tracks.get(b)!;
    const def = DEFS[b] as Def<unknown, unknown>;
    const rel = def.relevant(a);
    const k = judgedNow.indexOf(b);
    if (t.failure) {
      results[b] = { kind: 'malformed', failure: t.failure };
    } else if (k >= 0) {
      const after = afters[k];
      if ('failure' in after) results[b] = { kind: 'malformed', failure: after.failure };
      else if ('unsettled' in after) results[b] = { kind: 'unclear', reason: `attempt ${n}: ${after.unsettled}` };
      else {
        const c = t.final!;
        (results as Record<string, unknown>)[b] = {
          kind: 'judged',
          judged: { attempt: n, base, sent, before: t.values.get(c), headBefore: rounds[c - 1].head, headAfter: rounds[c + 1].head, after: after.value, sealedIn, visibleAfterMs: Math.round(rounds[c].endedAt - sent[0].startedAt) },
        };
        timelineNote.push(`${b} visible +${Math.round(rounds[c].endedAt - sent[0].startedAt)} ms`);
      }
    } else if (t.final !== undefined) {
      results[b] = { kind: 'unclear', reason: `attempt ${n}: ${b} showed at "pending" but its transactions were not all sealed within the wait` };
    } else {
      const sealed = firstSealed(rel);
      const shownAt = (round: number | undefined) => (round !== undefined ? def.shown(t.values.get(round), a) : undefined);
      if (sealed === undefined) {
        const last = shownAt(t.looks[t.looks.length - 1]);
        results[b] = { kind: 'unclear', reason: `attempt ${n}: ${b} neither showed at "pending" nor was sealed within ${Math.round(st.time.now() - sent[0].startedAt)} ms of the first send (last read ${show(last)})` };
      } else {
        // Each transaction against the block that sealed IT: one shown before its own seal is no
        // miss, although the view never showed them all at once (a later one may land a block
        // later). A read that showed it but that a seal may have preceded proves nothing either
        // way: only pre-seal rounds count.
        const misses = weighTxMisses(
          rounds,
          t.looks,
          rel.map((tx) => ({ tx, acceptedAt: tx.acceptedAt, sealedIn: sealedIn.get(tx.hash.toLowerCase()), shownIn: t.looks.filter((i) => def.shows(t.values.get(i), a).includes(tx)) })),
        );
        const pick = misses.find((m) => m.miss.counts) ?? misses[0];
        if (pick) results[b] = { kind: 'miss', record: { attempt: n, nonce: pick.tx.nonce, sealedIn: pick.sealedIn, miss: pick.miss, last: shownAt(pick.miss.lastLook) } };
        else {
          const blocks = [...new Set(rel.map((tx) => sealedIn.get(tx.hash.toLowerCase())).filter((x): x is bigint => x !== undefined))].map(toQuantity).join(', ');
          results[b] = { kind: 'unclear', reason: `attempt ${n}: ${b}: no transaction was sealed unseen (each showed at "pending" before its own block sealed, or was sealed before the first read), but the view never showed them all before the first seal (sealed in ${blocks})` };
        }
      }
    }
  }

  // The latency samples and the chart.
  for (const b of st.behaviours) {
    const method = METHOD_OF[b];
    const txs = b === 'code' ? deployments(a) : b === 'estimate' ? [sstoreTx] : sent;
    for (const tx of txs) {
      const seen = firstSeen.get(`${method} ${tx.hash}`);
      const sealedAt = sealSeenAt.get(tx.hash.toLowerCase());
      if (seen !== undefined) (st.samples[method] ??= []).push(Math.round(seen - tx.startedAt));
      st.timeline.sends.push({
        method,
        sentAtMs: rel(st, tx.startedAt),
        ...(seen !== undefined ? { visibleAtMs: rel(st, seen) } : {}),
        ...(sealedAt !== undefined ? { sealedAtMs: rel(st, sealedAt) } : {}),
      });
    }
  }
  const sealedBlocks = [...new Set(sealedIn.values())].map(toQuantity).join(', ');
  st.notes.push(
    `attempt ${n}: ${aligned.sealSeen ? `sent right after the seal of block ${toQuantity(aligned.round.head)}` : `sent unaligned (head ${toQuantity(aligned.round.head)})`}, ` +
      `nonces ${base}..${base + BigInt(sent.length - 1)} accepted within ${Math.round(acceptedBy - sent[0].startedAt)} ms; ${timelineNote.join(', ') || 'nothing established at "pending"'}; ` +
      `sealed in ${sealedBlocks || 'no block'} (${sent.filter((t) => sealedIn.has(t.hash.toLowerCase())).length}/${sent.length} transactions, ${rounds.length - 1} rounds of reads)`,
  );
  return { kind: 'observed', results };
}

// ---- the pass ------------------------------------------------------------------------------------

/**
 * Runs the pass. Skips (every preconf check) when the signer cannot pay or the spend cap refuses
 * the first attempt; inconclusive when a method the observation relies on does not answer.
 */
export async function runPass(scope: SharedScope, time: Clock = realClock): Promise<PassResult> {
  const s = new Session(scope, time);
  const behaviours = BEHAVIOURS.filter((b) => b !== 'receipts' || scope.settings.profile === 'dedicated');
  const st: PassState = { s, time, signal: scope.signal, behaviours, gas: {} as Record<Role, bigint>, notes: [], aligned: true, rttSamples: [], samples: {}, timeline: { flashblockMs: SPEC_REFRESH_MS, sends: [] }, blockTimes: [] };
  const outcomes: PassResult['outcomes'] = {};
  const misses = new Map<Behaviour, MissRecord[]>();
  const unclear = new Map<Behaviour, string[]>();
  const result = (): PassResult => {
    const rtt = percentiles(st.rttSamples);
    if (st.blockTimes.length) st.timeline.blockTimeMs = Math.round([...st.blockTimes].sort((x, y) => x - y)[Math.floor(st.blockTimes.length / 2)]);
    return { notes: st.notes, nonceEvidence, refused, plain, outcomes, latency: { samples: st.samples, timeline: st.timeline, ...(rtt ? { rtt } : {}) } };
  };
  let nonceEvidence: Failure | undefined;
  let refused: string | undefined;
  let plain: bigint | undefined;
  let attempts = 0;

  // One round trip: chain id and fees, the balance, gas limits, the code-less estimate, the latest count.
  const [, balance, sizes, plainRead, latestFirst] = await Promise.all([
    s.open('setup'),
    s.balance('setup'),
    Promise.all([s.gasFor('setup', { to: s.address }), s.gasFor('setup', { data: initCodeFor(RUNTIME_RETURNS_42) }), s.gasFor('setup', { data: initCodeFor(RUNTIME_SSTORE) })]).catch((err: unknown) => {
      if (err instanceof CheckFailure) inconclusive(`cannot size the transactions: ${err.message}`);
      throw err;
    }),
    // The same call into an address without code: what "latest" must estimate until the seal.
    capture(() => s.estimate('estimate', { from: s.address, to: randomAddress(), value: '0x0' }, 'latest')),
    capture(() => s.count('nonce', 'latest')),
  ]);
  st.gas = { transfer: sizes[0], 'deploy-returns-42': sizes[1], 'deploy-sstore': sizes[2] };
  st.notes.push(s.ensureFunds(balance, TX_PLAN.map((r) => st.gas[r])));
  if ('failure' in plainRead) outcomes.estimate = { kind: 'malformed', failure: plainRead.failure };
  else plain = st.plain = plainRead.value;
  if ('failure' in latestFirst) {
    nonceEvidence = latestFirst.failure;
    return finish();
  }

  for (let n = 1; n <= MAX_ATTEMPTS; n++) {
    const open = behaviours.filter((b) => outcomes[b] === undefined);
    if (open.length === 0) break;
    attempts = n;
    st.behaviours = open;
    let end: AttemptEnd;
    try {
      end = await attempt(st, n, n === 1 ? latestFirst.value : undefined);
    } catch (err) {
      // A wait that ran out or the run's deadline: what earlier attempts judged stays judged.
      if (!(err instanceof Inconclusive) || n === 1) throw err;
      end = { kind: 'stopped', reason: `attempt ${n}: ${err.message}` };
    }
    if (end.kind === 'nonce-evidence') {
      nonceEvidence = end.failure;
      break;
    }
    if (end.kind === 'refused') {
      refused = end.reason;
      break;
    }
    if (end.kind === 'stopped') {
      st.notes.push(end.reason);
      for (const b of open) (unclear.get(b) ?? unclear.set(b, []).get(b)!).push(end.reason);
      break;
    }
    if (end.kind === 'void') {
      st.notes.push(`attempt ${n}: ${end.reason}`);
      for (const b of open) (unclear.get(b) ?? unclear.set(b, []).get(b)!).push(`attempt ${n}: ${end.reason}`);
      continue;
    }
    for (const b of open) {
      const r = end.results[b];
      if (!r) continue;
      if (r.kind === 'miss') {
        const list = misses.get(b) ?? misses.set(b, []).get(b)!;
        if (r.record.miss.counts) list.push(r.record);
        else (unclear.get(b) ?? unclear.set(b, []).get(b)!).push(describeMiss(b, r.record));
        if (list.length >= EVIDENCE_ATTEMPTS) (outcomes as Record<string, unknown>)[b] = { kind: 'missed', misses: list };
      } else if (r.kind === 'unclear') {
        (unclear.get(b) ?? unclear.set(b, []).get(b)!).push(r.reason);
      } else {
        (outcomes as Record<string, unknown>)[b] = r;
      }
    }
  }
  return finish();

  function finish(): PassResult {
    for (const b of behaviours) {
      if (outcomes[b]) continue;
      const history = [...(misses.get(b) ?? []).map((m) => describeMiss(b, m)), ...(unclear.get(b) ?? [])].sort();
      const why = nonceEvidence
        ? `not judged: the nonce the signer must use could not be had (see preconf.nonce.back-to-back: ${nonceEvidence.message})`
        : refused
          ? `the node refused the signer's transactions (${refused}), so pre-confirmed state could not be observed`
          : `pre-confirmed state was not established in ${attempts} attempt(s), and not yet visible is never a failure by itself: ${history.join('; ')}`;
      (outcomes as Record<string, unknown>)[b] = { kind: 'unjudged', reason: why, ...(nonceEvidence ? { blockedBy: NONCE_ROOT } : {}) };
    }
    return result();
  }
}

/** A miss in words, with its timeline. */
export function describeMiss(b: Behaviour, m: MissRecord): string {
  const gap = Number.isFinite(m.miss.maxGapMs) ? `${Math.round(m.miss.maxGapMs)} ms` : 'no look';
  return (
    `attempt ${m.attempt}: nonce ${m.nonce} accepted ${Math.round(m.miss.marginMs)} ms or more before block ${toQuantity(m.sealedIn)} sealed it, ` +
    `never pre-confirmed in ${m.miss.looks} looks with ${METHOD_OF[b]} at most ${gap} apart (last look before the seal: ${show(m.last)})`
  );
}

/** The pass for a check: run once per run, the exchanges of `lanes` shown with the check. */
export function preconfPass(ctx: CheckContext, lanes: readonly Lane[]): Promise<PassResult> {
  return ctx.shared(PASS_KEY, ['setup', 'heads', ...lanes], (scope) => runPass(scope));
}

/** The outcome the checks judge; notes every check shows. */
export function outcomeOf<B extends Behaviour>(ctx: CheckContext, pass: PassResult, b: B): Outcome<Views[B], Afters[B]> {
  for (const line of pass.notes) ctx.note(line);
  const o = pass.outcomes[b];
  if (!o) skip(`not observed here (profile ${ctx.settings.profile})`);
  return o;
}

/**
 * The judged observation of a behaviour, or the verdict its outcome already is: a malformed
 * answer fails, two counted misses fail (`what` names the view), anything else is inconclusive.
 */
export function judgedOf<B extends Behaviour>(o: Outcome<Views[B], Afters[B]>, b: B, what: string): Judged<Views[B], Afters[B]> {
  if (o.kind === 'judged') return o.judged;
  if (o.kind === 'malformed') throw o.failure;
  if (o.kind === 'missed') {
    fail(
      `${what}: the transactions were sealed without ever showing at "pending", although sent early in the block interval and watched closely, on ${o.misses.length} attempts (pre-confirmed state must show before the seal, refreshed about every ${SPEC_REFRESH_MS} ms): ` +
        o.misses.map((m) => describeMiss(b, m)).join('; '),
      { expected: `visible at "pending" before the seal`, actual: o.misses.map((m) => m.last) },
    );
  }
  // Not observed because the nonce evidence stopped the pass: one root cause, stated by its check.
  if (o.blockedBy) blocked(o.blockedBy.root, o.reason, { section: o.blockedBy.section });
  return inconclusive(o.reason);
}

/** The check that states direct nonce evidence (4.5, 1.4); the pass stops there, so it blocks the others. */
export const NONCE_ROOT = { root: 'preconf.nonce.back-to-back', section: '4.5, 1.4' } as const;
