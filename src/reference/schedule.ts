// The clock of the embedded sequencer: blocks seal on a fixed grid every blockTimeMs, and
// inside each block flashblocks are published every flashblockMs, counted from the block's
// start (as Base publishes a flashblock every 200 ms of a 2 s block). Pure functions, so the
// arithmetic is tested without timers.

export interface Cadence {
  blockTimeMs: number;
  /** 0: no flashblocks (the instant model); only seals are scheduled. */
  flashblockMs: number;
}

export interface ClockState {
  /** Grid time the block being built started at (the seal before it was due then). */
  blockStart: number;
  /** Grid time of the next seal. */
  nextSealAt: number;
  /** Index within the block of the last flashblock published; 0 right after a seal. */
  lastFlashblock: number;
}

export type ClockEvent = { kind: 'flashblock'; at: number; index: number } | { kind: 'seal'; at: number };

export function startClock(c: Cadence, now: number): ClockState {
  return { blockStart: now, nextSealAt: now + c.blockTimeMs, lastFlashblock: 0 };
}

/**
 * The next event after `now`. A flashblock that fell behind (a slow tick, a loaded machine) runs
 * at once, late, as a loaded sequencer publishes it late: skipping it would hold its
 * transactions for another period, or into the seal, and make a prompt sequencer look late.
 * Several that fell behind are one late flashblock (the most recent), not a burst, and none is
 * ever repeated: the index only grows within a block. A due seal is never skipped: it comes
 * before any further flashblock of its block.
 */
export function nextEvent(c: Cadence, s: ClockState, now: number): ClockEvent {
  if (c.flashblockMs > 0) {
    const index = Math.max(s.lastFlashblock + 1, Math.floor((now - s.blockStart) / c.flashblockMs));
    const at = s.blockStart + index * c.flashblockMs;
    // A seal already due goes first: a flashblock that fell behind it is its block's anyway.
    if (at < s.nextSealAt && now < s.nextSealAt) return { kind: 'flashblock', at, index };
  }
  return { kind: 'seal', at: s.nextSealAt };
}

/**
 * The block after a seal starts at the seal's grid time, not when the seal ran, so flashblocks
 * stay aligned to the block start. Seals missed while far behind are skipped, not mined in a
 * burst: the new block starts at the last grid point not after `now`.
 */
export function afterSeal(c: Cadence, s: ClockState, now: number): ClockState {
  let start = s.nextSealAt;
  if (now - start >= c.blockTimeMs) start += Math.floor((now - start) / c.blockTimeMs) * c.blockTimeMs;
  return { blockStart: start, nextSealAt: start + c.blockTimeMs, lastFlashblock: 0 };
}
