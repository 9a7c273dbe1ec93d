// The pre-confirmation pass (spec 1.4; "pending" in 4.3-4.6): every behaviour the preconf checks
// judge is observed in ONE session with the signer — one aligned send window, one observation
// phase, one seal, one after-seal verification — and returns evidence (evidence.ts): readings
// before and after the seal, timelines of misses, nonce readings at odds with 4.5, why something
// was not established. Each check in suites/preconf weighs its part against its rule.
//
//   behaviours.ts  what each behaviour reads and when a reading shows pre-confirmed state
//   send.ts        an attempt's base nonce, signing, and the send window right after a seal
//   watch.ts       rounds of reads every 20 ms until each view showed or its transactions sealed
//   attempt.ts     the reads after the seal, and what the attempt established per behaviour
//   pass.ts        set-up, and the attempts (a failed one is retried as a whole)
//
// A node that stops sealing (state.ts, Heads) or answering ends the pass at once with that one
// cause. eth_estimateGas is one of the methods observed, so the pass does not rely on it to
// size its transactions.
import type { SharedScope, CheckContext } from '../check';
import { randomAddress } from '../hex';
import { capture } from './behaviours';
import { attempt } from './attempt';
import { BEHAVIOURS, describeMiss, TX_PLAN, type Behaviour, type MissRecord, type NonceContradiction, type PassResult, type Role, type Stop } from './evidence';
import { initCodeFor, RUNTIME_RETURNS_42, RUNTIME_SSTORE, Session } from './session';
import { Heads, readHead, stopOf, type AttemptEnd, type PassState } from './state';
import type { FirstReads } from './send';
import { EVIDENCE_ATTEMPTS, MAX_ATTEMPTS, MAX_SPOILED_ATTEMPTS, percentiles, realClock, sealWaits, SPEC_REFRESH_MS, type Clock } from './timing';

/** The report's chart reads the timeline (src/cli/reporters). */
export type { Timeline } from './evidence';

/** The run-scoped key of the pass (CheckContext.shared). */
export const PASS_KEY = 'preconf.pass';

/** Where exchanges are shown: setup (sizing, nonces, sends), the head reads, and one lane per behaviour. */
export type Lane = 'setup' | 'heads' | Behaviour;

/**
 * Gas limits when eth_estimateGas does not size the transactions: generous for a 0-value
 * self-transfer (21000) and a deployment of a few bytes (about 55000), and still well within the
 * default spend cap; each attempt reserves its worst case before it sends.
 */
export const FIXED_GAS: Record<Role, bigint> = { transfer: 100_000n, 'deploy-returns-42': 250_000n, 'deploy-sstore': 250_000n };

/** Gas limits from the node's estimates (plus 20%), or FIXED_GAS when it cannot estimate them. */
async function sizes(st: PassState): Promise<void> {
  const { s } = st;
  const read = await capture(() =>
    Promise.all([
      s.gasFor('setup', { to: s.address }),
      s.gasFor('setup', { data: initCodeFor(RUNTIME_RETURNS_42) }),
      s.gasFor('setup', { data: initCodeFor(RUNTIME_SSTORE) }),
    ]),
  );
  if ('value' in read) {
    st.gas = { transfer: read.value[0], 'deploy-returns-42': read.value[1], 'deploy-sstore': read.value[2] };
    return;
  }
  st.gas = { ...FIXED_GAS };
  st.notes.push(
    `eth_estimateGas could not size the transactions (${read.violation.message}): sized with fixed limits (${TX_PLAN.map((r) => st.gas[r]).join(', ')})`,
  );
}

/**
 * Runs the pass. What could not be observed is evidence too (PassResult.stop), and the checks
 * decide what it means for their rule; only a throttled provider (ThrottledError) is thrown.
 */
