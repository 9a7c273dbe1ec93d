// Catalogue variants of the pre-confirmed state seen on real deployments and real peers:
// backends trailing one another, an estimate whose default block is "pending", pending receipts
// of the newest flashblock only, and ganache 7.9.2's hung estimate. Each is a rewrite applied by
// the loopback proxy (./proxy.ts) in front of the reference, read as in ./catalogue.ts.
import { keccak256, toHex, type Hex } from 'viem';
import type { Variant } from './catalogue';
import { HANG, Raw, type Envelope, type Json, type RpcCall, type RpcMutation } from './proxy';
import { decodeSigned } from '../../src/reference/decode';

type Rec = Record<string, Json>;
const STATE_AT: Record<string, number> = { eth_getBlockReceipts: 0, eth_estimateGas: 1, eth_getTransactionCount: 1, eth_getCode: 1 };
const atPending = (call: RpcCall): boolean => call.method in STATE_AT && call.params?.[STATE_AT[call.method]] === 'pending';
/** The same call asked at another block tag. */
const atTag = (call: RpcCall, tag: string): RpcCall => ({ ...call, params: call.params.map((p, i) => (i === STATE_AT[call.method] ? tag : p)) });
const keyOf = (call: RpcCall): string => `${call.method} ${JSON.stringify(call.params ?? [])}`;
/** How much older than the lag a recorded answer may be and still stand for the state then: a trailing backend stays within lag + 100 ms, under the suite's 600 ms skew bound. */
const HISTORY_GAP_MS = 100;

/**
 * What the backends of one fleet have answered to each "pending" read, with when: one history
 * shared by the fleet, so a trailing backend answers exactly what the others answered `lagMs`
 * earlier, however the balancer spreads the reads.
 */
export class PendingHistory {
  /** Answers a trailing backend gave that differed from what the node answered at that moment. */
  staleServed = 0;
  private readonly answers = new Map<string, Array<{ at: number; answer: Envelope }>>();

  /** `pendingBlock`: eth_getBlockByNumber("pending") trails too (the whole pre-confirmed view, not only the four methods'). */
  constructor(private readonly opts: { pendingBlock?: boolean } = {}) {}

  /** Whether the fleet's backends record `call` and a trailing one answers it from the past. */
  covers(call: RpcCall): boolean {
    return atPending(call) || (this.opts.pendingBlock === true && call.method === 'eth_getBlockByNumber' && call.params?.[0] === 'pending');
  }

  record(call: RpcCall, answer: Envelope, now = performance.now()): void {
    const list = this.answers.get(keyOf(call)) ?? this.answers.set(keyOf(call), []).get(keyOf(call))!;
    list.push({ at: now, answer });
    // Stamped when asked, answers may come back out of order.
    if (list.length > 1 && list[list.length - 2].at > now) list.sort((x, y) => x.at - y.at);
    // Two seconds of history is more than any lag modelled here.
    while (list.length > 1 && list[0].at < now - 2000 && list[1].at < now - 2000) list.shift();
  }

  /**
   * What the node answered `lagMs` ago: the newest answer given then or up to HISTORY_GAP_MS
   * before. Reads are sparse, and an answer from long before may hold state that changed since:
   * serving it would make the backend trail by more than `lagMs`. Without one that close, the
   * oldest answer given since (a backend trailing by less), or none (the backend answers as now).
   */
  asOf(call: RpcCall, lagMs: number, now = performance.now()): Envelope | undefined {
    const list = this.answers.get(keyOf(call));
    if (!list?.length) return undefined;
    const by = now - lagMs;
    let before: { at: number; answer: Envelope } | undefined;
    for (const e of list) if (e.at <= by) before = e;
    if (before && by - before.at <= HISTORY_GAP_MS) return before.answer;
    return list.find((e) => e.at > by)?.answer;
  }
}

/** A backend that answers "pending" reads as they are now, and records them for the fleet. */
export const recordingBackend =
  (history: PendingHistory): RpcMutation =>
  async (call, next) => {
    // Stamped when asked: under load an answer may come long after the state it shows.
    const askedAt = performance.now();
    const res = await next();
    if (history.covers(call) && !(res instanceof Raw)) history.record(call, res, askedAt);
    return res;
  };

