// An attempt spoiled by timing (a loaded machine): its sends accepted too close to the seal, or
// watched too sparsely before it, in a block interval that leaves room to send early. Such an
// attempt proves nothing either way, so it does not use up the pass's attempts (bounded).
import { EARLY_MS, MAX_ATTEMPTS, MAX_SPOILED_ATTEMPTS, SEND_MS, spoiledWatch, type Round } from '../../src/harness/preconf/timing';

/** Round 0 before the sends at 0 ms, then rounds from `from` every `every` ms taking `rtt`; the head rises from 100 to 101 at `sealAt`. */
function rounds(opts: { from: number; every: number; rtt: number; sealAt: number; until: number }): Round[] {
  const out: Round[] = [{ startedAt: -5, endedAt: 0, head: 100n }];
  for (let t = opts.from; t <= opts.until; t += opts.every) {
    out.push({ startedAt: t, endedAt: t + opts.rtt, head: t + opts.rtt / 2 >= opts.sealAt ? 101n : 100n });
  }
  return out;
}

describe('spoiledWatch', () => {
  it('an unloaded attempt in a 2 s block (accepted at 20 ms, read every 20 ms) is not spoiled', () => {
    expect(spoiledWatch(rounds({ from: 25, every: 20, rtt: 4, sealAt: 2000, until: 2100 }), 20, 101n, 2000)).toBeUndefined();
  });

  it('sends accepted 1500 ms into a 2 s block (a busy machine) spoil the attempt: no miss could count', () => {
    const m = spoiledWatch(rounds({ from: 1500, every: 20, rtt: 4, sealAt: 2000, until: 2100 }), 1500, 101n, 2000);
    expect(m).toBeDefined();
    expect(m!.marginMs).toBeLessThan(EARLY_MS);
  });

  it('sends accepted early but one round of reads taking over a second (no two close looks) spoil it too', () => {
    const m = spoiledWatch(rounds({ from: 450, every: 1100, rtt: 1100, sealAt: 2000, until: 3000 }), 450, 101n, 2000);
    expect(m).toBeDefined();
    expect(m!.looks).toBeLessThan(2);
  });

  it('never on blocks shorter than EARLY_MS + SEND_MS (nearly every attempt is too soon there by design), nor with no interval known', () => {
    const r = rounds({ from: 300, every: 20, rtt: 4, sealAt: 400, until: 500 });
    expect(spoiledWatch(r, 300, 101n, 400)).toBeUndefined();
    // 1 s blocks: an aligned attempt would have 100 ms for its sends.
    expect(spoiledWatch(r, 300, 101n, 1000)).toBeUndefined();
    expect(spoiledWatch(r, 300, 101n, EARLY_MS + SEND_MS - 1)).toBeUndefined();
    expect(spoiledWatch(r, 300, 101n, undefined)).toBeUndefined();
    // The embedded target's 1.2 s: 300 ms for the sends.
    expect(spoiledWatch(r, 300, 101n, EARLY_MS + SEND_MS)).toBeDefined();
  });

  it('the extra attempts are bounded', () => {
    expect(MAX_SPOILED_ATTEMPTS).toBeGreaterThan(0);
    expect(MAX_ATTEMPTS + MAX_SPOILED_ATTEMPTS).toBeLessThanOrEqual(8);
  });
});
