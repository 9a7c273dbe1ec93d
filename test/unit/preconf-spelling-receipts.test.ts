// Two pieces of evidence the pass weighs on its rounds alone (no node, no clock): a pending count
// that depends on the address's spelling (weighSpellings) and pending receipts that lose a
// pre-confirmed transaction of an earlier round (droppedReceipts).
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
  /** Rounds 0..k, every 20 ms, the head `heads[i]`; round i's pending receipts hold the suite's nonces `held[i]`. */
  function observe(held: number[][], heads = held.map(() => 100n)) {
    const rounds: Round[] = [
      { startedAt: 0, endedAt: 5, head: 100n },
      ...held.map((_, i) => ({ startedAt: 20 * (i + 1), endedAt: 20 * (i + 1) + 5, head: heads[i] })),
    ];
    rounds.push({ startedAt: 20 * (held.length + 1), endedAt: 20 * (held.length + 1) + 5, head: heads[heads.length - 1] });
    const values = new Map(held.map((ns, i) => [i + 1, { pending: ns.map((n) => ({ transactionHash: hash(n + 1) })), latest: [] }]));
    return droppedReceipts(
      rounds,
      held.map((_, i) => i + 1),
      values,
      sent,
      new Map(),
      0,
    );
  }

  it('a newer view that lost a transaction of an older one in the same block: 4.3 (receipts of the newest flashblock only)', () => {
    const v = observe([[], [0, 1, 2], [0, 1, 2], [3, 4], [3, 4]]);
    expect(v?.detail.violated).toEqual(['4.3.2']);
    expect(v?.message).toMatch(/held nonce 3 .*, nonce 4 .* but no longer nonce 0 .*, nonce 1 .*, nonce 2 /);
  });

  it('views that trail one another (older views hold fewer) and views that grow: no evidence', () => {
    expect(observe([[], [0, 1, 2], [], [0, 1, 2, 3, 4], [0, 1, 2], [0, 1, 2, 3, 4]])).toBeUndefined();
  });

  it('a seal in between starts a new pre-confirmed block: no evidence', () => {
    expect(
      observe(
        [
          [0, 1, 2],
          [0, 1, 2],
          [3, 4],
          [3, 4],
        ],
        [100n, 100n, 101n, 101n],
      ),
    ).toBeUndefined();
  });
});
