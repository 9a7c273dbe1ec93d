// The pending block number is judged in one place (src/harness/pending-block.ts) against the
// window the observations allow.
import { CheckFailure } from '../../src/harness/verdict';
import { inPendingBlockWindow, judgePendingBlockNumber, pendingBlockWindow } from '../../src/harness/pending-block';

describe('pendingBlockWindow', () => {
  it('runs from the head before to the head after plus one', () => {
    const w = pendingBlockWindow({ headBefore: 10n, headAfter: 11n });
    expect([w.low, w.high]).toEqual([10n, 12n]);
    // "pending" falling back to "latest" (no flashblock yet) names the head itself.
    expect(inPendingBlockWindow(10n, w)).toBe(true);
    expect(inPendingBlockWindow(9n, w)).toBe(false);
    expect(inPendingBlockWindow(13n, w)).toBe(false);
  });

  it('takes what eth_getBlockByNumber("pending") reported: a node serving pre-confirmations while its head lags', () => {
    const w = pendingBlockWindow({ headBefore: 10n, headAfter: 10n, pendingBlockNumbers: [12n, undefined] });
    expect([w.low, w.high]).toEqual([12n, 12n]);
    expect(w.basis).toMatch(/reported 0xc, the node's own number/);
    expect(pendingBlockWindow({ headBefore: 10n, headAfter: 10n, pendingBlockNumbers: [undefined] }).high).toBe(11n);
  });

  it('the node numbers its pending block head + 1: receipts numbered as the head are outside, whenever they are read', () => {
    const w = pendingBlockWindow({ headBefore: 10n, headAfter: 10n, pendingBlockNumbers: [11n] });
    expect([w.low, w.high]).toEqual([11n, 11n]);
    expect(inPendingBlockWindow(10n, w)).toBe(false);
    expect(() => judgePendingBlockNumber('receipts', 10n, w)).toThrow(CheckFailure);
  });

  it('"pending" answered as "latest" (no flashblock yet): the head and head + 1 both allowed', () => {
    const w = pendingBlockWindow({ headBefore: 10n, headAfter: 10n, pendingBlockNumbers: [10n] });
    expect([w.low, w.high]).toEqual([10n, 11n]);
  });

  it('keeps head + 1 allowed when eth_blockNumber reports the block being built', () => {
    // A node in that mode answers head 11 while sealed block 10 is latest; the window is read
    // from the heads the checks saw, so both 11 and 12 are accepted.
    const w = pendingBlockWindow({ headBefore: 11n, headAfter: 11n });
    expect(inPendingBlockWindow(11n, w) && inPendingBlockWindow(12n, w)).toBe(true);
  });

  it('orders heads read out of order (load balancers a block apart)', () => {
    const w = pendingBlockWindow({ headBefore: 12n, headAfter: 11n });
    expect([w.low, w.high]).toEqual([11n, 13n]);
  });
});

describe('judgePendingBlockNumber', () => {
  it('passes inside the window and fails outside, naming statement 4.3.2, with expected and actual', () => {
    const w = pendingBlockWindow({ headBefore: 10n, headAfter: 10n });
    expect(() => judgePendingBlockNumber('receipts', 11n, w)).not.toThrow();
    let err: unknown;
    try {
      judgePendingBlockNumber('receipts', 15n, w);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CheckFailure);
    expect((err as CheckFailure).detail).toEqual({ violated: ['4.3.2'], expected: '0xa..0xb', actual: '0xf' });
    expect((err as CheckFailure).message).toMatch(
      /^receipts: block number 0xf is not the pre-confirmed block \(head 0xa, so the block being built is at most head \+ 1/,
    );
  });
});
