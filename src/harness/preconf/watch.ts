// An attempt's second phase: rounds of reads every POLL_INTERVAL_MS, each with the "latest" block
// and every view not yet established, until each behaviour showed in a pre-confirmed round or its
// transactions were sealed. A view that can show stale state (behaviours.ts, stale) is read on
// until its transactions are sealed, so every later read is a sample of the pre-confirmed state.
// A view counts as pre-confirmed only in a round bracketed by unchanged heads with none of its
// transactions sealed (timing.ts, preSeal). A transaction is sealed when a block with a non-zero
// hash, at or below the head, holds it — never because a receipt exists (Flashblocks nodes answer
// receipts of pre-confirmed transactions with a zero block hash).
import { toQuantity } from '../hex';
import { capture, DEFS, type AttemptTxs, type Captured, type Def } from './behaviours';
import type { Violation } from './errors';
import { METHOD_OF, TX_PLAN, type Behaviour, type NonceView, type SentTx, type Stop } from './evidence';
import type { Posted, Sent } from './session';
import { sleep, stopOf, type AttemptEnd, type PassState } from './state';
import { refusalOf, SPLIT_AT, type SendWindow } from './send';
import { pendingListed, tagCounts } from './side-reads';
import { blockPollMs, POLL_INTERVAL_MS, SPLIT_GAP_MS, preSeal, ROUND_WAIT_MS, STRAGGLER_MIN_MS, type Round } from './timing';
import { maxOf } from '../many';

/** What the rounds saw of one behaviour. */
export interface Track {
  /** The rounds that read it, and what each read. */
  looks: number[];
  values: Map<number, unknown>;
  violation?: Violation;
  /** A round that showed it, waiting for the round after to bracket it. */
  awaiting?: number;
  /** The pre-confirmed round that showed it. */
  final?: number;
  /** A read left in flight by a round that could not wait for it (ROUND_WAIT_MS): when it was sent. */
  inFlight?: number;
  /** A read that got no answer at all while the others went on: what happened, in words. */
  hung?: string;
  /** Reads answered after their round had moved on (not used: they span several rounds). */
  late?: number;
}

/** The timeline of one attempt's rounds. */
export interface Watched {
  rounds: Round[];
  tracks: Map<Behaviour, Track>;
  /** Block number that sealed each transaction, and when the seal was seen (by lower-case hash). */
  sealedIn: Map<string, bigint>;
  sealSeenAt: Map<string, number>;
  /** `${method} ${hash}` -> end of the first pre-confirmed round that showed it. */
  firstSeen: Map<string, number>;
  /** The node stopped sealing (or answering, or the run stopped) during the rounds. */
  stop?: Stop;
  /** The node refused the second batch (eth_sendRawTransaction's error), as the attempt ends with it. */
  refused?: Extract<AttemptEnd, { kind: 'refused' }>;
}

/**
 * Whether the first batch is pre-confirmed: this round's pending receipts hold some of it (the
 * split is made for the receipts view, so it is read in every round until it shows). Not the
 * pending count: reth and geth count a transaction the node holds in its pool before any
 * flashblock carries it (op-reth: LoadState::transaction_count), so the count says nothing of the
 * flashblock, and a second batch sent on it lands in the same flashblock as the first.
 */
export function firstBatchShown(receipts: unknown, a: AttemptTxs): boolean {
  return receipts !== undefined && DEFS.receipts.shows(receipts as Parameters<typeof DEFS.receipts.shows>[0], a).length > 0;
}

type Settled = { r: Captured<unknown> } | { err: unknown };
const LATE = 'late' as const;

/**
 * A read its round could not wait for: its view is not read again until it settles. An answer
 * that comes late is not used (it spans rounds); no answer at all (the request timed out) is
 * recorded as what it is, one request that hung while the node went on answering and sealing,
 * and the view is not read again in this attempt.
 */
