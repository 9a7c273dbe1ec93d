// One attempt of the pass, as its phases: send (send.ts), watch (watch.ts), the reads after the
// seal, and the summary — per behaviour, what was established, missed or left unclear, and the
// latency samples and timeline of the attempt.
import { toQuantity } from '../hex';
import { show } from '../json';
import { skewPause, SKEW_PAUSES_MS } from '../chain';
import { capture, DEFS, deployments, sstore, type AttemptTxs, type Captured, type Def } from './behaviours';
import { METHOD_OF, type Behaviour, type LaterRead, type NonceView, type SentTx } from './evidence';
import { Violation } from './errors';
import { weighSpellings, type SpellingRead } from './spelling';
import { droppedReceipts } from './dropped';
import { send, settle, SPLIT_AT, type FirstReads, type SendWindow } from './send';
import { rel, type AttemptEnd, type PassState } from './state';
import { aheadOfSeal, preSeal, SKEW_BOUND_MS, spoiledWatch, weighTxMisses, type Round } from './timing';
import { firstSealed, watch, type Track, type Watched } from './watch';
import { maxOf } from '../many';

/**
 * The after-seal reads of one behaviour, re-read until they show the sealed state: behind a load
 * balancer a read right after the seal may reach a backend that has not imported the sealing
 * block (its "latest" one behind, the block unknown). Never a failure on first sight: the head
 * is re-read, then the reads after a skewPause, at most SKEW_PAUSES_MS.length times. Reads that
 * still do not show it leave the behaviour unjudged in this attempt (unsettled); an answer at odds
 * with a rule on every read is kept for the check (violation).
 */
