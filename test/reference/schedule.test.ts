// The sequencer clock's arithmetic (src/reference/schedule.ts), without timers.
import { afterSeal, nextEvent, startClock, type Cadence, type ClockEvent, type ClockState } from '../../src/reference/schedule';

const BASE: Cadence = { blockTimeMs: 2000, flashblockMs: 200 };

/** Runs the clock as the timer loop does, each event handled `lateMs` after it was due. */
function run(c: Cadence, until: number, lateMs = 0): ClockEvent[] {
  let s: ClockState = startClock(c, 0);
  const events: ClockEvent[] = [];
  let now = 0;
  while (now < until) {
    const e = nextEvent(c, s, now);
    now = Math.max(now, e.at) + lateMs;
    events.push(e);
    s = e.kind === 'seal' ? afterSeal(c, s, now) : { ...s, lastFlashblock: e.index };
  }
  return events;
}

describe('flashblock and seal schedule', () => {
  test('nine flashblocks then a seal per 2 s block, aligned to the block start', () => {
    const events = run(BASE, 4000);
    expect(events.map((e) => `${e.kind[0]}${e.at}`)).toEqual([
      'f200',
      'f400',
      'f600',
      'f800',
      'f1000',
      'f1200',
      'f1400',
      'f1600',
      'f1800',
      's2000',
      'f2200',
      'f2400',
      'f2600',
      'f2800',
      'f3000',
      'f3200',
      'f3400',
      'f3600',
      'f3800',
      's4000',
    ]);
  });

  test('a block time that is not a multiple of the flashblock time still seals on its own grid', () => {
    const events = run({ blockTimeMs: 1000, flashblockMs: 300 }, 2000);
    expect(events.map((e) => `${e.kind[0]}${e.at}`)).toEqual(['f300', 'f600', 'f900', 's1000', 'f1300', 'f1600', 'f1900', 's2000']);
  });

  test('flashblocks 0: only seals', () => {
    expect(run({ blockTimeMs: 1000, flashblockMs: 0 }, 3000).map((e) => `${e.kind[0]}${e.at}`)).toEqual(['s1000', 's2000', 's3000']);
  });

  test('flashblocks that fell behind run late as one (the most recent), never repeated; the seal is never skipped', () => {
    const s = startClock(BASE, 0);
    // Woken 450 ms late for the first flashblock: the third (600) runs at once, the first two are skipped.
    expect(nextEvent(BASE, s, 650)).toEqual({ kind: 'flashblock', at: 600, index: 3 });
    // Woken 20 ms late: that flashblock runs, late, rather than waiting for the next.
    expect(nextEvent(BASE, { ...s, lastFlashblock: 1 }, 420)).toEqual({ kind: 'flashblock', at: 400, index: 2 });
    // A timer that fires a hair early must not run the same flashblock twice.
    expect(nextEvent(BASE, { ...s, lastFlashblock: 1 }, 199)).toEqual({ kind: 'flashblock', at: 400, index: 2 });
    // Past the last flashblock of the block: the seal comes next, even when already due.
    expect(nextEvent(BASE, { ...s, lastFlashblock: 9 }, 1900)).toEqual({ kind: 'seal', at: 2000 });
    expect(nextEvent(BASE, s, 2100)).toEqual({ kind: 'seal', at: 2000 });
    // A block time that is no multiple of the flashblock time: a flashblock that fell behind a seal already due does not go first.
    const odd: Cadence = { blockTimeMs: 1000, flashblockMs: 300 };
    expect(nextEvent(odd, { ...startClock(odd, 0), lastFlashblock: 2 }, 1050)).toEqual({ kind: 'seal', at: 1000 });
    expect(nextEvent(odd, { ...startClock(odd, 0), lastFlashblock: 2 }, 950)).toEqual({ kind: 'flashblock', at: 900, index: 3 });
  });

  test('after a late seal the next block keeps the grid; after a very late one, missed seals are skipped', () => {
    const s = startClock(BASE, 0);
    expect(afterSeal(BASE, s, 2030)).toEqual({ blockStart: 2000, nextSealAt: 4000, lastFlashblock: 0 });
    expect(nextEvent(BASE, afterSeal(BASE, s, 2030), 2030)).toEqual({ kind: 'flashblock', at: 2200, index: 1 });
    expect(afterSeal(BASE, s, 6500)).toEqual({ blockStart: 6000, nextSealAt: 8000, lastFlashblock: 0 });
  });

  test('under a steady 30 ms lateness every block still gets its seal and most of its flashblocks', () => {
    const events = run(BASE, 10_000, 30);
    const seals = events.filter((e) => e.kind === 'seal').map((e) => e.at);
    expect(seals).toEqual([2000, 4000, 6000, 8000, 10_000]);
    expect(events.filter((e) => e.kind === 'flashblock').length).toBe(45);
  });
});