function leaveInFlight(t: Track, b: Behaviour, read: Promise<Settled>, sentAtMs: number, now: () => { head: bigint; rounds: number }): void {
  t.inFlight = sentAtMs;
  void read.then((x) => {
    t.inFlight = undefined;
    if ('r' in x) {
      t.late = (t.late ?? 0) + 1;
      return;
    }
    const { head, rounds } = now();
    const why = x.err instanceof Error ? x.err.message : String(x.err);
    t.hung =
      `one ${METHOD_OF[b]} read at "pending" sent ${Math.round(sentAtMs)} ms after the first send got no answer (${why}), ` +
      `while the node went on answering the other reads (${rounds} rounds) and sealing (head ${toQuantity(head)}): one request hung, so that view was not read again in this attempt`;
  });
}

/**
 * What a round's reads gave, waiting for each as long as a straggler may take: STRAGGLER_MIN_MS,
 * or three times the slowest read answered so far (the head's included: a loaded machine slows
 * them all alike), at most ROUND_WAIT_MS; LATE for a read still in flight then.
 */
async function settleRound(st: PassState, asked: Array<Promise<Settled>>, startedAt: number, headMs: number): Promise<Array<Settled | typeof LATE>> {
  const out: Array<Settled | typeof LATE | undefined> = asked.map(() => undefined);
  let slowest = headMs;
  asked.forEach(
    (p, k) =>
      void p.then((x) => {
        out[k] = x;
        slowest = Math.max(slowest, st.time.now() - startedAt);
      }),
  );
  const all = Promise.all(asked);
  for (;;) {
    const waited = st.time.now() - startedAt;
    if (out.every((x) => x !== undefined)) break;
    if (waited >= Math.min(ROUND_WAIT_MS, Math.max(STRAGGLER_MIN_MS, 3 * slowest))) break;
    await Promise.race([all, st.time.sleep(POLL_INTERVAL_MS / 2, st.signal)]);
  }
  return out.map((x) => x ?? LATE);
}

/** Rounds that also read "safe" and "finalized" while the transactions may be pre-confirmed. */
const TAG_ROUNDS = 3;

/** A copy in random order (Fisher-Yates). */
function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The lowest block that sealed one of `txs`. */
export function firstSealed(sealedIn: ReadonlyMap<string, bigint>, txs: readonly SentTx[]): bigint | undefined {
  let min: bigint | undefined;
  for (const t of txs) {
    const b = sealedIn.get(t.hash.toLowerCase());
    if (b !== undefined && (min === undefined || b < min)) min = b;
  }
  return min;
}

/** The rounds; a node that stops sealing or answering ends them, keeping what they saw. */
export async function watch(st: PassState, n: number, window: SendWindow): Promise<Watched> {
  const w: Watched = {
    rounds: [window.aligned.round],
    tracks: new Map(st.behaviours.map((b) => [b, { looks: [], values: new Map() }])),
    sealedIn: new Map(),
    sealSeenAt: new Map(),
    firstSeen: new Map(),
  };
  try {
    await rounds(st, n, window, w);
  } catch (err) {
    w.stop = stopOf(err);
  }
  return w;
}