async function afterSeal(st: PassState, b: Behaviour, a: AttemptTxs, sealedIn: Map<string, bigint>): Promise<Captured<unknown> | { unsettled: string }> {
  const def = DEFS[b] as Def<unknown, unknown>;
  const seen: string[] = [];
  for (let retry = 0; ; retry++) {
    const read = await capture(() => def.after(st.s, a, sealedIn));
    const stale = 'violation' in read ? read.violation.message : def.unsettled(read.value, a, sealedIn, st.plain);
    if (stale === undefined) return read;
    if (retry >= SKEW_PAUSES_MS.length || st.signal.aborted) {
      if ('violation' in read) return read;
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

type Results = Extract<AttemptEnd, { kind: 'observed' }>['results'];

/**
 * Whether the pending block read in a round, or in the round before or after it, did not list
 * some of `txs`: a Flashblocks node that detects a reorg withdraws its pre-confirmed transactions
 * and re-includes them later, so a view without them then is the node's one consistent state, not
 * a stale backend. The rounds around it count too: a view and the pending block read in one round
 * may straddle the flashblock that withdrew or re-included them (unknown: no). A round whose head
 * reached the block that sealed them (`sealedFirst`) says nothing: the pending block is then the
 * next one, which rightly lists none of them (counted as withdrawn, the seal excused the last
 * read before it, the one furthest past the skew bound).
 */
export function withdrawnIn(rounds: readonly Round[], r: number, txs: readonly SentTx[], sealedFirst: bigint | undefined): boolean {
  return [r - 1, r, r + 1].some((k) => {
    const round = rounds[k];
    const listed = round?.listed;
    if (listed === undefined || (sealedFirst !== undefined && round.head >= sealedFirst)) return false;
    return txs.some((t) => !listed.has(t.hash.toLowerCase()));
  });
}

/**
 * The reads of an established behaviour up to the seal, each a sample of the pre-confirmed state
 * (judgeLater), every transaction judged from its own first sighting: the round whose answer first
 * showed it. A read that leaves out transactions shown before it counts from the oldest sighting
 * among them, so the first batch, shown a flashblock or more before the round that showed them
 * all, is held to its state from then: a backend that never shows the pre-confirmed state before
 * the seal is met in more reads past the skew bound. Transactions not yet shown when the read
 * was made are not asked of it.
 */
export function laterReads(
  rounds: readonly Round[],
  looks: readonly number[],
  values: ReadonlyMap<number, unknown>,
  def: Def<unknown, unknown>,
  a: AttemptTxs,
  plain: bigint | undefined,
  sealedFirst: bigint | undefined,
): LaterRead[] {
  const stale = def.stale;
  if (!stale) return [];
  const firstShown = new Map<string, number>();
  for (const i of looks) for (const tx of def.shows(values.get(i), a)) if (!firstShown.has(tx.hash)) firstShown.set(tx.hash, i);
  const shownBefore = (r: number) => def.relevant(a).filter((tx) => (firstShown.get(tx.hash) ?? Infinity) < r);
  const since = (r: number, tx: SentTx) => Math.round(rounds[r].startedAt - rounds[firstShown.get(tx.hash)!].endedAt);
  return looks
    .filter((r) => shownBefore(r).length > 0)
    .map((r) => {
      const due = shownBefore(r);
      const left = stale(values.get(r), a, plain).filter((tx) => due.some((d) => d.hash === tx.hash));
      return {
        afterMs: maxOf((left.length > 0 ? left : due).map((tx) => since(r, tx))),
        old: left.length > 0,
        preSeal: preSeal(rounds, r, sealedFirst) === true,
        withdrawn: withdrawnIn(rounds, r, due, sealedFirst),
        aheadOfSeal: aheadOfSeal(rounds, r, sealedFirst),
        shown: def.shown(values.get(r), a),
      };
    });
}

/** The nonce view's two pending counts in every round before the seal (preSeal), from the first send. */
function spellingReads(a: AttemptTxs, w: Watched): SpellingRead[] {
  const t = w.tracks.get('nonce');
  if (!t) return [];
  const sealedFirst = firstSealed(w.sealedIn, a.sent);
  return t.looks
    .filter((i) => preSeal(w.rounds, i, sealedFirst) === true)
    .map((i) => {
      const v = t.values.get(i) as NonceView;
      return { atMs: w.rounds[i].startedAt - a.sent[0].startedAt, checksummed: v.pending, lowercase: v.pendingLowercase };
    });
}

/**
 * "safe" and "finalized" name sealed blocks (4.2), so while the signer's transactions are
 * pre-confirmed the count at either is at most the sealed count: above it, the tag was answered
 * from the pre-confirmed state. Any backend of a fleet, at any block, agrees: only pre-confirmed
 * state holds those nonces. Unsealed when the tags were answered: none of the transactions is in
 * a block up to the head read once they answered, nor up to any head read before (what the rule
 * needs is that no seal had come yet, not a round bracketed by unchanged heads as a view's is).
 */
function sealedTagsAhead(a: AttemptTxs, w: Watched): Violation | undefined {
  const t = w.tracks.get('nonce');
  if (!t) return undefined;
  const sealedFirst = firstSealed(w.sealedIn, a.sent);
  for (let i = 0; i < w.rounds.length; i++) {
    const tags = w.rounds[i].tags;
    if (!tags || tags.headAfter === undefined || (sealedFirst !== undefined && (sealedFirst <= tags.headAfter || sealedFirst <= w.rounds[i].head))) continue;
    const v = t.values.get(i) as NonceView | undefined;
    const sealed = v && v.latest > a.base ? v.latest : a.base;
    for (const tag of ['safe', 'finalized'] as const) {
      const count = tags[tag];
      if (count === undefined || count <= sealed) continue;
      return new Violation(
        `eth_getTransactionCount(signer, "${tag}") answered ${count} at +${Math.round(w.rounds[i].startedAt - a.sent[0].startedAt)} ms, while the signer's transactions from nonce ${a.base} were pre-confirmed and not sealed ` +
          `(sealed count ${sealed}${v ? `, "pending" ${v.pending}` : ''}): "${tag}" names a sealed block, so it was answered from the pre-confirmed state`,
        { violated: ['4.2.2'], expected: `<= ${toQuantity(sealed)} (the sealed count)`, actual: toQuantity(count) },
      );
    }
  }
  return undefined;
}

/** Whether a read of the view showed some of the first batch and none of the second (they came in two flashblocks). */
export function firstBatchShownAlone(t: Track, def: Def<unknown, unknown>, a: AttemptTxs): boolean {
  const second = new Set(a.sent.slice(SPLIT_AT).map((tx) => tx.hash.toLowerCase()));
  return t.looks.some((i) => {
    const shown = def.shows(t.values.get(i), a);
    return shown.length > 0 && shown.every((tx) => !second.has(tx.hash.toLowerCase()));
  });
}

/** What one behaviour's rounds and after-seal reads established in attempt `n`. */
function summarize(
  st: PassState,
  n: number,
  a: AttemptTxs,
  w: Watched,
  b: Behaviour,
  after: Awaited<ReturnType<typeof afterSeal>> | undefined,
): Results[Behaviour] {
  const { rounds, sealedIn } = w;
  const t = w.tracks.get(b)!;
  const def = DEFS[b] as Def<unknown, unknown>;
  const rel = def.relevant(a);
  const sinceSend = (at: number) => Math.round(at - a.sent[0].startedAt);
  if (t.violation) return { kind: 'malformed', violation: t.violation };
  if (b === 'nonce') {
    const ahead = sealedTagsAhead(a, w);
    if (ahead) return { kind: 'malformed', violation: ahead };
    // The two spellings of the address, in every pre-seal round: evidence with or without a seal.
    const weight = weighSpellings(spellingReads(a, w));
    if (weight.kind === 'disagree') return { kind: 'spelling', evidence: { ...weight, attempt: n, base: a.base, sent: a.sent.length } };
    if (weight.kind === 'ambiguous' && after && 'value' in after)
      return {
        kind: 'unclear',
        reason: `attempt ${n}: nonce: the two spellings of the address disagreed in ${weight.apart} round(s) over ${weight.spanMs} ms and never agreed after: too briefly to tell a count that depends on the spelling from backends a refresh apart`,
      };
  }
  if (b === 'receipts') {
    // A newer pending view that lost a pre-confirmed transaction of an older one, in one block.
    const dropped = droppedReceipts(rounds, t.looks, t.values, a.sent, sealedIn, a.sent[0].startedAt);
    if (dropped) return { kind: 'malformed', violation: dropped };
  }
  if (after) {
    if ('violation' in after) return { kind: 'malformed', violation: after.violation };
    if ('unsettled' in after) return { kind: 'unclear', reason: `attempt ${n}: ${after.unsettled}` };
    // Pending receipts are judged on transactions of two flashblocks, never on one that held them
    // all. Sent apart is not landed apart: a node whose flashblock came late (a tick skipped under
    // load) publishes both batches in one. Only a read that showed the first batch without the
    // second proves two flashblocks; a node answering the newest flashblock only passed without it.
    if (b === 'receipts' && (!a.split || !firstBatchShownAlone(t, def, a))) {
      const why = !a.split
        ? 'the transactions were sent at once'
        : `no read showed the first ${SPLIT_AT} transactions without the other ${a.sent.length - SPLIT_AT}`;
      return {
        kind: 'unclear',
        reason: `attempt ${n}: receipts: ${why}, so they may share one flashblock, and receipts of the newest flashblock only could not be told from those of the whole block`,
      };
    }
    const c = t.final!;
    const sealedFirst = firstSealed(sealedIn, rel);
    // Behind a balancer, a round's "latest" may meet a backend that sealed before the one its head
    // read met: near the seal, "latest" showing the pre-confirmed state proves nothing.
    const showsSealed = (i: number) => def.showsSealed?.(t.values.get(i), a, st.plain) === true;
    const ahead = t.looks.find((i) => aheadOfSeal(rounds, i, sealedFirst) && showsSealed(i));
    const latestRead =
      ahead !== undefined ? { view: t.values.get(ahead), aheadOfSeal: true } : { view: t.values.get(c), aheadOfSeal: aheadOfSeal(rounds, c, sealedFirst) };
    if (!latestRead.aheadOfSeal && showsSealed(c))
      return {
        kind: 'unclear',
        reason: `attempt ${n}: ${b}: the round that first showed the pre-confirmed state also showed it at "latest" or with no block parameter, within ${SKEW_BOUND_MS} ms of the seal, and no round ahead of it did, so a backend that had already sealed could not be told from one answering them from the pre-confirmed state`,
      };
    const later = laterReads(rounds, t.looks, t.values, def, a, st.plain, sealedFirst);
    const judged = {
      attempt: n,
      base: a.base,
      sent: a.sent,
      before: t.values.get(c),
      latestRead,
      headBefore: rounds[c - 1].head,
      headAfter: rounds[c + 1].head,
      after: after.value,
      sealedIn,
      visibleAfterMs: sinceSend(rounds[c].endedAt),
      later,
    };
    return { kind: 'judged', judged } as Results[Behaviour];
  }
  if (t.final !== undefined)
    return { kind: 'unclear', reason: `attempt ${n}: ${b} showed at "pending" but its transactions were not all sealed within the wait` };
  const shownAt = (round: number | undefined) => (round !== undefined ? def.shown(t.values.get(round), a) : undefined);
  if (firstSealed(sealedIn, rel) === undefined) {
    const last = shownAt(t.looks[t.looks.length - 1]);
    return {
      kind: 'unclear',
      reason: `attempt ${n}: ${b} neither showed at "pending" nor was sealed within ${sinceSend(st.time.now())} ms of the first send (last read ${show(last)})`,
    };
  }
  // Each transaction against the block that sealed IT: one shown before its own seal is no
  // miss, although the view never showed them all at once (a later one may land a block
  // later). A read that showed it but that a seal may have preceded proves nothing either
  // way: only pre-seal rounds count.
  const misses = weighTxMisses(
    rounds,
    t.looks,
    rel.map((tx) => ({
      tx,
      acceptedAt: tx.acceptedAt,
      sealedIn: sealedIn.get(tx.hash.toLowerCase()),
      shownIn: t.looks.filter((i) => def.shows(t.values.get(i), a).includes(tx)),
    })),
  );
  // Only the first batch, sent right after the seal, is held to EARLY_MS: the second goes a
  // refresh or more later, and on a short block a node that includes transactions a few
  // flashblocks late seals it unseen without breaking any rule.
  const weighed = misses.map((m) => (!a.split || m.tx.nonce < a.base + BigInt(SPLIT_AT) ? m : { ...m, miss: { ...m.miss, counts: false } }));
  const pick = weighed.find((m) => m.miss.counts) ?? weighed[0];
  if (pick) return { kind: 'miss', record: { attempt: n, nonce: pick.tx.nonce, sealedIn: pick.sealedIn, miss: pick.miss, last: shownAt(pick.miss.lastLook) } };
  const blocks = [...new Set(rel.map((tx) => sealedIn.get(tx.hash.toLowerCase())).filter((x): x is bigint => x !== undefined))].map(toQuantity).join(', ');
  return {
    kind: 'unclear',
    reason: `attempt ${n}: ${b}: no transaction was sealed unseen (each showed at "pending" before its own block sealed, or was sealed before the first read), but the view never showed them all before the first seal (sealed in ${blocks})`,
  };
}

/**
 * Whether the seal followed the sends too soon for the rounds to watch them (timing.ts,
 * spoiledWatch): the first batch (the transactions sent first, right after a seal when aligned)
 * against the block that sealed the first of them. On a loaded machine the sends and the rounds
 * take most of a 2 s block. In words, or undefined.
 */
function spoiledBy(st: PassState, a: AttemptTxs, w: Watched): string | undefined {
  const batch = a.sent.slice(0, SPLIT_AT);
  const block = firstSealed(w.sealedIn, batch);
  if (block === undefined) return undefined;
  const acceptedAt = maxOf(batch.map((t) => t.acceptedAt));
  const interval = st.heads.intervalMs();
  const m = spoiledWatch(w.rounds, acceptedAt, block, interval);
  if (!m) return undefined;
  return (
    `the sends took ${Math.round(acceptedAt - a.sent[0].startedAt)} ms to be accepted and the last read before the seal of block ${toQuantity(block)} started ${Math.round(m.marginMs)} ms after that, ` +
    `with ${m.looks} round(s) of reads in between${m.looks > 1 ? ` at most ${Math.round(m.maxGapMs)} ms apart` : ''}, in a block interval of ${Math.round(interval!)} ms: too soon, or too sparsely, to watch them (a loaded machine?)`
  );
}

/** The latency samples (send -> first pre-confirmed round showing it) and the chart's entries. */
function sample(st: PassState, a: AttemptTxs, w: Watched): void {
  for (const b of st.behaviours) {
    const method = METHOD_OF[b];
    const txs = b === 'code' ? deployments(a) : b === 'estimate' ? [sstore(a)] : a.sent;
    for (const tx of txs) {
      const seen = w.firstSeen.get(`${method} ${tx.hash}`);
      const sealedAt = w.sealSeenAt.get(tx.hash.toLowerCase());
      // A latency sample only from a transaction seen pre-confirmed and then sealed: on a node
      // that never seals, "pending" may simply be its pool, and no pre-confirmation was shown.
      if (seen !== undefined && sealedAt !== undefined) (st.samples[method] ??= []).push(Math.round(seen - tx.startedAt));
      st.timeline.sends.push({
        method,
        sentAtMs: rel(st, tx.startedAt),
        ...(seen !== undefined ? { visibleAtMs: rel(st, seen) } : {}),
        ...(sealedAt !== undefined ? { sealedAtMs: rel(st, sealedAt) } : {}),
      });
    }
  }
}

export async function attempt(st: PassState, n: number, first?: FirstReads): Promise<AttemptEnd> {
  const window = await send(st, n, first);
  if (!('a' in window)) return window;
  const { a, aligned }: SendWindow = window;
  const w = await watch(st, n, window);
  if (w.refused) {
    await settle(st);
    return w.refused;
  }

  // After the seal: the reads of every established behaviour whose transactions are sealed.
  const sealedNow = w.stop
    ? []
    : st.behaviours.filter((b) => w.tracks.get(b)!.final !== undefined && DEFS[b].relevant(a).every((t) => w.sealedIn.has(t.hash.toLowerCase())));
  const afters = await Promise.all(sealedNow.map((b) => afterSeal(st, b, a, w.sealedIn)));
  const results: Results = {};
  const visible: string[] = [];
  for (const b of st.behaviours) {
    const k = sealedNow.indexOf(b);
    let r = summarize(st, n, a, w, b, k >= 0 ? afters[k] : undefined);
    const t = w.tracks.get(b)!;
    const sealedBy = [...new Set(w.sealedIn.values())].map(toQuantity).join(', ') || 'no block';
    const stuck =
      t.hung ??
      (t.inFlight !== undefined
        ? `one ${METHOD_OF[b]} read at "pending" sent ${Math.round(t.inFlight)} ms after the first send was still unanswered ${Math.round(st.time.now() - a.sent[0].startedAt - t.inFlight)} ms later, ` +
          `while the node answered the other reads (${w.rounds.length - 1} rounds) and went on sealing (${sealedBy}): one request hung, and that view was not read again in this attempt`
        : undefined);
    if (r?.kind === 'unclear' && stuck) r = { ...r, reason: `${r.reason}; ${stuck}` };
    if (r?.kind === 'miss' && stuck) r = { ...r, record: { ...r.record, hung: stuck } };
    (results as Record<string, unknown>)[b] = r;
    if (r?.kind === 'judged') visible.push(`${b} visible +${r.judged.visibleAfterMs} ms`);
  }
  sample(st, a, w);

  const { sent } = a;
  const acceptedBy = maxOf(sent.map((t) => t.acceptedAt));
  const sealedBlocks = [...new Set(w.sealedIn.values())].map(toQuantity).join(', ');
  st.notes.push(
    `attempt ${n}: ${aligned.sealAt !== undefined ? `sent right after the seal of block ${toQuantity(aligned.round.head)}` : `sent unaligned (head ${toQuantity(aligned.round.head)})`}, ` +
      `nonces ${a.base}..${a.base + BigInt(sent.length - 1)} accepted within ${Math.round(acceptedBy - sent[0].startedAt)} ms; ${visible.join(', ') || 'nothing established at "pending"'}; ` +
      `sealed in ${sealedBlocks || 'no block'} (${sent.filter((t) => w.sealedIn.has(t.hash.toLowerCase())).length}/${sent.length} transactions, ${w.rounds.length - 1} rounds of reads)`,
  );
  const spoiled = w.stop ? undefined : spoiledBy(st, a, w);
  return { kind: 'observed', results, ...(w.stop ? { stop: w.stop } : {}), ...(spoiled ? { spoiled } : {}) };
}
