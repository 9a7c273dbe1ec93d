// The pre-confirmation checks on evidence alone (no node, no clock): the reads of a behaviour after
// the round that first showed its pre-confirmed state, up to the seal. A read still showing the old
// state later than the refresh tolerance, with no block sealed around it, is a violating sample
// (one backend of a fleet with Flashblocks off); one within the tolerance or around a seal is not.
import type { Hex } from 'viem';
import type { RunContext } from '../../src/harness/check';
import { CheckFailure } from '../../src/harness/verdict';
import type { Judged, LaterRead, PassResult, SentTx } from '../../src/harness/preconf/evidence';
import { REFRESH_TOLERANCE_MS } from '../../src/harness/preconf/timing';
import { SSTORE_MIN_GAS, RUNTIME_RETURNS_42, RUNTIME_SSTORE } from '../../src/harness/preconf/session';
import { codeDeploymentVisible } from '../../suites/preconf/code';
import { estimateDependsOnPreconfirmed } from '../../suites/preconf/estimate';
import { nonceBackToBack } from '../../suites/preconf/nonce';
import { DEFS } from '../../src/harness/preconf/behaviours';

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
  return { attempt: 1, base: 10n, sent: SENT, before, headBefore: 100n, headAfter: 100n, after, sealedIn: new Map(), visibleAfterMs: 120, later };
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
        judged: judged({ pending: PLAIN + SSTORE_MIN_GAS + 5000n, latest: PLAIN }, { latest: PLAIN + SSTORE_MIN_GAS + 5000n }, later),
      },
    },
    latency: { samples: {}, timeline: { sends: [] } },
  };
}

async function run(c: { run: (ctx: RunContext) => Promise<void> }, pass: PassResult): Promise<{ failure?: CheckFailure; notes: string[] }> {
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
    throw err;
  }
}

const fresh = (afterMs: number): LaterRead => ({ afterMs, old: false, preSeal: true, shown: 'new' });
const stale = (afterMs: number, preSeal = true): LaterRead => ({ afterMs, old: true, preSeal, shown: { stale: afterMs } });
const CHECKS = [nonceBackToBack, codeDeploymentVisible, estimateDependsOnPreconfirmed];

describe.each(CHECKS)('$id on its later reads', (c) => {
  it('passes when every later read shows the pre-confirmed state', async () => {
    expect((await run(c, passWith([fresh(20), fresh(40), fresh(600)]))).failure).toBeUndefined();
  });

  it('fails on reads showing the old state beyond the refresh tolerance, k of N, keeping the first', async () => {
    const later = [fresh(20), stale(REFRESH_TOLERANCE_MS + 50), fresh(500), stale(700), fresh(720)];
    const { failure } = await run(c, passWith(later));
    expect(failure).toBeDefined();
    expect(failure!.message).toContain('2 of 5 later reads showed the old state');
    expect(failure!.detail?.actual).toEqual({ afterMs: REFRESH_TOLERANCE_MS + 50, read: { stale: REFRESH_TOLERANCE_MS + 50 } });
  });

  it('excuses the old state within the refresh tolerance (another backend a tick later) and around a seal (a block of skew)', async () => {
    const later = [stale(20), stale(REFRESH_TOLERANCE_MS), fresh(300), stale(900, false), fresh(950)];
    const { failure, notes } = await run(c, passWith(later));
    expect(failure).toBeUndefined();
    expect(notes.join('\n')).toContain('3 showed the old state, 3 of them within');
  });

  it('passes with no later read (a behaviour established in the last round before its seal)', async () => {
    expect((await run(c, passWith([]))).failure).toBeUndefined();
  });
});

describe('what a later read counts as the old state', () => {
  const a = { base: 10n, sent: SENT, call: {} };
  it('nonce: either spelling short of every transaction', () => {
    expect(DEFS.nonce.stale!({ pending: 15n, pendingLowercase: 15n, latest: 10n }, a, PLAIN)).toBe(false);
    expect(DEFS.nonce.stale!({ pending: 10n, pendingLowercase: 15n, latest: 10n }, a, PLAIN)).toBe(true);
    // After the seal "latest" caught up: a count from "latest" is no longer old.
    expect(DEFS.nonce.stale!({ pending: 15n, pendingLowercase: 15n, latest: 15n }, a, PLAIN)).toBe(false);
  });
  it('code: any deployment without code at "pending"', () => {
    expect(DEFS.code.stale!({ pending: [RUNTIME_RETURNS_42, RUNTIME_SSTORE], latest: ['0x', '0x'] }, a, PLAIN)).toBe(false);
    expect(DEFS.code.stale!({ pending: [RUNTIME_RETURNS_42, '0x'], latest: ['0x', '0x'] }, a, PLAIN)).toBe(true);
  });
  it('estimate: against the code-less estimate, so a "latest" that already runs the contract changes nothing', () => {
    expect(DEFS.estimate.stale!({ pending: PLAIN + SSTORE_MIN_GAS, latest: PLAIN }, a, PLAIN)).toBe(false);
    expect(DEFS.estimate.stale!({ pending: PLAIN + SSTORE_MIN_GAS, latest: PLAIN + SSTORE_MIN_GAS }, a, PLAIN)).toBe(false);
    expect(DEFS.estimate.stale!({ pending: PLAIN, latest: PLAIN }, a, PLAIN)).toBe(true);
  });
  it('receipts are not read again once established', () => expect(DEFS.receipts.stale).toBeUndefined());
});

describe('preconf.nonce.back-to-back on the two spellings of the address', () => {
  /** The pass of passWith, its nonce reading before the seal with the spellings apart (a refresh between the two answers, or a node that counts one spelling only). */
  function spellingsApart(later: LaterRead[]): PassResult {
    const pass = passWith(later);
    const nonce = pass.outcomes.nonce as { kind: 'judged'; judged: Judged<{ pending: bigint; latest: bigint; pendingLowercase: bigint }, unknown> };
    nonce.judged.before = { pending: 10n, latest: 10n, pendingLowercase: 15n };
    return pass;
  }
  const counts = (afterMs: number, pending: string, pendingLowercase: string, old = pending !== pendingLowercase): LaterRead => ({
    afterMs,
    old,
    preSeal: true,
    shown: { pending, pendingLowercase, latest: '0xa' },
  });

  it('fails when a later read past the refresh tolerance still has them apart', async () => {
    const r = await run(nonceBackToBack, spellingsApart([counts(REFRESH_TOLERANCE_MS + 100, '0xa', '0xf')]));
    expect(r.failure?.detail.violated).toEqual(['4.5.2']);
  });

  it('passes when the later reads agree: the first round straddled a refresh', async () => {
    const r = await run(nonceBackToBack, spellingsApart([counts(REFRESH_TOLERANCE_MS + 100, '0xf', '0xf'), counts(REFRESH_TOLERANCE_MS + 300, '0xf', '0xf')]));
    expect(r.failure).toBeUndefined();
    expect(r.notes.join('\n')).toMatch(/spellings apart/);
  });

  it('is not judged when nothing later could tell', async () => {
    await expect(run(nonceBackToBack, spellingsApart([]))).rejects.toMatchObject({ name: 'Inconclusive' });
  });
});
