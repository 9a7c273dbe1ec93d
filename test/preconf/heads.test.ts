// The stall rule of the pass (state.ts, Heads) on given times: a node that seals no block for a
// few block intervals while the signer's transactions wait has stopped sealing.
import { Stalled } from '../../src/harness/preconf/errors';
import { Heads, STALL_MAX_MS, STALL_MIN_MS } from '../../src/harness/preconf/state';
import { sealWaits } from '../../src/harness/preconf/timing';

/** Heads seen every `every` ms from t = 0, the head rising each `blockMs`. */
function seen(until: number, blockMs: number, every = 20, maxMs?: number): Heads {
  const h = new Heads(maxMs);
  for (let t = 0; t <= until; t += every) h.see(100n + BigInt(Math.floor(t / blockMs)), t);
  return h;
}

describe('Heads', () => {
  test('a seal is a head above every earlier one; a backend a block behind is none', () => {
    const h = new Heads();
    expect(h.see(10n, 0)).toBe(false);
    expect(h.see(11n, 1000)).toBe(true);
    expect(h.see(10n, 1100)).toBe(false);
    expect(h.see(11n, 1200)).toBe(false);
    expect(h.see(12n, 2000)).toBe(true);
    expect(h.intervalMs()).toBe(1000);
  });

  test('never stalls before the first send, however long the node is idle', () => {
    const h = seen(60_000, 1e9);
    expect(() => h.check(60_000)).not.toThrow();
  });

  test('with a known interval: stalled after five intervals (at least 5 s), not before', () => {
    const h = seen(3000, 1000);
    h.arm(3000);
    expect(h.stallMs()).toBe(STALL_MIN_MS);
    expect(() => h.check(3000 + STALL_MIN_MS - 1)).not.toThrow();
    expect(() => h.check(3000 + STALL_MIN_MS)).toThrow(Stalled);
    const slow = seen(8000, 2000);
    slow.arm(8000);
    expect(slow.stallMs()).toBe(10_000);
  });

  test('a seal after the send restarts the clock; disarmed once everything is sealed', () => {
    const h = seen(3000, 1000);
    h.arm(3000);
    h.see(104n, 7000);
    expect(() => h.check(7000 + STALL_MIN_MS - 1)).not.toThrow();
    h.disarm();
    expect(() => h.check(60_000)).not.toThrow();
  });

  test('no interval seen: one of the longest block times, or 5 s when the node was idle that long before the sends', () => {
    const once = seen(1500, 1000);
    once.arm(1500);
    expect(once.stallMs()).toBe(STALL_MAX_MS);
    expect(() => once.check(1500 + STALL_MAX_MS)).toThrow(
      /the node sealed no block for 13\d\d\d ms while the signer's transactions waited \(head 0x65, no block interval seen/,
    );
    const idle = seen(STALL_MAX_MS, 1e9);
    idle.arm(STALL_MAX_MS);
    expect(idle.stallMs()).toBe(STALL_MIN_MS);
  });

  test('a target whose longest block time is given (2 s): stalled after it and 1 s, whatever else was seen', () => {
    const { stallMaxMs } = sealWaits(2000);
    expect(stallMaxMs).toBe(3000);
    const once = seen(1500, 1000, 20, stallMaxMs);
    once.arm(1500);
    expect(() => once.check(1500 + 2999)).not.toThrow();
    expect(() => once.check(1500 + 3000)).toThrow(/no block interval seen; the pass gives up after 3000 ms without a seal/);
    // Five known intervals or STALL_MIN_MS would be longer: the given bound holds.
    const known = seen(3000, 1000, 20, stallMaxMs);
    known.arm(3000);
    expect(known.stallMs()).toBe(3000);
    const idle = seen(3000, 1e9, 20, stallMaxMs);
    idle.arm(3000);
    expect(idle.stallMs()).toBe(3000);
  });
});
