// The pre-confirmation checks on evidence alone (no node, no clock): the reads of a behaviour after
// the round that first showed its pre-confirmed state, up to the seal. A read still showing the old
// state later than the skew bound (three refreshes), with no block sealed around it, is a violating
// sample (one backend of a fleet with Flashblocks off); one within the bound (backends trailing one
// another) or around a seal is not.
import type { Hex } from 'viem';
import type { RunContext } from '../../src/harness/check';
import { CheckFailure, Inconclusive } from '../../src/harness/verdict';
import type { Judged, LaterRead, PassResult, SentTx } from '../../src/harness/preconf/evidence';
import { SKEW_BOUND_MS } from '../../src/harness/preconf/timing';
import { SSTORE_MIN_GAS, RUNTIME_RETURNS_42, RUNTIME_SSTORE } from '../../src/harness/preconf/session';
import { codeDeploymentVisible } from '../../suites/preconf/code';
import { estimateDependsOnPreconfirmed } from '../../suites/preconf/estimate';
import { nonceBackToBack } from '../../suites/preconf/nonce';
import { receiptsPendingBlock } from '../../suites/preconf/receipts';
import { DEFS, type Def } from '../../src/harness/preconf/behaviours';
import { firstBatchShownAlone, laterReads } from '../../src/harness/preconf/attempt';
import { firstBatchShown } from '../../src/harness/preconf/watch';
import { aheadOfSeal, type Round } from '../../src/harness/preconf/timing';

const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;
const tx = (role: SentTx['role'], nonce: number, contract?: number): SentTx => ({
  role,
  hash: `0x${(nonce + 1).toString(16).padStart(64, '0')}`,
  nonce: BigInt(nonce),
  startedAt: 0,
  acceptedAt: 1,
  ...(contract !== undefined ? { contractAddress: addr(contract) } : {}),
});
const SENT: SentTx[] = [tx('transfer', 10), tx('deploy-returns-42', 11, 0xa), tx('deploy-sstore', 12, 0xb), tx('transfer', 13), tx('transfer', 14)];
const PLAIN = 21_000n;

function judged<V, A>(before: V, after: A, later: LaterRead[]): Judged<V, A> {
  return {
    attempt: 1,
    base: 10n,
    sent: SENT,
    before,
    // The same object: a test that changes what `before` read changes what "latest" showed beside it.
    latestRead: { view: before, aheadOfSeal: true },
    headBefore: 100n,
    headAfter: 100n,
    after,
    sealedIn: new Map(),
    visibleAfterMs: 120,
    later,
  };
}

/** A pass whose readings before and after the seal are all right, with these later reads. */
function passWith(later: LaterRead[]): PassResult {
  return {
    notes: [],
    attempts: 1,
    plain: PLAIN,
    outcomes: {
      nonce: {
        kind: 'judged',
        judged: judged({ pending: 15n, latest: 10n, pendingLowercase: 15n }, { pending: 15n, latest: 15n, pendingLowercase: 15n }, later),
      },
      code: {
        kind: 'judged',
        judged: judged({ pending: [RUNTIME_RETURNS_42, RUNTIME_SSTORE], latest: ['0x', '0x'] }, { latest: [RUNTIME_RETURNS_42, RUNTIME_SSTORE] }, later),
      },
      estimate: {
        kind: 'judged',
        judged: judged({ pending: PLAIN + SSTORE_MIN_GAS + 5000n, latest: PLAIN, omitted: PLAIN }, { latest: PLAIN + SSTORE_MIN_GAS + 5000n }, later),
      },
      receipts: {
        kind: 'judged',
        judged: judged(
          {
            pending: SENT.map((t) => ({ transactionHash: t.hash, blockNumber: '0x65', status: '0x1', gasUsed: t.role === 'transfer' ? '0x5208' : '0xd6d8' })),
            latest: [],
            pendingBlock: 101n,
          },
          { blocks: [] },
          later,
        ),
      },
    },
    latency: { samples: {}, timeline: { sends: [] } },
  };
}

