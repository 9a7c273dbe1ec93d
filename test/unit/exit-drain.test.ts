// The wait before exit (src/cli/exit.ts): as long as the reader takes bytes, and bounded when it stops.
import { drained, type DrainingStream } from '../../src/cli/exit';

/** A stream whose queue the test empties by hand, as a reader would. */
function queue(bytes: number): DrainingStream & { take(n: number): void; destroy(): void } {
  const s = { writableLength: bytes, destroyed: false, take: (n: number) => void (s.writableLength -= n), destroy: () => void (s.destroyed = true) };
  return s;
}

/** Whether the wait has ended, read after the fake clock moved (which runs the promise callbacks too). */
function watch(p: Promise<void>): () => boolean {
  let ended = false;
  void p.then(() => (ended = true));
  return () => ended;
}

describe('drained', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits while bytes are queued, however long, as long as the reader keeps taking them', async () => {
    const out = queue(10_000);
    const ended = watch(drained([out, queue(0)], 1_000));
    for (let i = 0; i < 9; i++) {
      await jest.advanceTimersByTimeAsync(900);
      out.take(1_000);
      expect(ended()).toBe(false);
    }
    out.take(1_000);
    await jest.advanceTimersByTimeAsync(100);
    expect(ended()).toBe(true);
  });

  it('gives up when the reader has taken nothing for the stall bound (a reader that stopped)', async () => {
    const ended = watch(drained([queue(70_000)], 1_000));
    await jest.advanceTimersByTimeAsync(900);
    expect(ended()).toBe(false);
    await jest.advanceTimersByTimeAsync(200);
    expect(ended()).toBe(true);
  });

  it('does not wait for a stream whose reader is gone', async () => {
    const out = queue(70_000);
    const ended = watch(drained([out], 60_000));
    out.destroy();
    await jest.advanceTimersByTimeAsync(100);
    expect(ended()).toBe(true);
  });
});
