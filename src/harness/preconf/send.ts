// An attempt's first phase: the base nonce, the signed transactions, and the send window right
// after a seal. What the node answers that contradicts 4.5 (a pending count below latest, "nonce
// too low" for the pending count) is returned as readings; the nonce check judges them.
import { toQuantity } from '../hex';
import { capture, DEPLOYED, type AttemptTxs } from './behaviours';
import { Unobservable, Violation } from './errors';
import { TX_PLAN, type SentTx } from './evidence';
import { initCodeFor, type Posted, type Sent, type Signed } from './session';
import { isNonceTooLow } from './sends';
import { readHead, sleep, type AttemptEnd, type PassState } from './state';
import { blockPollMs, msToNextSeal, POLL_INTERVAL_MS, SHOW_MS, SKEW_BOUND_MS, SPEC_REFRESH_MS, type Round } from './timing';

/** What the pass read before its first attempt, in one round: the counts and the head. */
export interface FirstReads {
  latest: bigint;
  /** Read beside "latest", not after it: a pair at odds is read again, in order, before it is evidence. */
  pending?: bigint;
  head?: Awaited<ReturnType<typeof readHead>>;
}

/**
 * The base nonce: "latest", then "pending" read just after it. A pending count below it, on two
 * reads of the pair (one answer from a replica a block behind is not the node's rule), ends the
 * pass with those readings; a pending count above it means something of the signer is still
 * unsealed, so it waits (bounded, and only while the node seals) until everything this session
 * sent is sealed.
 */
async function readBase(st: PassState, first?: FirstReads): Promise<{ base: bigint; head?: FirstReads['head'] } | Extract<AttemptEnd, { kind: 'nonce' }>> {
  const started = st.time.now();
  let hint = first;
  let reads = 0;
  const below: Array<{ latest: bigint; pending: bigint }> = [];
  for (; ; reads++) {
    let latest: bigint;
    let pending: bigint;
    try {
      latest = hint?.latest ?? (await st.s.count('nonce', 'latest'));
      pending = hint?.pending ?? (await st.s.count('nonce', 'pending'));
      hint = undefined;
    } catch (err) {
      if (err instanceof Violation) return { kind: 'nonce', contradiction: { kind: 'malformed', violation: err } };
      throw err;
    }
    if (pending < latest) {
      below.push({ latest, pending });
      if (below.length >= 2) return { kind: 'nonce', contradiction: { kind: 'pending-below-latest', reads: below } };
      // A replica a block behind, or a backend trailing another by up to SKEW_BOUND_MS, may have
      // answered one of them: re-read once that bound and a refresh have passed, so the second
      // pair cannot come from the same trailing view (a 250 ms pause, within the bound, failed a
      // conformant fleet 400 ms apart on a loaded machine: "pending" 107 right after "latest" 109, twice).
      await sleep(st, SKEW_BOUND_MS + SPEC_REFRESH_MS);
      continue;
    }
    if (pending === latest && latest > st.s.highestNonce) {
      // Read at once: the head read with the counts stands. After waiting, the head as it is now, so the
      // seal that just sealed the signer's transactions is not taken for one to send after.
      return reads === 0 ? { base: pending, ...(first?.head ? { head: first.head } : {}) } : { base: pending, head: await readHead(st) };
    }
    const waited = st.time.now() - started;
    if (waited >= st.waits.sealMs) {
      // Say what was seen: this session's own transactions still unsealed, or a pending count
      // beyond everything this session sent (only then may another sender of the key be waiting).
      const ours = latest <= st.s.highestNonce;
      throw new Unobservable(
        ours
          ? `the node accepted this run's transactions up to nonce ${st.s.highestNonce} but had not included them in a block after ${Math.round(waited)} ms more (latest count ${latest}, pending count ${pending}), so a new attempt could not start from a sealed nonce`
          : `the pending count (${pending}) stayed above the latest count (${latest}) for ${Math.round(waited)} ms, beyond every transaction this run sent (highest nonce ${st.s.highestNonce < 0n ? 'none' : st.s.highestNonce}): transactions of this key from elsewhere were waiting, so no attempt could start from a sealed nonce`,
      );
    }
    // Waiting for a seal: a node that stopped sealing ends the pass here (readHead).
    await readHead(st);
    await sleep(st, blockPollMs(waited));
  }
}

