/**
 * Spec 4.5 and 1.4: with "pending", the transaction count includes *all* pre-confirmed
 * transactions, other senders' too. A node that counts only its own pool (a replica that never
 * sees the transactions sent through another one) answers "pending" as "latest" for everyone
 * else; "pending >= latest" cannot see that. This watch can: a sender whose transaction with
 * nonce n is in the pre-confirmed block must have a pending count of at least n + 1.
 *
 * Reads are not simultaneous, and behind one address backends may show the pre-confirmed state
 * a few hundred ms apart (a conformant fleet): a count read soon after the pending block is no
 * evidence. A shortfall counts only when the transaction was seen pre-confirmed at least
 * PRECONF_SKEW_MS before the count was asked, and "latest" read after the count still leaves it
 * out (it was not sealed meanwhile). The suite's own delays (a busy runner answering late) only
 * make the transaction older than measured, never younger: they can hide a shortfall, not
 * invent one. Watched for a bounded time; a sender is settled by one read whose pending count
 * includes a transaction "latest" does not.
 */
import type { CheckContext } from '../../src/harness/check';
import { fail, inconclusive } from '../../src/harness/verdict';
import { isRecord, show } from '../../src/harness/json';
import { isEvmAddress, isHexQuantity } from '../../src/harness/formats';
import { callResult, expectSchema } from '../../src/harness/expect';
import { pause, resultAt } from '../../src/harness/chain';
import { toQuantity } from '../../src/harness/hex';
import { SKEW_BOUND_MS } from '../../src/harness/preconf/timing';

/**
 * How long a pre-confirmed transaction may be missing from a pending count once it was seen in
 * the pending block: the suite's one skew bound (SKEW_BOUND_MS, three refresh periods of 200 ms,
 * justified in src/harness/preconf/timing.ts), as for the suite's own transactions.
 */
export const PRECONF_SKEW_MS = SKEW_BOUND_MS;
/** How long the pending counts are watched at most, and how often they are read. */
export const WATCH_MS = 5000;
const POLL_MS = 50;
/** Reads beyond PRECONF_SKEW_MS that must show a shortfall before it fails (one odd answer decides nothing). */
export const EVIDENCE_READS = 2;
/**
 * How long the watch goes on while every transaction the pending block shows is already sealed
 * (a node whose "pending" block is "latest", or the fallback to "latest" just after a seal, which
 * lasts until the next block's first flashblock): ten refresh intervals, a block of Base.
 */
const IDLE_MS = 2000;

type Ctx = Pick<CheckContext<'rpc'>, 'rpc' | 'note' | 'signal' | 'settings' | 'acrossSamples'>;

/**
 * What the samples of a run learn of a quiet chain (CheckContext.acrossSamples), shared with the
 * deployments watch (pending-code.ts). Set by a count watch that read the pending block for
 * IDLE_MS from its own start and never found a transaction there still unsealed, tracking fewer
 * than its `max` senders (at `max`, other senders may be sending unseen); cleared by any watch
 * that finds one unsealed (a transaction, a deployment). While it is set, a later sample's watch
 * with nothing unsealed in a fresh read, and nothing of its own open, ends there: on a quiet chain
 * 30 samples need not each watch the same block for IDLE_MS. A chain whose pending block gets a
 * transaction every few hundred ms never sets it, so there every sample watches as a run without
 * samples does; on one with gaps of seconds, a sample started in a gap is not judged by the watch.
 */
export interface QuietChain {
  quiet: boolean;
}
export const QUIET_CHAIN = 'rpc.pending-block.quiet';
export const quietChain = (): QuietChain => ({ quiet: false });

/** Each sender's highest nonce in the pre-confirmed block (deposits, type 0x7e, left out: their nonce is not the sender's count). */
export function preconfirmedNonces(block: unknown): Map<string, bigint> {
  const out = new Map<string, bigint>();
  if (!isRecord(block) || !Array.isArray(block.transactions)) return out;
  for (const tx of block.transactions) {
    if (!isRecord(tx) || tx.type === '0x7e' || !isEvmAddress(tx.from) || !isHexQuantity(tx.nonce)) continue;
    const from = (tx.from as string).toLowerCase();
    const nonce = BigInt(tx.nonce as string);
    if ((out.get(from) ?? -1n) < nonce) out.set(from, nonce);
  }
  return out;
}