/**
 * A backend whose pre-confirmed view trails the others' by `lagMs`: every "pending" read of the
 * four methods gets what the fleet answered `lagMs` earlier (it takes the same flashblocks from
 * the same sequencer, later). `share` of the calls reach it (1: all, for a backend of a fleet;
 * 0.5: a two-backend balancer inside one proxy, in a fixed scrambled order).
 */
export const trailingBackend = (lagMs: number, history = new PendingHistory(), share = 1): RpcMutation => {
  let calls = 0;
  return async (call, next) => {
    calls++;
    const askedAt = performance.now();
    const res = await next();
    if (!history.covers(call) || res instanceof Raw) return res;
    history.record(call, res, askedAt);
    if (share < 1 && ((calls * 2654435761) >>> 13) % 1000 >= share * 1000) return res;
    // What the node answered `lagMs` before this call was asked, not before its answer came back:
    // under load (thirty samples at once, a core busy) that answer comes a second or more later,
    // and the answers of `lagMs` before it are not recorded yet, so the backend answered as now.
    const then = history.asOf(call, lagMs, askedAt);
    if (!then) return res;
    if (JSON.stringify(then.result ?? then.error) !== JSON.stringify(res.result ?? res.error)) history.staleServed++;
    return { ...then, id: call.id ?? null };
  };
};

/**
 * Which pending receipts came with the newest flashblock, as seen from the pending receipts the
 * node gave: those added since the previous distinct answer for that block. A node knows its
 * flashblocks whoever asks; a model learns them from the answers it sees. Shared by a fleet's
 * backends (observingBackend), the faulty one knows each flashblock as soon as any backend was
 * asked after it, not only when a read happens to reach it (one read in three: under load it then
 * saw both of the suite's batches at once and answered them whole, which is no fault).
 */
export class FlashblockTracker {
  private block: Json | undefined;
  private known = new Set<string>();
  private newest = new Set<string>();

  /** Takes in one pending-receipts answer; returns the hashes of the newest flashblock. */
  observe(receipts: Rec[]): Set<string> {
    const hashes = receipts.map((r) => String(r.transactionHash).toLowerCase());
    const number = receipts[0]?.blockNumber;
    if (number !== this.block) [this.block, this.known, this.newest] = [number, new Set(hashes), new Set(hashes)];
    else {
      const added = hashes.filter((h) => !this.known.has(h));
      if (added.length > 0) [this.known, this.newest] = [new Set([...this.known, ...hashes]), new Set(added)];
    }
    return this.newest;
  }
}

const pendingReceipts = (call: RpcCall, res: Envelope | Raw): Rec[] | undefined =>
  call.method === 'eth_getBlockReceipts' && call.params?.[0] === 'pending' && !(res instanceof Raw) && Array.isArray(res.result)
    ? (res.result as Rec[])
    : undefined;

/** A conformant backend of a fleet whose pending receipts tell the fleet's tracker of each flashblock. */
export const observingBackend =
  (tracker: FlashblockTracker): RpcMutation =>
  async (call, next) => {
    const res = await next();
    const receipts = pendingReceipts(call, res);
    if (receipts) tracker.observe(receipts);
    return res;
  };

/** Pending receipts of the newest flashblock only (as `tracker` knows the flashblocks). */
export const newestFlashblockOnly =
  (tracker = new FlashblockTracker()): RpcMutation =>
  async (call, next) => {
    const res = await next();
    const receipts = pendingReceipts(call, res);
    if (!receipts || res instanceof Raw) return res;
    const newest = tracker.observe(receipts);
    return { ...res, result: receipts.filter((r) => newest.has(String(r.transactionHash).toLowerCase())) };
  };

/**
 * ganache 7.9.2 as seen on a real run (blocks every 2 s; here the reference's): nonce, code and
 * estimate at "pending" are those of "latest"; eth_getBlockReceipts does not exist; and an
 * eth_estimateGas at "pending" into an address without code, sent less than 150 ms after a send,
 * is never answered, while every other request is, and the node goes on sealing.
 */