async function run(
  c: { run: (ctx: RunContext) => Promise<void> },
  pass: PassResult,
): Promise<{ failure?: CheckFailure; inconclusive?: Inconclusive; notes: string[] }> {
  const notes: string[] = [];
  const ctx = {
    settings: { profile: 'dedicated' },
    signal: new AbortController().signal,
    note: (t: string) => notes.push(t),
    metric: () => undefined,
    shared: async () => pass,
  } as unknown as RunContext;
  try {
    await c.run(ctx);
    return { notes };
  } catch (err) {
    if (err instanceof CheckFailure) return { failure: err, notes };
    if (err instanceof Inconclusive) return { inconclusive: err, notes };
    throw err;
  }
}

const fresh = (afterMs: number): LaterRead => ({ afterMs, old: false, preSeal: true, withdrawn: false, aheadOfSeal: true, shown: 'new' });
const stale = (afterMs: number, preSeal = true, withdrawn = false): LaterRead => ({
  afterMs,
  old: true,
  preSeal,
  withdrawn,
  aheadOfSeal: preSeal,
  shown: { stale: afterMs },
});
const CHECKS = [nonceBackToBack, codeDeploymentVisible, estimateDependsOnPreconfirmed, receiptsPendingBlock];

describe.each(CHECKS)('$id on its later reads', (c) => {
  it('passes when every later read shows the pre-confirmed state', async () => {
    expect((await run(c, passWith([fresh(20), fresh(40), fresh(900)]))).failure).toBeUndefined();
  });

  it('fails on reads showing the old state beyond the skew bound, k of N, keeping the first', async () => {
    const later = [fresh(20), stale(SKEW_BOUND_MS + 50), fresh(900), stale(1100), fresh(1120)];
    const { failure } = await run(c, passWith(later));
    expect(failure).toBeDefined();
    expect(failure!.message).toContain('2 of 5 later reads showed the old state');
    expect(failure!.detail?.actual).toEqual({ afterMs: SKEW_BOUND_MS + 50, read: { stale: SKEW_BOUND_MS + 50 } });
  });

  it('excuses old and new state alternating within the skew bound (backends ~400 ms apart) and around a seal (a block of skew)', async () => {
    const later = [stale(20), fresh(60), stale(250), fresh(300), stale(420), stale(SKEW_BOUND_MS), fresh(640), stale(900, false), fresh(950)];
    const { failure, notes } = await run(c, passWith(later));
    expect(failure).toBeUndefined();
    expect(notes.join('\n')).toContain('5 showed the old state, 5 of them within 600 ms');
  });

  it('excuses the old state read while the pending block no longer listed the transactions (a flashblock reorg withdrew them)', async () => {
    const later = [fresh(20), fresh(300), stale(700, true, true), stale(1000, true, true), stale(1300, true, true)];
    const { failure, notes } = await run(c, passWith(later));
    expect(failure).toBeUndefined();
    expect(notes.join('\n')).toContain('while the pending block no longer listed the transactions (3 read(s)');
  });

  it('still fails a stale view beside a pending block that lists the transactions (state left behind)', async () => {
    const later = [fresh(20), stale(700, true, true), stale(1000), stale(1300)];
    const { failure } = await run(c, passWith(later));
    expect(failure?.message).toContain('2 of 4 later reads showed the old state');
  });

  it('passes with no later read (a behaviour established in the last round before its seal)', async () => {
    expect((await run(c, passWith([]))).failure).toBeUndefined();
  });
});