/**
 * The pending block with its transactions (eth_getBlockByNumber("pending", true): how other
 * senders' pre-confirmed transactions are found, a standard method outside the spec's four, never
 * judged itself), or why the node gave none. A watch whose first read gives none has nothing to
 * find them by: not judged (an error is no empty block, so never "nothing to judge"). A later read
 * that gives none is a poll that showed nothing.
 */
export async function readPendingBlock(ctx: Ctx, first: boolean): Promise<unknown> {
  const a = await ctx.rpc.call('eth_getBlockByNumber', ['pending', true]);
  const none =
    a.http.status !== 200
      ? `HTTP ${a.http.status}`
      : a.error
        ? `error ${a.error.code}: ${show(a.error.message, 80)}`
        : !isRecord(a.result) || !Array.isArray(a.result.transactions)
          ? `result ${show(a.result, 60)}`
          : undefined;
  if (none === undefined) return a.result;
  if (first)
    inconclusive(
      `eth_getBlockByNumber("pending", true) gave no block (${none}): it is how other senders' pre-confirmed transactions are found (a standard method, outside the spec's four), so there is none to judge by: not judged`,
    );
  return undefined;
}

const readPreconfirmed = async (ctx: Ctx, first = false): Promise<Map<string, bigint>> => preconfirmedNonces(await readPendingBlock(ctx, first));

interface Shortfall {
  account: string;
  nonce: bigint;
  pending: string;
  latest: string;
  ageMs: number;
}

/**
 * Watch the pending counts of the senders of the pre-confirmed block (`first`, read at
 * `firstAt`, then re-read at each poll), at most `max` of them. Fails on EVIDENCE_READS shortfalls beyond PRECONF_SKEW_MS;
 * returns what was judged (`judged`: a pre-confirmed transaction was counted), or why nothing was.
 */