const ganache792 = (): RpcMutation => {
  let lastSendAt = -Infinity;
  return async (call, next) => {
    if (call.method === 'eth_sendRawTransaction') {
      lastSendAt = performance.now();
      return next();
    }
    if (call.method === 'eth_getBlockReceipts')
      return { jsonrpc: '2.0', id: call.id ?? null, error: { code: -32601, message: 'The method eth_getBlockReceipts does not exist/is not available' } };
    if (!atPending(call)) return next();
    const tx = call.params[0] as Rec;
    if (call.method === 'eth_estimateGas' && performance.now() - lastSendAt < 150 && typeof tx?.to === 'string') {
      const code = await next({ jsonrpc: '2.0', id: 0, method: 'eth_getCode', params: [tx.to, 'latest'] });
      if (!(code instanceof Raw) && code.result === '0x') return HANG;
    }
    return next(atTag(call, 'latest'));
  };
};

/**
 * A gateway in front of the node whose backend for some sends is down: every `every`-th distinct
 * signed transaction is answered HTTP 503 (no Retry-After) on each try and never passed on, so its
 * nonce is lost and the signer's later nonces wait in the pool for it.
 */
const sendsLostTo503 = (every: number): RpcMutation => {
  const lost = new Set<string>();
  let distinct = 0;
  const seen = new Set<string>();
  return async (call, next) => {
    if (call.method !== 'eth_sendRawTransaction' || typeof call.params[0] !== 'string') return next();
    const raw = call.params[0];
    if (!seen.has(raw)) {
      seen.add(raw);
      if (++distinct % every === 0) lost.add(raw);
    }
    return lost.has(raw) ? Raw.text(503, 'text/html', '<html><body><h1>503 Service Unavailable</h1></body></html>') : next();
  };
};

/**
 * reth's "pending" count (op-reth with Flashblocks: reth v1.10.2
 * crates/rpc/rpc-eth-api/src/helpers/state.rs, LoadState::transaction_count): the pending
 * state's nonce, or one past the sender's highest consecutive transaction in the node's pool if
 * that is higher. A transaction is counted as soon as the node accepts it, before any flashblock
 * carries it; here each is pre-confirmed two flashblocks (400 ms) after its acceptance.
 */
const poolCountedBeforePreconfirmed = (): RpcMutation => {
  const accepted = new Map<string, Set<number>>();
  return async (call, next, ctx) => {
    if (call.method === 'eth_sendRawTransaction' && typeof call.params[0] === 'string') {
      const tx = await decodeSigned(call.params[0]);
      if (!tx) return next();
      ctx.forwardLater(call, 2 * 200);
      (accepted.get(tx.from) ?? accepted.set(tx.from, new Set()).get(tx.from)!).add(tx.nonce);
      return { jsonrpc: '2.0', id: call.id ?? null, result: tx.hash };
    }
    const res = await next();
    if (call.method !== 'eth_getTransactionCount' || !atPending(call) || res instanceof Raw || typeof res.result !== 'string') return res;
    const pool = accepted.get(String(call.params[0]).toLowerCase());
    let count = Number(BigInt(res.result));
    while (pool?.has(count)) count++;
    return { ...res, result: toHex(count) };
  };
};

/** The head as the upstream names it now (eth_blockNumber), asked beside the call being rewritten. */
export const headOf = async (next: (call?: RpcCall) => Promise<Envelope | Raw>): Promise<bigint | undefined> => {
  const h = await next({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] });
  return h instanceof Raw || typeof h.result !== 'string' ? undefined : BigInt(h.result);
};

/** How long after a burst of sends the pending state is dropped: time for the burst to show first. */
const DROP_AFTER_SENDS_MS = 500;

/**
 * base/base when a flashblock of the block being built goes missing (the stream skips an index, or
 * the builder restarts the block): the processor clears its pending state and waits for the next
 * block's first flashblock (crates/execution/flashblocks processor.rs, process_flashblock:
 * NonSequentialGap -> Ok(None)), so "pending" answers as "latest" (eth.rs: "No pending state
 * available — treat `pending` as `latest`") for the rest of the block, while the sequencer seals the
 * transactions in that block all the same. Here: DROP_AFTER_SENDS_MS after a burst of sends, every
 * "pending" read (the four methods and eth_getBlockByNumber) is answered from "latest" until the
 * head moves.
 */