/**
 * Where an attempt's sends start in the block interval.
 * - The first attempt of a run without samples sends at once, unless the signer's last
 *   transactions are in the head block. Waiting for a seal first would cost half a block interval
 *   on average, and the seal then still comes half an interval after the sends on average: late
 *   enough to see pre-confirmed state (200 ms refreshes) in most attempts. When it comes too soon
 *   the attempt establishes nothing (never a failure: a miss counts only when a look begun EARLY_MS
 *   after the transaction's acceptance, still before its seal, did not show it) and the next attempt is aligned. Where the seals fall
 *   is known (CheckSettings.sealGrid: the embedded reference's), a seal due within SHOW_MS is
 *   waited for instead: on a loaded machine the run's start-up left the first attempt there.
 * - Any other attempt sends right after the next seal, so its transactions have a whole interval.
 *   Never after the seal of the signer's last transactions: a backend a block behind still shows
 *   the counts from before it, which the nonce check would take for the node's. Under --samples N
 *   the first attempt too: the reads after the state first showed are the samples of it
 *   (judgeLater), and a whole interval gives them room to reach every backend.
 * - No seal within st.waits.alignMs (an idle node that seals only with transactions, or none at
 *   all): this and later attempts send at once.
 */
async function align(st: PassState, n: number, base: bigint, head?: FirstReads['head']): Promise<SendWindow['aligned']> {
  let prev = head ?? (await readHead(st));
  const now = () => ({ startedAt: prev.startedAt, endedAt: prev.endedAt, head: st.heads.highest! });
  if (!st.aligned) return { round: now() };
  if (n === 1 && (st.s.scope.settings.samples ?? 1) === 1) {
    const highest = st.heads.highest!;
    if (highest === 0n) return { round: now() };
    // Unless the signer's last transactions are in the head block: a backend a block behind still
    // shows the count from before them, which the nonce check would take for the node's "latest".
    const before = await capture(() => st.s.count('setup', toQuantity(highest - 1n)));
    if (!('value' in before && before.value === base)) {
      st.notes.push(
        `attempt 1: the signer's count at block ${toQuantity(highest - 1n)} was ${'value' in before ? before.value : 'not read'}, not ${base}: its last transactions are in the head block, so the sends wait for the next seal`,
      );
    } else {
      // Where the seals fall is known (the embedded reference's grid): a seal due within SHOW_MS
      // leaves the attempt too little time to show its transactions before it, and could not
      // make a miss count either; a spoiled attempt would cost two block intervals, this wait one
      // at most.
      const grid = st.s.scope.settings.sealGrid;
      const untilSeal = grid ? msToNextSeal(grid, Date.now()) : Infinity;
      if (untilSeal >= SHOW_MS) return { round: now() };
      st.notes.push(
        `attempt 1: the target's next seal was due in ${Math.round(untilSeal)} ms (its seals fall every ${grid!.everyMs} ms on a known grid), under ${SHOW_MS} ms: too soon for this attempt's transactions to show before it, so the sends wait for that seal`,
      );
    }
  }
  // The seal to wait for is the one after the head as it is now: one read in an earlier round may
  // be older than the seal that sealed the signer's last transactions.
  if (head) prev = await readHead(st);
  const highest = st.heads.highest!;
  const started = st.time.now();
  for (;;) {
    await sleep(st, POLL_INTERVAL_MS - (st.time.now() - prev.startedAt));
    const cur = await readHead(st);
    if (cur.block.number! > highest) return { round: { startedAt: cur.startedAt, endedAt: cur.endedAt, head: cur.block.number! }, sealAt: cur.endedAt };
    prev = cur;
    if (st.time.now() - started >= st.waits.alignMs) {
      st.aligned = false;
      st.notes.push(`no block was sealed within ${st.waits.alignMs} ms, so the sends could not be aligned with a seal; later attempts send at once`);
      return { round: { startedAt: cur.startedAt, endedAt: cur.endedAt, head: highest } };
    }
  }
}

/** Waits (bounded, never throwing) until everything this session sent is sealed, so the next user of the key starts clean. */
export async function settle(st: PassState): Promise<void> {
  const started = st.time.now();
  try {
    while (!st.signal.aborted && st.time.now() - started < st.waits.sealMs) {
      // A nonce the gateway lost is as far as the count can get: the later ones wait for it.
      if ((await st.s.count('setup', 'latest')) >= (st.s.lostNonce ?? st.s.highestNonce + 1n)) return;
      await readHead(st);
      await sleep(st, blockPollMs(st.time.now() - started));
    }
  } catch {
    // a later attempt or run waits again and says so
  }
}

/**
 * How an attempt ends on a refused send. A send the gateway answered (HTTP 502/503/504 on every
 * try) is lost: that is the cause, and the later nonces accepted beside it cannot be included, so
 * waiting for their seal would only say that the node "had not included them".
 */
export function refusalOf(refusal: Extract<Posted, { refused: string }>, posted: readonly Posted[]): Extract<AttemptEnd, { kind: 'refused' }> {
  if (!refusal.lost) return { kind: 'refused', reason: refusal.refused };
  const { nonce } = refusal.lost;
  const later = posted.flatMap((p) => ('sent' in p && p.sent.nonce > nonce ? [p.sent.nonce] : [])).sort((x, y) => (x < y ? -1 : 1));
  const after = later.length ? `; later nonces (${later.join(', ')}) cannot be included` : '';
  return { kind: 'refused', reason: `${refusal.refused}${after}`, lost: true };
}