describe('what a later read counts as the old state', () => {
  const a = { base: 10n, sent: SENT, call: {} };
  it('nonce: either spelling short of every transaction', () => {
    expect(DEFS.nonce.stale!({ pending: 15n, pendingLowercase: 15n, latest: 10n }, a, PLAIN)).toEqual([]);
    expect(DEFS.nonce.stale!({ pending: 10n, pendingLowercase: 15n, latest: 10n }, a, PLAIN)).toEqual(SENT);
    // Per transaction: a count of 13 shows nonces 10..12, not 13 and 14.
    expect(DEFS.nonce.stale!({ pending: 15n, pendingLowercase: 13n, latest: 10n }, a, PLAIN)).toEqual(SENT.slice(3));
    // After the seal "latest" caught up: a count from "latest" is no longer old.
    expect(DEFS.nonce.stale!({ pending: 15n, pendingLowercase: 15n, latest: 15n }, a, PLAIN)).toEqual([]);
  });
  it('code: any deployment without code at "pending"', () => {
    expect(DEFS.code.stale!({ pending: [RUNTIME_RETURNS_42, RUNTIME_SSTORE], latest: ['0x', '0x'] }, a, PLAIN)).toEqual([]);
    expect(DEFS.code.stale!({ pending: [RUNTIME_RETURNS_42, '0x'], latest: ['0x', '0x'] }, a, PLAIN)).toEqual([SENT[2]]);
  });
  it('estimate: against the code-less estimate, so a "latest" that already runs the contract changes nothing', () => {
    expect(DEFS.estimate.stale!({ pending: PLAIN + SSTORE_MIN_GAS, latest: PLAIN, omitted: PLAIN }, a, PLAIN)).toEqual([]);
    expect(DEFS.estimate.stale!({ pending: PLAIN + SSTORE_MIN_GAS, latest: PLAIN + SSTORE_MIN_GAS, omitted: PLAIN }, a, PLAIN)).toEqual([]);
    expect(DEFS.estimate.stale!({ pending: PLAIN, latest: PLAIN, omitted: PLAIN }, a, PLAIN)).toEqual([SENT[2]]);
  });
  it("receipts: any of the suite's transactions missing (read on to the seal, for the receipts of older flashblocks)", () => {
    const r = (...ns: number[]) => ns.map((n) => ({ transactionHash: SENT[n].hash }));
    expect(DEFS.receipts.stale!({ pending: r(0, 1, 2, 3, 4), latest: [] }, a, PLAIN)).toEqual([]);
    expect(DEFS.receipts.stale!({ pending: r(3, 4), latest: [] }, a, PLAIN)).toEqual(SENT.slice(0, 3));
  });
});

describe('preconf.nonce.back-to-back on the two spellings of the address', () => {
  /** The pass of passWith, its nonce reading before the seal with the spellings apart (cleared by the pass's rounds: backends a refresh apart). */
  function spellingsApart(): PassResult {
    const pass = passWith([]);
    const nonce = pass.outcomes.nonce as { kind: 'judged'; judged: Judged<{ pending: bigint; latest: bigint; pendingLowercase: bigint }, unknown> };
    nonce.judged.before = { pending: 10n, latest: 10n, pendingLowercase: 15n };
    return pass;
  }

  it('passes when the first round had them apart but the rounds cleared it: skew, never blamed on the spelling', async () => {
    const r = await run(nonceBackToBack, spellingsApart());
    expect(r.failure).toBeUndefined();
    expect(r.notes.join('\n')).toMatch(/spellings apart/);
  });

  it('fails 4.5 on spelling evidence, seal or no seal, saying the two spellings disagree', async () => {
    const pass = passWith([]);
    const apart = [0, 300, 700, 1100].map((atMs) => ({ atMs, checksummed: 0n, lowercase: 5n }));
    pass.outcomes.nonce = {
      kind: 'spelling',
      evidence: { kind: 'disagree', lower: 'checksummed', apart, spanMs: 1100, rounds: 4, attempt: 1, base: 0n, sent: 5 },
    };
    const r = await run(nonceBackToBack, pass);
    expect(r.failure?.detail.violated).toEqual(['4.5.2', '1.4.1']);
    expect(r.failure?.message).toMatch(
      /^the two spellings of the signer's address disagree: .* answered 0x0 checksummed and 0x5 lowercase in 4 of 4 rounds over 1100 ms/,
    );
    expect(r.failure?.message).not.toMatch(/nonce showed at pending/);
  });

  it('fails after the seal when the one settled read has them apart', async () => {
    const pass = passWith([]);
    const nonce = pass.outcomes.nonce as { kind: 'judged'; judged: Judged<unknown, { pending: bigint; latest: bigint; pendingLowercase: bigint }> };
    nonce.judged.after = { pending: 15n, latest: 15n, pendingLowercase: 10n };
    expect((await run(nonceBackToBack, pass)).failure?.detail.violated).toEqual(['4.5.2']);
  });
});