export async function judgePreconfirmedCounts(ctx: Ctx, first: Map<string, bigint>, firstAt: number, max: number): Promise<{ judged: boolean; words: string }> {
  // Senders as the pending block shows them, the first `max` (a block read just after a seal may show none yet).
  const accounts: string[] = [];
  // sender -> nonce -> when it was first seen pre-confirmed (performance.now()).
  const sightings = new Map<string, Map<bigint, number>>();
  const settled = new Map<string, string>();
  const evidence: Shortfall[] = [];
  // A shortfall is evidence once the next read of the pending block still lists the transaction:
  // a flashblock reorg withdraws it from the block and the count alike (the node's one view).
  let unconfirmed: Shortfall[] = [];
  let withdrawn = 0;
  let youngShortfalls = 0;
  // The idle wait counts this watch's own reads: `first` may have been read a while before (the
  // caller's reads of "pending" and "latest" counts, with their re-reads, came between).
  const started = performance.now();
  let lastUnsealedAt = started;
  const deadline = started + WATCH_MS;
  const chain = ctx.acrossSamples(QUIET_CHAIN, quietChain);
  /** Whether any read of this watch found a transaction unsealed. */
  let sawUnsealed = false;
  /** Set when this watch ended at a fresh read with nothing unsealed because the run had found the chain quiet. */
  let endedEarly: boolean;
  let block = first;
  let at = firstAt;
  for (let poll = 0; ; poll++) {
    for (const e of unconfirmed) {
      if ((block.get(e.account) ?? -1n) >= e.nonce) evidence.push(e);
      else withdrawn++;
    }
    unconfirmed = [];
    for (const [account, nonce] of block) {
      if (!sightings.has(account) && accounts.length < max) {
        accounts.push(account);
        sightings.set(account, new Map());
      }
      const seen = sightings.get(account);
      if (seen && !seen.has(nonce)) seen.set(nonce, at);
    }
    let unsealed = false;
    for (const account of accounts) {
      const seen = sightings.get(account)!;
      if (settled.has(account) || seen.size === 0) continue;
      const askedAt = performance.now();
      const pendingCount = await resultAt<string>(ctx, 'eth_getTransactionCount', [account, 'pending'], 'pending');
      const latest = await callResult<string>(ctx.rpc, 'eth_getTransactionCount', [account, 'latest']);
      expectSchema('hexQuantity', pendingCount, `eth_getTransactionCount(${account}, "pending")`, ['4.5.1']);
      expectSchema('hexQuantity', latest, `eth_getTransactionCount(${account}, "latest")`, ['4.5.1']);
      const c = BigInt(pendingCount);
      const l = BigInt(latest);
      // Sightings still unsealed by "latest" read after the count: the pre-confirmed ones.
      const open = [...seen].filter(([nonce]) => l <= nonce);
      if (open.length > 0) unsealed = true;
      const counted = open.filter(([nonce]) => c >= nonce + 1n).map(([n]) => n);
      if (counted.length > 0) {
        settled.set(
          account,
          `${account}: "pending" ${pendingCount} counts pre-confirmed nonce ${toQuantity(counted.reduce((a, b) => (a > b ? a : b)))} ("latest" ${latest})`,
        );
        continue;
      }
      const old = open.filter(([nonce, seenAt]) => c <= nonce && askedAt - seenAt >= PRECONF_SKEW_MS);
      if (old.length === 0) {
        if (open.length > 0) youngShortfalls++;
        continue;
      }
      const [nonce, seenAt] = old.reduce((a, b) => (a[0] > b[0] ? a : b));
      unconfirmed.push({ account, nonce, pending: pendingCount, latest, ageMs: Math.round(askedAt - seenAt) });
    }
    if (evidence.length >= EVIDENCE_READS) {
      const e = evidence[evidence.length - 1]!;
      fail(
        `${e.account}: the "pending" count ${e.pending} leaves out its pre-confirmed transaction with nonce ${toQuantity(e.nonce)}, seen in the pending block ${e.ageMs} ms before the count was asked and still unsealed ("latest" ${e.latest} read after); ` +
          `${evidence.length} reads beyond the ${PRECONF_SKEW_MS} ms skew tolerance showed such a shortfall. With "pending" the count includes all pre-confirmed transactions, other senders' too`,
        {
          violated: ['4.5.2', '1.4.1'],
          expected: `>= ${toQuantity(e.nonce + 1n)} (the pre-confirmed nonce + 1)`,
          actual: evidence.map((x) => ({
            account: x.account,
            preconfirmedNonce: toQuantity(x.nonce),
            pending: x.pending,
            latest: x.latest,
            seenMsBefore: x.ageMs,
          })),
        },
      );
    }
    // Learned before (another watch, an earlier sample), and only on a fresh read (poll 0 judges
    // the caller's) with nothing unsealed, nothing of this watch open, no sender left untracked.
    endedEarly = chain.quiet && poll > 0 && !unsealed && unconfirmed.length === 0 && accounts.length < max;
    if (unsealed) [sawUnsealed, chain.quiet, lastUnsealedAt] = [true, false, performance.now()];
    else if (!sawUnsealed && accounts.length < max && performance.now() - started >= IDLE_MS) chain.quiet = true;
    if (accounts.length > 0 && accounts.every((a) => settled.has(a))) break;
    if (endedEarly || performance.now() - lastUnsealedAt >= IDLE_MS || performance.now() >= deadline || ctx.signal.aborted) break;
    await pause(POLL_MS, ctx.signal);
    block = await readPreconfirmed(ctx);
    at = performance.now();
  }
  if (settled.size > 0) return { judged: true, words: [...settled.values()].join('; ') };
  if (evidence.length > 0 || youngShortfalls > 0 || withdrawn > 0) {
    inconclusive(
      `the "pending" counts of ${accounts.join(', ')} left out their pre-confirmed transactions in ${evidence.length + youngShortfalls} read(s), ` +
        `but only ${evidence.length} of them longer than the ${PRECONF_SKEW_MS} ms skew tolerance before the seal with the pending block still listing the transaction (${EVIDENCE_READS} needed to fail) within ${WATCH_MS} ms` +
        `${withdrawn ? ` (${withdrawn} while the next pending block no longer listed it: withdrawn, a flashblock reorg?)` : ''}: not judged`,
    );
  }
  const earlier = endedEarly ? ` (this run had found nothing unsealed there for ${IDLE_MS} ms: a quiet chain)` : '';
  if (accounts.length === 0)
    return {
      judged: false,
      words: `the pending block showed no transaction for ${Math.round(performance.now() - firstAt)} ms${earlier}: no pre-confirmed transaction of another sender to count`,
    };
  return {
    judged: false,
    words: `the pending block's transactions of ${accounts.join(', ')} were already sealed when counted${earlier}: no pre-confirmed transaction of another sender to count`,
  };
}

/** The senders of the pre-confirmed block, read now, and when. */
export async function preconfirmedNow(ctx: Ctx): Promise<{ nonces: Map<string, bigint>; at: number }> {
  const nonces = await readPreconfirmed(ctx, true);
  return { nonces, at: performance.now() };
}