/** The first batch: nonces base..base+SPLIT_AT-1 (a transfer and both deployments); the two transfers follow. */
export const SPLIT_AT = 3;

export interface SendWindow {
  /** The transactions sent so far: the first batch, then the rest once the rounds send it. */
  a: AttemptTxs;
  /** Signed, not sent yet: the rounds send them once the first batch shows at "pending" (watch.ts). */
  rest: Signed[];
  /** The round of the head read before the sends, and when the seal they follow was seen (none: sent unaligned). */
  aligned: { round: Round; sealAt?: number };
}

/**
 * The send phase: the base nonce, the worst case reserved, five transactions signed, then sent
 * right after a seal — the first alone ("nonce too low" for the pending count is re-read once),
 * the next two at once; the last two are left to the rounds (watch.ts).
 */
export async function send(st: PassState, n: number, reads?: FirstReads): Promise<SendWindow | AttemptEnd> {
  const { s } = st;
  const read = await readBase(st, reads);
  if ('kind' in read) return read;
  const { base } = read;

  const refusedBudget = s.reserve(TX_PLAN.map((r) => st.gas[r]));
  if (refusedBudget) {
    // In scope (a key was given) but not judged: unobservable, so the run cannot read as conformant.
    if (n === 1) throw new Unobservable(`${refusedBudget} (raise --max-spend-wei to judge pre-confirmed state)`);
    return { kind: 'stopped', reason: refusedBudget };
  }
  const signed: Signed[] = await Promise.all(
    TX_PLAN.map((role, i) => {
      const runtime = DEPLOYED.find(([r]) => r === role)?.[1];
      return s.sign({ ...(runtime ? { data: initCodeFor(runtime) } : { to: s.address }), nonce: base + BigInt(i), gas: st.gas[role] });
    }),
  );

  const aligned = await align(st, n, base, read.head);
  st.heads.arm(st.time.now());
  const first = await s.post('setup', signed[0]);
  if ('refused' in first) {
    if (!isNonceTooLow(first.error)) return refusalOf(first, []);
    // Re-read once: a second sender of this key can only have raised the count.
    let reread: bigint;
    try {
      reread = await s.count('nonce', 'pending');
    } catch (err) {
      if (err instanceof Violation) return { kind: 'nonce', contradiction: { kind: 'malformed', violation: err } };
      throw err;
    }
    if (reread <= base)
      return { kind: 'nonce', contradiction: { kind: 'nonce-too-low', base, reread, refusal: first.refused, ...(first.error ? { error: first.error } : {}) } };
    return {
      kind: 'void',
      reason: `nonce ${base} was "too low" but the pending count rose to ${reread} meanwhile: another sender of this key may have used it`,
    };
  }
  // Two flashblocks of one block while the pending receipts are to be judged: the first batch
  // now, the rest once it shows at "pending" (the rounds send it, watch.ts), so the pending
  // block's receipts must hold transactions of both (4.3). Never twice in a row while the nonce
  // view is open: on a short block, a node that includes transactions a few flashblocks late
  // pre-confirms no second batch before the seal, and the nonce (all five) must still be judged.
  // Only a split attempt sent right after a seal had the whole block: one sent unaligned may have
  // met the seal at once, which says nothing of the node, so the next one splits again (on the
  // embedded target's 1.2 s blocks that saved a third attempt, about 4.7 s, in 1 run of 3).
  const split = st.behaviours.includes('receipts') && !(st.lastSplit === true && st.behaviours.includes('nonce'));
  st.lastSplit = split && aligned.sealAt !== undefined;
  const firstBatch = await Promise.all(signed.slice(1, split ? SPLIT_AT : signed.length).map((t) => s.post('setup', t)));
  const refusal = firstBatch.find((p): p is Extract<typeof p, { refused: string }> => 'refused' in p);
  if (refusal) {
    await settle(st);
    return refusalOf(refusal, [first, ...firstBatch]);
  }
  const sent: SentTx[] = [first, ...firstBatch].map((p, i) => ({ ...(p as { sent: Sent }).sent, role: TX_PLAN[i] }));
  st.t0 ??= sent[0].startedAt;
  const sstoreTx = sent.find((t) => t.role === 'deploy-sstore')!;
  return {
    a: { base, sent, call: { from: s.address, to: sstoreTx.contractAddress!, value: '0x0' }, split: false },
    aligned,
    rest: split ? signed.slice(SPLIT_AT) : [],
  };
}