const pendingDroppedUntilSeal = (): RpcMutation => {
  let dropAt = Infinity;
  let droppedAtHead: bigint | undefined;
  return async (call, next) => {
    if (call.method === 'eth_sendRawTransaction') {
      dropAt = performance.now() + DROP_AFTER_SENDS_MS;
      droppedAtHead = undefined;
      return next();
    }
    const pendingBlock = call.method === 'eth_getBlockByNumber' && call.params?.[0] === 'pending';
    if ((!atPending(call) && !pendingBlock) || performance.now() < dropAt) return next();
    const head = await headOf(next);
    if (head === undefined) return next();
    droppedAtHead ??= head;
    if (head > droppedAtHead) {
      dropAt = Infinity;
      return next();
    }
    return next(pendingBlock ? { ...call, params: ['latest', ...call.params.slice(1)] } : atTag(call, 'latest'));
  };
};

const ZERO_HASH = `0x${'0'.repeat(64)}`;
/** A provisional hash for the block being built: changes with its number and transactions, as a header hash does. */
const provisionalHash = (number: Json, txs: string[]): Hex => keccak256(toHex(`${String(number)}:${txs.join(',')}`));
const withBlockHash = (o: Json, hash: Hex): Json => {
  if (typeof o !== 'object' || o === null || Array.isArray(o) || o.blockHash !== ZERO_HASH) return o;
  const logs = Array.isArray(o.logs) ? o.logs.map((l) => withBlockHash(l, hash)) : o.logs;
  return { ...o, blockHash: hash, ...(logs === undefined ? {} : { logs }) };
};

/**
 * The block being built under a provisional hash instead of 0x000…0 (op-reth with Flashblocks:
 * the pending block executed locally from the flashblocks, sealed with its own header hash, which
 * changes with each flashblock and is not the sealed block's): eth_getBlockByNumber("pending")
 * and eth_getBlockReceipts("pending") name one hash, computed from the block's number and
 * transactions.
 */
const provisionalPendingHash: RpcMutation = async (call, next) => {
  const res = await next();
  if (call.params?.[0] !== 'pending' || res instanceof Raw) return res;
  const r = res.result;
  if (
    call.method === 'eth_getBlockByNumber' &&
    typeof r === 'object' &&
    r !== null &&
    !Array.isArray(r) &&
    r.hash === ZERO_HASH &&
    Array.isArray(r.transactions)
  ) {
    const txs = r.transactions.map((t) => String(typeof t === 'object' && t !== null && !Array.isArray(t) ? t.hash : t).toLowerCase());
    const hash = provisionalHash(r.number, txs);
    return { ...res, result: { ...r, hash, transactions: r.transactions.map((t) => withBlockHash(t, hash)) } };
  }
  if (call.method === 'eth_getBlockReceipts' && Array.isArray(r) && r.length > 0) {
    const first = r[0] as Record<string, Json>;
    const hash = provisionalHash(
      first.blockNumber,
      r.map((x) => String((x as Record<string, Json>).transactionHash).toLowerCase()),
    );
    return { ...res, result: r.map((x) => withBlockHash(x, hash)) };
  }
  return res;
};

