// What every preconf check does with the pass's evidence before its own rule: the notes, the
// behaviour's outcome, and the verdicts that outcome already is. A reading at odds with a rule
// fails; transactions sealed without ever showing at "pending", sent early in the block interval
// and watched closely, on two attempts, fail (spec 1.4, 4.5: pre-confirmed state shows before
// the seal, refreshed about every 200 ms); anything not established is inconclusive, blocked by
// the nonce check when the nonce the signer must use could not be had.
import type { CheckContext } from '../../src/harness/check';
import { blocked, fail, inconclusive, skip, type FailureDetail } from '../../src/harness/verdict';
import {
  describeMiss,
  type Afters,
  type Behaviour,
  type Judged,
  type LaterRead,
  type Outcome,
  type PassResult,
  type Views,
} from '../../src/harness/preconf/evidence';
import type { Violation } from '../../src/harness/preconf/errors';
import { SKEW_BOUND_MS, SPEC_REFRESH_MS } from '../../src/harness/preconf/timing';
import { dedicated403 } from '../../src/harness/receipts';
import { GatewayError } from '../../src/harness/http';

/** The check that judges the nonce readings (4.5, 1.4); the pass stops there, so it blocks the others. */
export const NONCE_ROOT = { root: 'preconf.nonce.back-to-back', violated: ['4.5.2', '1.4.1'] } as const;

/** An answer at odds with a rule, stated as the failure it is (a 403 for receipts by the check that states it). */
export function failOn(v: Violation): never {
  if (v.refused403 !== undefined) dedicated403(v.refused403);
  const { root, ...detail } = v.detail;
  // A broken envelope is the envelope check's to state (4.2): this behaviour's check is blocked by it.
  if (root && detail.violated) blocked(root, v.message, { ...detail, violated: detail.violated });
  fail(v.message, detail);
}

/** The notes every check shows; blocked when the nonce could not be had (the nonce check states why). */
export function notesAndNonce(ctx: CheckContext, pass: PassResult): void {
  for (const line of pass.notes) ctx.note(line);
  ctx.metric('attempts', pass.attempts);
  if (pass.nonce) blocked(NONCE_ROOT.root, 'not judged: the nonce the signer must use could not be had', { violated: NONCE_ROOT.violated });
}

/**
 * The judged observation of a behaviour, or the verdict its outcome already is: a malformed
 * answer fails, two counted misses fail (`what` names the view), anything else is inconclusive.
 */
export function judgedOf<B extends Behaviour>(ctx: CheckContext, pass: PassResult, b: B, what: string): Judged<Views[B], Afters[B]> {
  notesAndNonce(ctx, pass);
  const o = pass.outcomes[b] as Outcome<Views[B], Afters[B]> | undefined;
  if (!o) skip(`not observed here (profile ${ctx.settings.profile})`);
  if (o.kind === 'judged') return o.judged;
  if (o.kind === 'malformed') failOn(o.violation);
  if (o.kind === 'missed') {
    const on = o.misses.length === 1 ? 'in the one attempt completed' : `on ${o.misses.length} attempts`;
    fail(
      `${what}: the transactions were sealed without ever showing at "pending", although sent early in the block interval and watched closely, ${on} (pre-confirmed state must show before the seal, refreshed about every ${SPEC_REFRESH_MS} ms): ` +
        o.misses.map((m) => describeMiss(b, m)).join('; ') +
        (o.thenStopped ? `; after that evidence ${o.thenStopped}, which does not undo it` : ''),
      { expected: `visible at "pending" before the seal`, actual: o.misses.map((m) => m.last) },
    );
  }
  // A spelling-dependent count is the nonce check's to state (nonce.ts); no other view has one.
  if (o.kind === 'spelling') throw new Error(`the ${b} view has no spelling evidence to judge`);
  // A send the gateway lost: the gateway's fact (cause gateway, with its hint), not the node's.
  if (o.gateway) throw new GatewayError(o.reason, 1);
  return inconclusive(o.reason);
}

/**
 * A read at "latest" (or with no block parameter) before the seal that shows the pre-confirmed
 * state: the tag answered from that state, when the round was answered more than the skew bound
 * before any backend sealed (aheadOfSeal). Nearer the seal it may be a backend behind the same URL
 * that had already sealed, and proves nothing (the pass retries such an attempt, so a judged
 * observation should not have one).
 */
export function failShownBeforeSeal(aheadOfSeal: boolean, message: string, detail: FailureDetail): never {
  if (!aheadOfSeal)
    inconclusive(`${message}, but within ${SKEW_BOUND_MS} ms of the seal, where a backend behind the same URL that had already sealed answers so too`, {
      cause: 'ambiguous',
    });
  fail(message, detail);
}

/**
 * The reads of a behaviour after the round that first showed its pre-confirmed state, up to the
 * seal: each is a sample of that state (spec 1.4, 4.5: pre-confirmed state, refreshed about every
 * 200 ms). Reads alternating between the old and the new state are backends trailing one another
 * (skew), which the spec does not bound; a read still showing the old state more than
 * SKEW_BOUND_MS (three refreshes) after the first sighting, with no block sealed around it, is a
 * backend that does not refresh (Flashblocks off answers its share from "latest" until the seal):
 * that fails the check.
 */
export function judgeLater(ctx: Pick<CheckContext, 'note' | 'metric'>, later: readonly LaterRead[] | undefined, what: string): void {
  const reads = later ?? [];
  if (reads.length === 0) return;
  const old = reads.filter((r) => r.old);
  // A read whose round's pending block no longer listed the transactions saw them withdrawn (a
  // flashblock reorg): the node's one consistent state then, not a view left behind.
  const withdrawn = old.filter((r) => r.withdrawn).length;
  const beyond = old.filter((r) => r.preSeal && r.afterMs > SKEW_BOUND_MS && !r.withdrawn);
  const lastOld = old.length ? old[old.length - 1].afterMs : undefined;
  ctx.metric('laterReads', {
    n: reads.length,
    old: old.length,
    beyondBound: beyond.length,
    withdrawn,
    boundMs: SKEW_BOUND_MS,
    ...(lastOld !== undefined ? { lastOldMs: lastOld } : {}),
  });
  ctx.note(
    `${reads.length} later read(s) at "pending" up to the seal (${reads[0].afterMs}..${reads[reads.length - 1].afterMs} ms after the first sighting): ` +
      `${old.length} showed the old state, ${old.length - beyond.length} of them within ${SKEW_BOUND_MS} ms of it (backends trailing one another), around a seal` +
      ` or while the pending block no longer listed the transactions (${withdrawn} read(s): withdrawn by a flashblock reorg, not samples of the state)`,
  );
  if (beyond.length === 0) return;
  const first = beyond[0];
  fail(
    `${what}: ${beyond.length} of ${reads.length} later reads showed the old state more than ${SKEW_BOUND_MS} ms after the pre-confirmed state was first seen, with no block sealed around them ` +
      `(the first ${first.afterMs} ms after, the last ${beyond[beyond.length - 1].afterMs} ms after): backends may trail one another by a refresh or two, but a view still without the pre-confirmed ` +
      `transactions three refreshes later is not refreshed about every ${SPEC_REFRESH_MS} ms`,
    {
      expected: `the pre-confirmed state in every read from ${SKEW_BOUND_MS} ms after the first sighting to the seal`,
      actual: { afterMs: first.afterMs, read: first.shown },
    },
  );
}
