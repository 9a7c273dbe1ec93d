import { Slots } from '../../src/harness/slots';

/** Lets every settled promise's continuations run. */
const flush = () => new Promise((r) => setImmediate(r));

describe('Slots: how many read-only checks ask the target at once', () => {
  it('holds at most its size, and serves waiters in order', async () => {
    const slots = new Slots(2);
    const got: number[] = [];
    const takers = [1, 2, 3, 4].map((i) => slots.take().then(() => got.push(i)));
    await flush();
    expect(got).toEqual([1, 2]);
    slots.give();
    await flush();
    expect(got).toEqual([1, 2, 3]);
    slots.give();
    await Promise.all(takers);
    expect(got).toEqual([1, 2, 3, 4]);
  });

  it('a large answer limits it to a few for good: those held are kept until given back, never below one', async () => {
    const slots = new Slots(16);
    for (let i = 0; i < 5; i++) await slots.take();
    slots.limitTo(2);
    expect(slots.limit).toBe(2);
    let next = false;
    const waiting = slots.take().then(() => (next = true));
    for (let i = 0; i < 3; i++) slots.give(); // five held, two allowed: three gives are kept
    await flush();
    expect(next).toBe(false);
    slots.give(); // two held, one given back: the waiter takes it
    await waiting;
    expect(next).toBe(true);
    slots.limitTo(8); // never grows back
    expect(slots.limit).toBe(2);
    slots.limitTo(0);
    expect(slots.limit).toBe(1);
  });

  it('a throttled answer takes one slot away for good, never the last one', async () => {
    const slots = new Slots(3);
    await slots.take();
    await slots.take();
    await slots.take();
    slots.shrink(); // all three held: the next give is kept
    expect(slots.limit).toBe(2);
    let fourth = false;
    const waiting = slots.take().then(() => (fourth = true));
    slots.give();
    await flush();
    expect(fourth).toBe(false);
    slots.give();
    await waiting;
    expect(fourth).toBe(true);
    slots.shrink();
    slots.shrink();
    slots.shrink();
    expect(slots.limit).toBe(1);
  });
});