export const PRECONF_VARIANTS: Variant[] = [
  {
    name: 'ok.preconf-backends-400ms-apart',
    kind: 'conformant',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate|receipts)\\.',
    what: 'a load balancer over two Flashblocks backends whose pre-confirmed views are 400 ms apart: half the "pending" reads get what the other backend answered 400 ms earlier (old and new state alternate after each send)',
    rpc: trailingBackend(400, new PendingHistory(), 0.5),
  },
  {
    name: 'ok.preconf-sends-lost-to-503',
    kind: 'conformant',
    only: ['preconf'],
    incomplete: true,
    mustBe: [['^preconf\\.(nonce|code|estimate|receipts)\\.', 'inconclusive', 'gateway']],
    what: 'a gateway answers HTTP 503 to every try of every 4th signed transaction and never passes it on: that nonce is lost, the later ones cannot be included (outside the spec: not judged, one root cause)',
    rpc: sendsLostTo503(4),
  },
  {
    name: 'ok.preconf-pool-counted-before-preconfirmed',
    kind: 'conformant',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate|receipts)\\.',
    what: 'the "pending" count includes transactions the node accepted and holds in its pool before a flashblock carries them (reth, op-reth), each pre-confirmed two flashblocks later',
    rpc: poolCountedBeforePreconfirmed(),
  },
  {
    name: 'ok.preconf-provisional-pending-hash',
    kind: 'conformant',
    only: ['rpc', 'preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate|receipts)\\.|^rpc\\.getBlockReceipts\\.block\\.pending$',
    what: 'the block being built and its receipts named by a provisional hash (op-reth) instead of 0x000…0 (base/base)',
    rpc: provisionalPendingHash,
  },
  {
    name: 'ok.preconf-pending-dropped-until-seal',
    kind: 'conformant',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate|receipts)\\.',
    what: 'once the transactions showed, the pending state is dropped for the rest of the block ("pending" answered as "latest", base/base after a missing flashblock), and they are sealed in that block',
    rpc: pendingDroppedUntilSeal(),
  },
  {
    name: 'preconf.safe-finalized-from-preconfirmed',
    kind: 'faulty',
    section: '4.2',
    only: ['preconf'],
    grep: '^preconf\\.nonce\\.',
    what: '"safe" and "finalized" answered from the pre-confirmed state (as "pending"), on a chain where the suite\'s own transactions are the only pre-confirmed ones',
    rpc: async (call, next) =>
      call.method in STATE_AT && (call.params?.[STATE_AT[call.method]] === 'safe' || call.params?.[STATE_AT[call.method]] === 'finalized')
        ? next(atTag(call, 'pending'))
        : next(),
  },
  {
    name: 'preconf.estimate-default-pending',
    kind: 'faulty',
    section: '4.4',
    only: ['preconf'],
    grep: '^preconf\\.estimate\\.',
    what: 'eth_estimateGas with no block parameter estimates against "pending" (older clients\' default; the spec\'s is "latest")',
    rpc: async (call, next) =>
      call.method === 'eth_estimateGas' && (call.params?.length ?? 0) === 1 ? next({ ...call, params: [call.params[0], 'pending'] }) : next(),
  },
  // "latest" answered from the pre-confirmed state, the suite's own transactions the only
  // pre-confirmed ones: judged in the first round before the seal that shows them there, answered
  // ahead of the seal (aheadOfSeal: nearer it a backend that had sealed answers so too, and the
  // attempt is made again).
  ...(
    [
      ['eth_getTransactionCount', '4.5', 'nonce', 'eth_getTransactionCount\\(signer, "latest"\\) is \\d+ before the block holding the transactions was sealed'],
      ['eth_getCode', '4.6', 'code', 'eth_getCode\\(0x[0-9a-fA-F]{40}, "latest"\\) is .* before the block holding the deployment was sealed'],
      ['eth_getBlockReceipts', '4.3', 'receipts', 'eth_getBlockReceipts\\("latest"\\) already holds 0x[0-9a-f]{64}'],
    ] as const
  ).map(([method, section, view, saying]): Variant => ({
    name: `preconf.latest-as-pending.${method}`,
    kind: 'faulty',
    section,
    only: ['preconf'],
    grep: `^preconf\\.${view}\\.`,
    saying,
    what: `${method} at "latest" answered from the pre-confirmed state (as at "pending")`,
    rpc: async (call, next) => (call.method === method && call.params?.[STATE_AT[method]] === 'latest' ? next(atTag(call, 'pending')) : next()),
  })),
  {
    name: 'preconf.pending-receipts-newest-flashblock',
    kind: 'faulty',
    section: '4.3',
    only: ['preconf'],
    grep: '^preconf\\.receipts\\.',
    what: 'eth_getBlockReceipts("pending") answers the receipts of the newest flashblock only, not the whole pre-confirmed block (on a chain with other senders)',
    rpc: newestFlashblockOnly(),
  },
  {
    name: 'preconf.ganache-estimate-hangs',
    kind: 'faulty',
    section: '4.6',
    only: ['preconf'],
    grep: '^preconf\\.(nonce|code|estimate)\\.',
    what: 'ganache 7.9.2: "pending" answered as "latest", and an eth_estimateGas at "pending" into the new contract sent <150 ms after a send never answered (the node answers everything else and goes on sealing)',
    rpc: ganache792(),
  },
];
