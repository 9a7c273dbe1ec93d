// Two pieces of evidence the pass weighs on its rounds alone (no node, no clock): a pending count
// that depends on the address's spelling (weighSpellings) and pending receipts that hold a later
// nonce of the signer without an earlier one of the same block (droppedReceipts).
import type { Hex } from 'viem';
import { weighSpellings, type SpellingRead } from '../../src/harness/preconf/spelling';
import { droppedReceipts } from '../../src/harness/preconf/dropped';
import type { SentTx } from '../../src/harness/preconf/evidence';
import type { Round } from '../../src/harness/preconf/timing';
import { SKEW_BOUND_MS } from '../../src/harness/preconf/timing';

const read = (atMs: number, checksummed: number, lowercase: number): SpellingRead => ({ atMs, checksummed: BigInt(checksummed), lowercase: BigInt(lowercase) });
const every = (fromMs: number, toMs: number, stepMs: number, c: number, l: number) => {
  const out: SpellingRead[] = [];
  for (let t = fromMs; t <= toMs; t += stepMs) out.push(read(t, c, l));
  return out;
};

describe('weighSpellings', () => {
  it('agree: the spellings never differ', () => expect(weighSpellings(every(0, 2000, 40, 5, 5)).kind).toBe('agree'));

  it('disagree: one spelling lower in every round, past the skew bound, seal or no seal (EthereumJS 0.10.5: 0x0 checksummed, 0x5 lowercase)', () => {
    const w = weighSpellings([...every(0, 100, 40, 0, 0), ...every(120, 5000, 40, 0, 5)]);
    expect(w).toMatchObject({ kind: 'disagree', lower: 'checksummed' });
  });

  it('cleared: backends ~400 ms apart whose routing sends each spelling to its own backend, then both catch up', () => {
    // Checksummed read on the trailing backend: old for 400 ms, then new.
    expect(weighSpellings([...every(0, 400, 20, 0, 5), ...every(420, 1500, 20, 5, 5)]).kind).toBe('cleared');
  });

  it('cleared: one spelling gave both values (alternating backends, one with Flashblocks off)', () => {
    const reads = every(0, 2000, 20, 0, 0).map((r, i) => read(r.atMs, i % 3 === 0 ? 0 : 5, i % 4 === 0 ? 0 : 5));
    expect(weighSpellings(reads).kind).toBe('cleared');
  });

  it('ambiguous: apart in every round, but for less than the skew bound (the seal came first)', () => {
    expect(weighSpellings(every(0, SKEW_BOUND_MS - 100, 40, 0, 5))).toMatchObject({ kind: 'ambiguous' });
    expect(weighSpellings([read(0, 0, 5), read(SKEW_BOUND_MS + 100, 0, 5)])).toMatchObject({ kind: 'ambiguous', apart: 2 });
  });
});

describe('droppedReceipts', () => {
  const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
  const sent: SentTx[] = [0, 1, 2, 3, 4].map((n) => ({ role: 'transfer', hash: hash(n + 1), nonce: BigInt(n), startedAt: 0, acceptedAt: 1 }));
  /** Rounds 1..k, every 20 ms; round i's pending receipts hold the suite's nonces `held[i]`; nonce n sealed in `sealed[n]` (default all in 101). */
  function observe(held: number[][], sealed: Array<bigint | undefined> = [101n, 101n, 101n, 101n, 101n]) {
    const rounds: Round[] = [0, ...held.map((_, i) => i + 1)].map((i) => ({ startedAt: 20 * i, endedAt: 20 * i + 5, head: 100n }));
    const values = new Map(held.map((ns, i) => [i + 1, { pending: ns.map((n) => ({ transactionHash: hash(n + 1) })), latest: [] }]));
    const sealedIn = new Map(sent.flatMap((t, n) => (sealed[n] === undefined ? [] : [[t.hash.toLowerCase(), sealed[n]!] as const])));
    return droppedReceipts(
      rounds,
      held.map((_, i) => i + 1),
      values,
      sent,
      sealedIn,
      0,
    );
  }

  it('a view holding a later nonce without an earlier one of the same block: 4.3 (receipts of the newest flashblock only), k of N', () => {
    const v = observe([[], [0, 1, 2], [0, 1, 2], [3, 4], [0, 1, 2, 3, 4], [3, 4]]);
    expect(v?.detail.violated).toEqual(['4.3.2']);
    expect(v?.message).toMatch(/at \+80 ms held nonce 3 .*, nonce 4 .* but not nonce 0 .*, nonce 1 .*, nonce 2 /);
    expect(v?.message).toMatch(/\(2 of 5 reads holding any of this attempt's transactions left one out\)/);
  });

  it('one such answer is evidence alone, with no read of the first batch before it (one backend in three meets few rounds)', () => {
    expect(
      observe([
        [0, 1, 2, 3, 4],
        [3, 4],
        [0, 1, 2, 3, 4],
      ])?.message,
    ).toMatch(/held nonce 3 .* but not nonce 0 /);
    expect(observe([[0, 2]])?.message).toMatch(/held nonce 0 .*, nonce 2 .* but not nonce 1 /);
  });

  it('views that trail one another (older views hold a prefix of the nonces) and views that grow: no evidence', () => {
    expect(observe([[], [0, 1, 2], [], [0, 1, 2, 3, 4], [0, 1, 2], [0], [0, 1, 2, 3, 4]])).toBeUndefined();
  });

  it('a lower nonce sealed in an earlier block: the view is of the next block, no evidence', () => {
    expect(
      observe(
        [
          [0, 1, 2],
          [3, 4],
          [3, 4],
        ],
        [101n, 101n, 101n, 102n, 102n],
      ),
    ).toBeUndefined();
  });

  it('nothing sealed (the node stopped sealing): which block the view is of cannot be told, no evidence', () => {
    expect(
      observe(
        [
          [0, 1, 2],
          [3, 4],
        ],
        [undefined, undefined, undefined, undefined, undefined],
      ),
    ).toBeUndefined();
    expect(
      observe(
        [
          [0, 1, 2],
          [3, 4],
        ],
        [undefined, undefined, undefined, 101n, 101n],
      ),
    ).toBeUndefined();
  });
});