export async function runPass(scope: SharedScope, time: Clock = realClock): Promise<PassResult> {
  const behaviours = BEHAVIOURS.filter((b) => b !== 'receipts' || scope.settings.profile === 'dedicated');
  const waits = sealWaits(scope.settings.maxBlockTimeMs);
  const st: PassState = {
    s: new Session(scope, time),
    time,
    signal: scope.signal,
    behaviours,
    gas: { ...FIXED_GAS },
    notes: [],
    heads: new Heads(waits.stallMaxMs),
    waits,
    aligned: true,
    rttSamples: [],
    samples: {},
    timeline: { flashblockMs: SPEC_REFRESH_MS, sends: [] },
    blockTimes: [],
  };
  const outcomes: PassResult['outcomes'] = {};
  const misses = new Map<Behaviour, MissRecord[]>();
  const unclear = new Map<Behaviour, string[]>();
  const note = (b: Behaviour, why: string) => (unclear.get(b) ?? unclear.set(b, []).get(b)!).push(why);
  let nonce: NonceContradiction | undefined;
  let stop: Stop | undefined;
  let attempts = 0;
  // Attempts spoiled by timing do not count, up to MAX_SPOILED_ATTEMPTS of them (timing.ts).
  let budget = MAX_ATTEMPTS;

  try {
    // One round trip: chain id and fees, the balance, gas limits, the code-less estimate, the latest count.
    const [, balance, , plainRead, latestFirst, pendingFirst, headFirst, receiptsFirst] = await Promise.all([
      st.s.open('setup'),
      st.s.balance('setup'),
      sizes(st),
      // The same call into an address without code: what "latest" must estimate until the seal.
      capture(() => st.s.estimate('estimate', { from: st.s.address, to: randomAddress(), value: '0x0' }, 'latest')),
      capture(() => st.s.count('nonce', 'latest')),
      // The first attempt's base nonce and the head its sends follow, read here: fewer round
      // trips before the sends leave more of the block interval to watch them in.
      capture(() => st.s.count('nonce', 'pending')),
      // A head read that fails here is read again before the sends: the evidence of this round stands.
      readHead(st).catch(() => undefined),
      // "pending" receipts before anything is sent: an array (empty or not) on any conformant
      // node. An error (a method that does not exist) or a non-array is evidence already, kept
      // even when a helper method the rounds need (eth_getBlockByNumber) later fails.
      behaviours.includes('receipts') ? capture(() => st.s.receipts('receipts', 'pending')) : Promise.resolve(undefined),
    ]);
    if (receiptsFirst && 'violation' in receiptsFirst) outcomes.receipts = { kind: 'malformed', violation: receiptsFirst.violation };
    st.notes.push(
      st.s.ensureFunds(
        balance,
        TX_PLAN.map((r) => st.gas[r]),
      ),
    );
    if ('violation' in plainRead) outcomes.estimate = { kind: 'malformed', violation: plainRead.violation };
    else st.plain = plainRead.value;
    if ('violation' in latestFirst) nonce = { kind: 'malformed', violation: latestFirst.violation };

    for (let n = 1; n <= budget && !nonce; n++) {
      const open = behaviours.filter((b) => outcomes[b] === undefined);
      if (open.length === 0) break;
      attempts = n;
      st.behaviours = open;
      const first: FirstReads | undefined =
        n === 1 && 'value' in latestFirst
          ? { latest: latestFirst.value, ...('value' in pendingFirst ? { pending: pendingFirst.value } : {}), ...(headFirst ? { head: headFirst } : {}) }
          : undefined;
      const end: AttemptEnd = await attempt(st, n, first);
      if (end.kind === 'nonce') nonce = end.contradiction;
      else if (end.kind === 'refused')
        stop = end.lost
          ? {
              cause: 'gateway',
              reason: `attempt ${n}: ${end.reason}: the gateway in front of the node lost that transaction, so pre-confirmed state could not be observed further (no verdict about the node; nothing of that attempt is timed)`,
            }
          : { cause: 'refused', reason: `the node refused the signer's transactions (${end.reason}), so pre-confirmed state could not be observed` };
      else if (end.kind === 'stopped' || end.kind === 'void') {
        const why = `attempt ${n}: ${end.reason}`;
        st.notes.push(why);
        for (const b of open) note(b, why);
        if (end.kind === 'stopped') break;
      } else {
        // A node that stopped sealing or answering mid-attempt: what the rounds saw is kept
        // (odd answers, latency), nothing else is weighed, and the pass ends with that cause.
        if (end.stop) {
          stop = end.stop;
          st.notes.push(stop.reason);
        }
        for (const b of open) {
          const r = end.results[b];
          // A miss is complete evidence (its transaction was sealed unseen) even in an attempt
          // the node then stopped in, and so are spellings that disagreed in every round; anything
          // else of such an attempt is not weighed.
          if (!r || (end.stop && r.kind !== 'malformed' && r.kind !== 'miss' && r.kind !== 'spelling')) continue;
          if (r.kind === 'miss') {
            const list = misses.get(b) ?? misses.set(b, []).get(b)!;
            if (r.record.miss.counts) list.push(r.record);
            else note(b, describeMiss(b, r.record));
            if (list.length >= EVIDENCE_ATTEMPTS) outcomes[b] = { kind: 'missed', misses: list };
          } else if (r.kind === 'unclear') note(b, r.reason);
          else (outcomes as Record<string, unknown>)[b] = r;
        }
        // Nothing weighed either way, and only because the seal came too soon after the sends:
        // timing, never evidence, so another attempt right after a seal (bounded), then not judged.
        const weighed = open.some((b) => {
          const r = end.results[b];
          return r !== undefined && r.kind !== 'unclear' && !(r.kind === 'miss' && !r.record.miss.counts);
        });
        if (end.spoiled && !end.stop && !weighed && st.aligned && budget < MAX_ATTEMPTS + MAX_SPOILED_ATTEMPTS) {
          budget++;
          st.notes.push(
            `attempt ${n} established nothing: ${end.spoiled}; it does not count toward the ${MAX_ATTEMPTS} attempts (${budget - MAX_ATTEMPTS} of at most ${MAX_SPOILED_ATTEMPTS} such)`,
          );
        }
      }
      if (stop) break;
    }
  } catch (err) {
    stop = stopOf(err);
    st.notes.push(stop.reason);
  }

  for (const b of behaviours) {
    if (outcomes[b]) continue;
    // Evidence gathered, then the node stopped sealing or answering: what was seen stands (a
    // later freeze does not erase a transaction sealed unseen); only a second attempt was lost.
    const counted = misses.get(b) ?? [];
    if (stop && (stop.cause === 'stalled' || stop.cause === 'no-answer') && counted.length > 0) {
      outcomes[b] = { kind: 'missed', misses: counted, thenStopped: stop.reason };
      continue;
    }
    const history = [...(misses.get(b) ?? []).map((m) => describeMiss(b, m)), ...(unclear.get(b) ?? [])].sort();
    const why = nonce
      ? 'not judged: the nonce the signer must use could not be had (see preconf.nonce.back-to-back)'
      : stop
        ? stop.reason + (history.length ? ` (before that: ${history.join('; ')})` : '')
        : `pre-confirmed state was not established in ${attempts} attempt(s), and not yet visible is never a failure by itself: ${history.join('; ')}`;
    outcomes[b] = { kind: 'unjudged', reason: why, ...(stop?.cause === 'gateway' && !nonce ? { gateway: true as const } : {}) };
  }
  const rtt = percentiles(st.rttSamples);
  if (st.blockTimes.length) st.timeline.blockTimeMs = Math.round([...st.blockTimes].sort((x, y) => x - y)[Math.floor(st.blockTimes.length / 2)]);
  return {
    notes: st.notes,
    attempts,
    ...(nonce ? { nonce } : {}),
    ...(stop ? { stop } : {}),
    ...(st.plain !== undefined ? { plain: st.plain } : {}),
    outcomes,
    latency: { samples: st.samples, timeline: st.timeline, ...(rtt ? { rtt } : {}) },
  };
}

/** The pass for a check: run once per run, the exchanges of `lanes` shown with the check. */
export function preconfPass(ctx: CheckContext, lanes: readonly Lane[]): Promise<PassResult> {
  return ctx.shared(PASS_KEY, ['setup', 'heads', ...lanes], (scope) => runPass(scope));
}