async function rounds(st: PassState, n: number, { a, aligned, rest }: SendWindow, w: Watched): Promise<void> {
  const { rounds, tracks, sealedIn, sealSeenAt, firstSeen } = w;
  const { sent } = a;
  const firstBatchAt = maxOf(sent.map((t) => t.acceptedAt));
  let unsent = [...rest];
  const pendingShows: Array<{ round: number; method: string; txs: SentTx[] }> = [];
  let knownHead = aligned.round.head;
  let tagRounds = 0;
  let highestHead = aligned.round.head;
  let deadline = sent[0].startedAt + st.waits.sealMs;
  const active = (b: Behaviour): boolean => {
    const t = tracks.get(b)!;
    return (
      t.final === undefined &&
      t.violation === undefined &&
      t.awaiting === undefined &&
      t.inFlight === undefined &&
      t.hung === undefined &&
      firstSealed(sealedIn, DEFS[b].relevant(a)) === undefined
    );
  };
  // Established views keep being read up to their seal (no transaction is added for it).
  const readOn = (b: Behaviour): boolean => {
    const t = tracks.get(b)!;
    return (
      active(b) ||
      (DEFS[b].stale !== undefined &&
        t.violation === undefined &&
        t.inFlight === undefined &&
        t.hung === undefined &&
        firstSealed(sealedIn, DEFS[b].relevant(a)) === undefined)
    );
  };

  for (let i = 1; ; i++) {
    // In a new order each round: behind a round-robin balancer a round of a fixed number of reads
    // would otherwise send each view to the same few backends every round (4 backends, 14 reads:
    // each view met only 2 of them), and one backend answering "pending" as "latest" went unread.
    const reading = shuffled(st.behaviours.filter(readOn));
    const establishingNow = new Set(st.behaviours.filter(active));
    const allSealed = unsent.length === 0 && sent.every((t) => sealedIn.has(t.hash.toLowerCase()));
    if (allSealed) st.heads.disarm();
    const awaiting = st.behaviours.some((b) => tracks.get(b)!.awaiting !== undefined);
    if (allSealed && !awaiting) break;
    if (st.time.now() >= deadline) break;
    const startedAt = st.time.now();
    // The head read goes out before the views' reads or after them, at random: behind a round-robin
    // balancer a round whose request count is a multiple of the backends' (15 reads, 3 backends)
    // otherwise sends a view's read to the same backends every round, and one backend of three
    // never met the pending receipts (shuffling the views alone leaves some offsets unreachable).
    const headFirst = Math.random() < 0.5 ? st.s.block('heads', 'latest') : undefined;
    headFirst?.catch(() => undefined);
    // Each view's read settles on its own: one that hangs must not hold up the others (below).
    const asked = reading.map((b) =>
      capture(() => (DEFS[b] as Def<unknown, unknown>).read(st.s, a)).then(
        (r): Settled => ({ r }),
        (err: unknown): Settled => ({ err }),
      ),
    );
    // Reads made once a view showed some of the transactions are samples of that state (attempt.ts,
    // laterReads): the pending block beside them says whether it still lists them (a reorg
    // withdraws them). Read in such rounds only, so the rounds before any sighting are not slowed by it.
    const sampling = reading.some((b) => !establishingNow.has(b)) || pendingShows.some((p) => p.txs.length > 0);
    const listing = sampling ? pendingListed(st.s, 'heads').catch(() => undefined) : undefined;
    // "safe" and "finalized" while the transactions may be pre-confirmed: in the attempt's first
    // round (on a loaded runner a round lasts a good part of a block, and the first may be the
    // only one before the seal) and in rounds after a pending count that showed some of them,
    // TAG_ROUNDS rounds at most. A head read once they answered (only if above the count before
    // the attempt) says whether the seal had come by then (attempt.ts).
    const shownBefore = tracks.get('nonce')?.values.get(i - 1) as NonceView | undefined;
    const tagging =
      tracks.has('nonce') &&
      tagRounds < TAG_ROUNDS &&
      firstSealed(sealedIn, sent) === undefined &&
      (i === 1 || (shownBefore !== undefined && (shownBefore.pending > a.base || shownBefore.pendingLowercase > a.base)))
        ? (tagRounds++, tagCounts(st.s, 'nonce', 'heads', a.base).catch(() => undefined))
        : undefined;
    const head = await (headFirst ?? st.s.block('heads', 'latest'));
    const listed = await listing;
    const settled = await settleRound(st, asked, startedAt, st.time.now() - startedAt);
    const reads: Array<Captured<unknown> | typeof LATE> = [];
    settled.forEach((x, k) => {
      const b = reading[k];
      if (x === LATE) {
        leaveInFlight(tracks.get(b)!, b, asked[k], startedAt - sent[0].startedAt, () => ({ head: highestHead, rounds: rounds.length }));
        reads.push(LATE);
        return;
      }
      if ('err' in x) throw x.err;
      reads.push(x.r);
    });
    const endedAt = st.time.now();
    st.rttSamples.push(endedAt - startedAt);
    // A round's head is the highest read so far: a backend a block behind answering "latest"
    // must not make a round after a seal look like one before it (preSeal compares heads).
    if (head.number! > highestHead) highestHead = head.number!;
    const round: Round = { startedAt, endedAt, head: highestHead, ...(listed ? { listed } : {}) };
    rounds.push(round);
    // Not waited for: the round's own reads must not wait on the tags and the head read after them.
    // That head is one more read of it for the rounds after (behind a balancer a block apart, the
    // next round's own head read may meet the backend that has not imported the seal yet).
    void tagging?.then((tags) => {
      if (!tags) return;
      round.tags = tags;
      if (tags.headAfter !== undefined && tags.headAfter > highestHead) highestHead = tags.headAfter;
    });
    st.heads.see(head.number!, endedAt);

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
      // Sent unaligned, it is not known: block timestamps are whole seconds, and a dev chain's may repeat.
      if (aligned.sealAt !== undefined && head.number === aligned.round.head + 1n && st.blockTimes.length < n) {
        const blockTime = endedAt - aligned.sealAt;
        st.blockTimes.push(blockTime);
        deadline = Math.min(deadline, sent[0].startedAt + 3 * blockTime + 2000);
      }
    }
    // A node that stopped sealing while our transactions wait ends the pass (state.ts, Heads).
    if (!sent.every((t) => sealedIn.has(t.hash.toLowerCase()))) st.heads.check(endedAt);

    reading.forEach((b, k) => {
      const t = tracks.get(b)!;
      const r = reads[k];
      if (r === LATE) return;
      if ('violation' in r) {
        t.violation = r.violation;
        return;
      }
      t.looks.push(i);
      t.values.set(i, r.value);
      if (!establishingNow.has(b)) return;
      const def = DEFS[b] as Def<unknown, unknown>;
      if (def.visible(r.value, a)) t.awaiting = i;
      pendingShows.push({ round: i, method: METHOD_OF[b], txs: def.shows(r.value, a) });
    });

    // The round before this one is now bracketed (or not).
    for (const b of st.behaviours) {
      const t = tracks.get(b)!;
      if (t.awaiting === undefined || t.awaiting >= i) continue;
      if (preSeal(rounds, t.awaiting, firstSealed(sealedIn, DEFS[b].relevant(a)))) t.final = t.awaiting;
      t.awaiting = undefined;
    }
    for (const p of pendingShows.filter((x) => x.round === i - 1)) {
      for (const tx of p.txs) {
        const key = `${p.method} ${tx.hash}`;
        if (!firstSeen.has(key) && preSeal(rounds, p.round, sealedIn.get(tx.hash.toLowerCase()))) firstSeen.set(key, rounds[p.round].endedAt);
      }
    }

    // The second batch, once the first shows in the pending receipts (firstBatchShown), or
    // more than a refresh period after it was accepted (SPLIT_GAP_MS): a later flashblock either way.
    if (unsent.length > 0) {
      const shown = firstBatchShown(tracks.get('receipts')?.values.get(i), a);
      const waited = st.time.now() - firstBatchAt;
      if (shown || waited >= SPLIT_GAP_MS) {
        const posted = await Promise.all(unsent.map((t) => st.s.post('setup', t)));
        unsent = [];
        const refusal = posted.find((p): p is Extract<Posted, { refused: string }> => 'refused' in p);
        if (refusal) {
          w.refused = refusalOf(refusal, posted);
          return;
        }
        posted.forEach((p, k) => sent.push({ ...(p as { sent: Sent }).sent, role: TX_PLAN[SPLIT_AT + k] }));
        a.split = true;
        st.notes.push(
          `attempt ${n}: nonces ${a.base}..${a.base + BigInt(SPLIT_AT - 1)} sent first, the rest ${Math.round(waited)} ms after they were accepted, ${shown ? 'once the pending receipts held some of them' : 'more than a refresh period later'}`,
        );
      }
    }

    const establishing = st.behaviours.some((b) => active(b) || tracks.get(b)!.awaiting !== undefined);
    const since = st.time.now() - startedAt;
    await sleep(st, (establishing ? POLL_INTERVAL_MS : blockPollMs(st.time.now() - sent[0].startedAt)) - since);
  }
}