describe('preconf.estimate.depends-on-preconfirmed with no block parameter (4.4: the default is "latest")', () => {
  const estimates = (omitted: bigint, later: LaterRead[] = []): PassResult => {
    const pass = passWith(later);
    (pass.outcomes.estimate as { judged: Judged<{ omitted: bigint }, unknown> }).judged.before.omitted = omitted;
    return pass;
  };
  const seesContract = (afterMs: number, aheadOfSeal: boolean): LaterRead => ({
    afterMs,
    old: false,
    preSeal: true,
    withdrawn: false,
    aheadOfSeal,
    shown: { pending: '46000', latest: '21000', noBlockParameter: '46000' },
  });
  it('passes when it equals the "latest" estimate', async () => {
    expect((await run(estimateDependsOnPreconfirmed, estimates(PLAIN))).failure).toBeUndefined();
  });
  it('fails citing 4.4 when it sees the pre-confirmed contract (answered from "pending")', async () => {
    const { failure } = await run(estimateDependsOnPreconfirmed, estimates(PLAIN + SSTORE_MIN_GAS + 5000n));
    expect(failure?.detail.violated).toEqual(['4.4.1']);
    expect(failure?.message).toMatch(/the default block is "pending"/);
  });
  it('fails on a later read before the seal that does (one backend of a fleet)', async () => {
    const { failure } = await run(estimateDependsOnPreconfirmed, estimates(PLAIN, [seesContract(400, true)]));
    expect(failure?.message).toMatch(/^400 ms after the state was first seen/);
  });
  it('counts, and does not judge, a later read within the skew bound of the seal that does (a backend that had sealed)', async () => {
    const { failure, notes } = await run(estimateDependsOnPreconfirmed, estimates(PLAIN, [seesContract(400, false)]));
    expect(failure).toBeUndefined();
    expect(notes.join('\n')).toMatch(
      /1 read\(s\) within 600 ms of the seal executed the contract by default, as a backend that had already sealed does \(not judged\)/,
    );
  });
  it('still fails a later read near the seal whose default is neither estimate (no seal explains it)', async () => {
    const odd = { ...seesContract(400, false), shown: { pending: '46000', latest: '21000', noBlockParameter: '30000' } };
    expect((await run(estimateDependsOnPreconfirmed, estimates(PLAIN, [odd]))).failure?.message).toMatch(/the default block is not "latest"/);
  });
  it('is inconclusive, not failed, when the first pre-confirmed round was within the skew bound of the seal', async () => {
    const pass = estimates(PLAIN + SSTORE_MIN_GAS + 5000n);
    (pass.outcomes.estimate as { judged: Judged<unknown, unknown> }).judged.latestRead.aheadOfSeal = false;
    const r = await run(estimateDependsOnPreconfirmed, pass);
    expect(r.failure).toBeUndefined();
    expect(r.inconclusive?.message).toMatch(/within 600 ms of the seal, where a backend behind the same URL that had already sealed answers so too/);
  });
});

describe('"latest" showing the pre-confirmed state before the seal: evidence only ahead of it', () => {
  const sealedLatest = {
    code: [RUNTIME_RETURNS_42, '0x'],
    nonce: 15n,
    estimate: PLAIN + SSTORE_MIN_GAS + 5000n,
    receipts: [{ transactionHash: SENT[0].hash, blockNumber: '0x65', status: '0x1' }],
  };
  const withLatest = (b: keyof typeof sealedLatest, aheadOfSeal: boolean): PassResult => {
    const pass = passWith([]);
    const judged = (pass.outcomes[b] as { judged: Judged<{ latest: unknown }, unknown> }).judged;
    // An earlier round than the one that established the view, as the pass hands it over when that round was ahead of the seal.
    judged.latestRead = { view: { ...judged.before, latest: sealedLatest[b] }, aheadOfSeal };
    return pass;
  };
  it.each([
    ['code', codeDeploymentVisible, /eth_getCode\(.*, "latest"\) is .* before the block holding the deployment was sealed/],
    ['nonce', nonceBackToBack, /eth_getTransactionCount\(signer, "latest"\) is 15 before the block holding the transactions was sealed/],
    ['estimate', estimateDependsOnPreconfirmed, /eth_estimateGas at "latest" \(46000\) already executes the contract before the block holding it was sealed/],
    ['receipts', receiptsPendingBlock, /eth_getBlockReceipts\("latest"\) already holds 0x0+b while none of them was sealed/],
  ] as const)('%s: fails ahead of the seal, is inconclusive within the skew bound of it', async (b, c, said) => {
    const ahead = await run(c, withLatest(b, true));
    expect(ahead.failure?.message).toMatch(said);
    const near = await run(c, withLatest(b, false));
    expect(near.failure).toBeUndefined();
    expect(near.inconclusive?.message).toMatch(said);
  });
});

describe('laterReads: each transaction judged from its own first sighting', () => {
  // Rounds 150 ms apart (each 50 ms long), no seal among them (head 100, the transactions sealed in 101).
  const rounds: Round[] = Array.from({ length: 14 }, (_, i) => ({ startedAt: i * 150, endedAt: i * 150 + 50, head: 100n }));
  const a = { base: 10n, sent: SENT, call: {} };
  const shows = (...ns: number[]) => ({ pending: ns.map((n) => ({ transactionHash: SENT[n].hash })), latest: [] });
  const def = DEFS.receipts as Def<unknown, unknown>;
  // The first batch shows in round 2, the whole attempt only in round 9 (the second batch a flashblock or more later).
  const values = new Map<number, unknown>([
    [1, shows()],
    [2, shows(0, 1, 2)],
    [3, shows(0, 1, 2)],
    [4, shows()], // one backend answering "pending" as "latest": within the bound of round 2's sighting
    [5, shows(0, 1, 2)],
    [7, shows()], // the same backend 700 ms after the first batch showed: past the bound
    [8, shows(0, 1, 2)],
    [9, shows(0, 1, 2, 3, 4)],
    [10, shows(0, 1, 2, 3, 4)],
    [12, shows()], // 1150 ms after the first batch, 450 ms after the second
  ]);
  const looks = [...values.keys()];
  const later = laterReads(rounds, looks, values, def, a, PLAIN, 101n);

  it('reads from the first sighting of any transaction on, each asked only for those shown before it', () => {
    expect(later.map((r) => [r.old, r.afterMs])).toEqual([
      [false, 100], // round 3 started at 450, round 2 ended at 350
      [true, 250],
      [false, 400],
      [true, 700],
      [false, 850],
      [false, 1000],
      [false, 1150],
      // Round 12 leaves out all five: counted from the oldest sighting among them (round 2).
      [true, 1450],
    ]);
  });

  it('a backend that never shows the pre-confirmed state is met past the bound before the round that showed them all', async () => {
    const beyond = later.filter((r) => r.old && r.afterMs > SKEW_BOUND_MS);
    expect(beyond.map((r) => r.afterMs)).toEqual([700, 1450]);
    const r = await run(receiptsPendingBlock, passWith(later));
    expect(r.failure?.message).toMatch(/^eth_getBlockReceipts\("pending"\): 2 of 8 later reads showed the old state more than 600 ms after/);
  });

  it('a read leaving out only transactions shown less than the bound before it is within the skew', () => {
    const v = new Map<number, unknown>([
      [2, shows(0, 1, 2)],
      [9, shows(0, 1, 2, 3, 4)],
      [10, shows(0, 1, 2)], // leaves out the second batch 100 ms after it first showed (round 9 ended at 1400)
    ]);
    const reads = laterReads(rounds, [...v.keys()], v, def, a, PLAIN, 101n);
    expect(reads.map((x) => [x.old, x.afterMs])).toEqual([
      [false, 1000],
      [true, 100],
    ]);
  });

  it('ahead of the seal: a head read begun more than the skew bound after the answers still showed no seal', () => {
    // Round 13 (started 1950 ms) is the last with head 100: rounds answered by 1350 ms (round 8) are ahead.
    expect(later.map((r) => r.aheadOfSeal)).toEqual([true, true, true, true, true, false, false, false]);
    // A head read showing block 101 from round 10 on (one backend sealed): only rounds up to 4 are.
    const sealedAt10 = rounds.map((r, i) => (i < 10 ? r : { ...r, head: 101n }));
    expect(looks.map((i) => aheadOfSeal(sealedAt10, i, 101n))).toEqual(looks.map((i) => i <= 4));
    // Not sealed (no block holds them): never ahead of a seal the rounds did not see.
    expect(aheadOfSeal(rounds, 1, undefined)).toBe(false);
  });

  it('the pending block after the seal (the next block, listing none of them) withdraws nothing', () => {
    const all = new Set(SENT.map((t) => t.hash));
    // Block 101 sealed them in round 12: its pending block is the next one, empty.
    const sealedAt12 = rounds.map((r, i) => (i < 12 ? { ...r, listed: all } : { ...r, head: 101n, listed: new Set<string>() }));
    expect(laterReads(sealedAt12, looks, values, def, a, PLAIN, 101n).map((x) => x.withdrawn)).toEqual(later.map(() => false));
    // Without a seal at or below round 12's head, the same empty pending block is a withdrawal.
    expect(laterReads(sealedAt12, looks, values, def, a, PLAIN, 102n).map((x) => x.withdrawn)).toEqual([false, false, false, false, false, false, false, true]);
  });

  it('a pending block that no longer lists a transaction shown before: withdrawn, whichever were not yet shown', () => {
    // The pending block lists the first batch, then all five from round 9; round 7's lists none of them (a reorg).
    const hashes = (ns: number[]) => new Set(ns.map((n) => SENT[n].hash));
    const listed = rounds.map((r, i) => ({ ...r, listed: i === 7 ? hashes([]) : i < 9 ? hashes([0, 1, 2]) : hashes([0, 1, 2, 3, 4]) }));
    const reads = laterReads(listed, looks, values, def, a, PLAIN, 101n);
    // Rounds 7 and 8 have round 7's pending block around them (withdrawnIn); reads before round 9
    // are not asked for the second batch, which the pending block did not list yet.
    expect(reads.map((x) => x.withdrawn)).toEqual([false, false, false, true, true, false, false, false]);
  });
});

describe('pending receipts judged on two flashblocks only when a read showed them apart', () => {
  const receiptsDef = DEFS.receipts as Def<unknown, unknown>;
  const a = { base: 10n, sent: SENT, call: { from: addr(1), to: addr(0xb), value: '0x0' as Hex }, split: true };
  const view = (shown: SentTx[]) => ({ pending: shown.map((t) => ({ transactionHash: t.hash })), latest: [], pendingBlock: undefined });
  const track = (...reads: SentTx[][]) => ({ looks: reads.map((_, i) => i + 1), values: new Map(reads.map((r, i) => [i + 1, view(r)])) });
  const [first, second] = [SENT.slice(0, 3), SENT.slice(3)];

  it('a read of the first batch alone, then all five: two flashblocks, judged', () => {
    expect(firstBatchShownAlone(track([], first, [...first, ...second]), receiptsDef, a)).toBe(true);
  });

  it('all five from the first read on (a flashblock tick skipped under load): one flashblock may hold them, not judged', () => {
    expect(firstBatchShownAlone(track([], [...first, ...second], [...first, ...second]), receiptsDef, a)).toBe(false);
  });

  it('the second batch without the first (the newest flashblock only) proves nothing of two flashblocks', () => {
    expect(firstBatchShownAlone(track([], second), receiptsDef, a)).toBe(false);
  });

  // reth and geth count a transaction in the pool before a flashblock carries it (op-reth's
  // "pending" count): only the pending receipts say the first batch is in a flashblock.
  it('the second batch is sent once the pending receipts hold the first, whatever the pending count says', () => {
    const firstOnly = { ...a, sent: first, split: false };
    expect(firstBatchShown(view([]), firstOnly)).toBe(false);
    expect(firstBatchShown(undefined, firstOnly)).toBe(false);
    expect(firstBatchShown(view(first.slice(0, 1)), firstOnly)).toBe(true);
  });
});
