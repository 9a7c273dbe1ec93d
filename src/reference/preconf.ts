// The pre-confirmation model: a Flashblocks sequencer in front of anvil.
//
// What it imitates (Base with Flashblocks; the RPC side is base/base crates/flashblocks-rpc,
// spec at specs.base.org/protocol/execution/evm/rpc, and its successor crates/client/flashblocks):
//   - Blocks seal every blockTimeMs; inside each block the sequencer publishes a flashblock
//     every flashblockMs, counted from the block's start. A transaction accepted by
//     eth_sendRawTransaction is executed into the next flashblock (or, with
//     inclusionDelayFlashblocks = N, the first one at least N flashblock periods after its
//     acceptance: earlier ones full, or the first one of a block carrying only deposits), and
//     only then shows at "pending". One ahead of a nonce gap waits for the gap to fill (queued).
//   - The send itself answers at once: the hash, or the mempool's error (nonce too low,
//     insufficient funds, replacement underpriced, already imported) right away.
//   - Until the first flashblock of a block exists, "pending" answers as "latest" (the RPC
//     falls back to the canonical state when it has no pending flashblock state).
//   - eth_getTransactionReceipt answers a pre-confirmed transaction before the seal, with the
//     number of the block being built and block hash 0x000…0 (the published spec's example;
//     the implementation fills in a provisional hash, see README); eth_getBlockByNumber
//     ("pending") shows the block being built under that number; eth_getBlockReceipts
//     ("pending") follows the same convention. After the seal the canonical receipt wins.
//
// How: anvil runs with --no-mining, so its transaction pool is the pre-confirmed state, and
// anvil already answers eth_getTransactionCount / eth_getCode / eth_estimateGas / eth_call at
// "pending" from it. Accepted transactions are held by us (not in anvil's pool) until their
// flashblock, then submitted; a timer seals with evm_mine. Receipts of the pool are real ones:
// under the exclusive lock we snapshot, mine the pool into a temporary block, read its
// receipts, revert, and resubmit the raw transactions in block order (evm_revert drops mined
// transactions from the pool). Nobody else talks to anvil meanwhile, so the temporary block,
// the briefly emptied pool and transactions validated-then-held are never observable through
// us. flashblockMs = 0 keeps the instant model: every acceptance is published at once.
import type { Hex } from 'viem';
import { decodeSigned, type SignedTx } from './decode';
import { AnvilRpc, isObject, senderPool, type Json, type JsonRpcResponse, type Upstream } from './rpc';
import { clearQueued, poolAfterImported, readBack, splitGapped, unqueue } from './anvil-pool';
import { PoolPreview, preconfirmedBlock, preconfirmedReceipt, RESUBMIT_CHUNK, type Block } from './pool-preview';
import { afterSeal, nextEvent, startClock, type Cadence, type ClockEvent, type ClockState } from './schedule';

export type BlockNumberMode = 'sealed' | 'building';

export interface PreconfOptions {
  blockTimeMs: number;
  /** Flashblock interval; 0 publishes every accepted transaction at once (no flashblocks). */
  flashblockMs: number;
  /** Extra flashblocks a transaction waits beyond the next one (0: lands in the next). */
  inclusionDelayFlashblocks: number;
  /** 'building': eth_blockNumber reports the block being built once it has a flashblock. */
  blockNumberMode: BlockNumberMode;
  log: (line: string) => void;
}

/** An accepted transaction waiting for its flashblock. */
interface Held extends SignedTx {
  raw: Hex;
  /**
   * Published by the first tick (flashblock or seal) run at or after this time (epoch ms): time,
   * not a count of ticks, so a tick that fell behind does not add to its delay.
   */
  dueAt: number;
  /** Withdrawn by a flashblock reorg: held until the next seal, then due at the flashblock after it. */
  afterSeal?: boolean;
}

/** Bound on held transactions: a flood of sends must not grow memory without limit. */
const MAX_HELD = 10_000;

export class Preconf {
  /** The pool's receipts before the seal (the pre-confirmed state), and the raw transactions behind them. */
  private readonly pool: PoolPreview;
  private held: Held[] = [];
  /**
   * Whether the block being built has a flashblock yet; until then "pending" falls back to
   * "latest". Changed only inside exclusive sections, so a shared section reads it stably.
   */
  private building: boolean;
  private clock?: ClockState;
  /** When the clock started: seals fall on start + k × blockTimeMs (afterSeal keeps the grid, skipping what it missed). */
  private startedAt?: number;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private refreshQueued = false;
  private ticking?: Promise<void>;

  constructor(
    private readonly upstream: Upstream,
    private readonly opts: PreconfOptions,
  ) {
    this.building = this.instant;
    this.pool = new PoolPreview(opts.log, () => (this.building = this.instant));
  }

  private get instant(): boolean {
    return this.opts.flashblockMs === 0;
  }

  // ---- submissions ---------------------------------------------------------------------

  /** eth_sendRawTransaction / eth_sendTransaction: the answer comes at once, visibility later. */
  async submit(req: { method: string; params?: Json }): Promise<JsonRpcResponse> {
    if (this.instant) return this.submitInstant(req);
    const params = Array.isArray(req.params) ? req.params : [];
    const first = params[0];
    const decoded = req.method === 'eth_sendRawTransaction' && typeof first === 'string' ? await decodeSigned(first) : undefined;
    // eth_sendTransaction names its sender, and maybe its nonce (else anvil picks the next).
    const request = isObject(first) ? first : {};
    const sender = decoded?.from ?? (typeof request.from === 'string' ? request.from.toLowerCase() : undefined);
    const nonce = decoded?.nonce ?? (typeof request.nonce === 'string' && /^0x[0-9a-f]+$/i.test(request.nonce) ? Number(request.nonce) : undefined);
    if (this.held.length >= MAX_HELD) return rpcError(-32003, 'txpool is full');
    return this.upstream.exclusive(async (raw) => {
      const pending = sender === undefined ? undefined : Number(await raw.call<Hex>('eth_getTransactionCount', [sender, 'pending']));
      // anvil would take a nonce below its pending count as a replacement of one pre-confirmed (still
      // in its pool); a Flashblocks node has executed that one: "nonce too low" (anvil's words).
      if (nonce !== undefined && pending !== undefined && nonce < pending) return rpcError(-32003, 'nonce too low');
      // anvil validates against its pool, so the sender's held transactions go in first: a
      // duplicate is "already imported", a same-nonce one must outbid, later nonces queue up.
      const prefix = sender ? this.held.filter((h) => h.from === sender) : [];
      const answers = await raw.batchResponses([
        ...prefix.map((h): [string, Json[]] => ['eth_sendRawTransaction', [h.raw]]),
        [req.method, (req.params ?? []) as Json[]],
      ]);
      const answer = answers[answers.length - 1];
      const added = prefix.filter((_, i) => !answers[i].error).map((h) => h.hash as string);
      let accepted: Held | undefined;
      if (!answer.error && typeof answer.result === 'string') {
        const hash = answer.result as Hex;
        const tx = decoded?.hash.toLowerCase() === hash.toLowerCase() ? { ...decoded, raw: first as Hex } : await readBack(raw, hash);
        if (tx) {
          added.push(hash);
          accepted = { ...tx, dueAt: Date.now() + this.opts.inclusionDelayFlashblocks * this.opts.flashblockMs };
        } else {
          // Not resubmittable from raw bytes (e.g. an impersonated sender): it stays in
          // anvil's pool, i.e. pre-confirmed at once.
          this.opts.log(`flashblocks: ${hash} cannot be held (no raw bytes); published at once`);
          this.pool.poolChanged();
        }
      }
      // Dropping a hash a replacement evicted is a no-op; one ahead of a nonce gap is queued, which a drop leaves (anvil-pool.ts).
      if (added.length > 0) await raw.batchResponses(added.map((h): [string, Json[]] => ['anvil_dropTransaction', [h]]));
      const inserted = new Set([...prefix.filter((_, i) => !answers[i].error), ...(accepted ? [accepted] : [])].map((h) => h.nonce));
      const gap = pending !== undefined && [...inserted].some((n) => n >= pending + inserted.size);
      if (gap && (await clearQueued(raw, sender!, (h) => this.pool.rawOf(h), this.opts.log))) this.pool.poolChanged();
      if (accepted) {
        const { from, nonce } = accepted;
        this.held = this.held.filter((h) => !(h.from === from && h.nonce === nonce));
        this.held.push(accepted);
      }
      return answer;
    });
  }

  private async submitInstant(req: { method: string; params?: Json }): Promise<JsonRpcResponse> {
    const answer = await this.upstream.forward(req);
    if (answer.error) return answer;
    const first = Array.isArray(req.params) ? req.params[0] : undefined;
    if (typeof answer.result === 'string') {
      this.accepted(answer.result as Hex, req.method === 'eth_sendRawTransaction' && typeof first === 'string' ? (first as Hex) : undefined);
    } else {
      this.pool.poolChanged();
    }
    return answer;
  }

  /**
   * Instant model: a transaction entered the pool. The pre-confirmed block is rebuilt right
   * away, as a sequencer publishes it, rather than when someone first asks: a reader then
   * finds it ready. Submissions that arrive while one rebuild waits share it.
   */
  private accepted(hash: Hex, raw?: Hex): void {
    if (raw) this.pool.remember(hash, raw);
    this.pool.poolChanged();
    if (this.refreshQueued || this.stopped) return;
    this.refreshQueued = true;
    setImmediate(() => {
      if (this.stopped) return;
      this.upstream
        .exclusive(async (anvil) => {
          this.refreshQueued = false; // from here on, later submissions need a rebuild of their own
          await this.pool.preview(anvil);
        })
        .catch((err: Error) => this.opts.log(`pending receipts: refresh failed: ${err.message}`));
    });
  }

  // ---- the clock -----------------------------------------------------------------------

  /** Starts the flashblock and seal timers (ticks that fall behind run late, several as one: schedule.ts). */
  start(): void {
    const cadence: Cadence = { blockTimeMs: this.opts.blockTimeMs, flashblockMs: this.opts.flashblockMs };
    this.startedAt = Date.now();
    this.clock = startClock(cadence, this.startedAt);
    const schedule = (): void => {
      if (this.stopped || !this.clock) return;
      const event: ClockEvent = nextEvent(cadence, this.clock, Date.now());
      this.timer = setTimeout(
        () => {
          const run = event.kind === 'seal' ? this.sealTick(false).then(() => undefined) : this.flashblockTick();
          this.ticking = run
            .catch((err: Error) => this.opts.log(`${event.kind} failed: ${err.message}`))
            .finally(() => {
              if (!this.clock) return;
              this.clock = event.kind === 'seal' ? afterSeal(cadence, this.clock, Date.now()) : { ...this.clock, lastFlashblock: event.index };
              schedule();
            });
        },
        Math.max(0, event.at - Date.now()),
      );
      this.timer.unref();
    };
    schedule();
  }

  /** Where the clock's seals fall (epoch milliseconds), once started. Seals made on demand (sealWith) come besides. */
  get sealGrid(): { atMs: number; everyMs: number } | undefined {
    return this.startedAt === undefined ? undefined : { atMs: this.startedAt, everyMs: this.opts.blockTimeMs };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    // Wait out a rebuild or seal in flight, so anvil is not stopped under it.
    await this.upstream.exclusive(async () => undefined);
    this.held = [];
  }

  /** Publishes a flashblock: the due transactions enter the pool, the receipts are computed. */
  private flashblockTick(): Promise<void> {
    return this.upstream.exclusive(async (raw) => {
      await this.publish(raw, this.due());
      this.building = true;
      // Computed now, as part of the flashblock, so readers find the receipts ready.
      await this.pool.preview(raw);
    });
  }

  /** The seal is the block's last tick: due transactions go into it (all with flushAll). */
  private sealTick(flushAll: boolean, before?: (raw: AnvilRpc) => Promise<void>): Promise<Hex> {
    return this.upstream.exclusive(async (raw) => {
      await this.publish(raw, flushAll ? this.held.splice(0) : this.due());
      let sealed: Hex;
      try {
        await before?.(raw);
      } finally {
        sealed = await this.mine(raw);
      }
      return sealed;
    });
  }

  /** Seals the pending block now (with the transactions due by now); returns its number. */
  seal(): Promise<Hex> {
    return this.sealTick(false);
  }

  /**
   * Runs fn with exclusive access to anvil, then seals; for scenario controls. Held
   * transactions are published first: fn may send from the same account (the owner is the
   * signer), and anvil numbers its nonces from the pool.
   */
  async sealWith<T>(fn: (raw: AnvilRpc) => Promise<T>): Promise<T> {
    let result: T | undefined;
    await this.sealTick(true, async (raw) => {
      result = await fn(raw);
    });
    return result as T;
  }

  private due(): Held[] {
    const now = Date.now();
    const isDue = (h: Held) => h.dueAt <= now && !h.afterSeal;
    const due = this.held.filter(isDue);
    if (due.length > 0) this.held = this.held.filter((h) => !isDue(h));
    return due;
  }

  /**
   * A flashblock reorg: a Flashblocks node that detects one withdraws its pre-confirmed
   * transactions and recomputes the pending flashblocks. The pre-confirmed transactions of
   * `sender` (lower case) leave the pool now, and are re-included at the first flashblock after
   * the next seal. Returns how many were withdrawn (the fault catalogue's reorg variant).
   */
  withdraw(sender: string): Promise<number> {
    return this.upstream.exclusive(async (raw) => {
      // The sender's whole pool, pending and queued: dropping one may drop the ones after it.
      const pool = await senderPool(raw, sender);
      const txs = [...pool.pending, ...pool.queued].filter((t) => this.pool.rawOf(t.hash)).sort((x, y) => Number(x.nonce) - Number(y.nonce));
      if (txs.length === 0) return 0;
      // Its held ones come after the withdrawn ones, in nonce order.
      const later = this.held.filter((h) => h.from === sender);
      this.held = this.held.filter((h) => h.from !== sender);
      await raw.batchResponses(txs.map((t): [string, Json[]] => ['anvil_dropTransaction', [t.hash]]));
      const withdrawn = txs.map((t): Held => ({
        hash: t.hash as Hex,
        from: sender,
        nonce: Number(t.nonce),
        raw: this.pool.rawOf(t.hash)!,
        dueAt: 0,
        afterSeal: true,
      }));
      for (const h of [...withdrawn, ...later]) this.held.push({ ...h, afterSeal: true });
      this.pool.poolChanged();
      await this.pool.preview(raw);
      return txs.length;
    });
  }

  /** A mempool's eviction of queued transactions: `sender`'s held ones ahead of a nonce gap go; how many. */
  evictGapped(sender: string): Promise<number> {
    return this.upstream.exclusive(async (raw) => {
      const theirs = this.held.filter((h) => h.from === sender);
      const { gapped } = await splitGapped(raw, theirs);
      this.held = this.held.filter((h) => !gapped.includes(h));
      return gapped.length;
    });
  }

  /** Submits held transactions to anvil's pool, in acceptance order; one ahead of a nonce gap stays held (a mempool's queued one). */
  private async publish(raw: AnvilRpc, due: Held[]): Promise<void> {
    const { now: txs, gapped } = await splitGapped(raw, due);
    for (const h of gapped) this.held.push(h);
    if (txs.length === 0) return;
    const refused = new Set<string>();
    for (let start = 0; start < txs.length; start += RESUBMIT_CHUNK) {
      const chunk = txs.slice(start, start + RESUBMIT_CHUNK);
      const answers = await raw.batchResponses(chunk.map((h): [string, Json[]] => ['eth_sendRawTransaction', [h.raw]]));
      answers.forEach((a, i) => {
        // Valid when accepted, but made invalid meanwhile (its nonce taken, its funds spent): a sequencer drops it too.
        if (a.error) this.opts.log(`flashblocks: dropped ${chunk[i].hash}: ${a.error.message}`);
        if (a.error) refused.add(chunk[i].from);
        else this.pool.remember(chunk[i].hash, chunk[i].raw);
      });
      // Held, so out of anvil's pool, yet anvil knew them: where it keeps them (seen twice under load).
      const imported = chunk.filter((_, i) => /already imported|already known/i.test(answers[i].error?.message ?? ''));
      for (const line of await poolAfterImported(raw, imported)) this.opts.log(line);
    }
    // A refusal midway leaves the sender's later ones queued in anvil: held again (anvil-pool.ts).
    for (const h of await unqueue(raw, refused, txs, (x) => this.pool.rawOf(x), this.opts.log)) this.held.push(h);
    this.pool.poolChanged();
  }

  private async mine(raw: AnvilRpc): Promise<Hex> {
    await raw.call('evm_mine');
    // Withdrawn by a reorg: due from the first flashblock after this seal (the sender's later ones at their own time).
    for (const h of this.held) if (h.afterSeal) h.afterSeal = false;
    this.pool.sealed();
    this.building = this.instant;
    const block = await raw.call<Block>('eth_getBlockByNumber', ['latest', false]);
    this.pool.forget(block.transactions);
    return block.number;
  }

  // ---- reads at "pending" --------------------------------------------------------------

  /** eth_blockNumber: the head, or in 'building' mode the block being built once it has a flashblock. */
  blockNumber(): Promise<JsonRpcResponse> {
    return this.upstream.shared(async (raw) => {
      const answer = await raw.forward({ method: 'eth_blockNumber', params: [] });
      if (this.opts.blockNumberMode === 'building' && this.building && typeof answer.result === 'string') {
        answer.result = `0x${(BigInt(answer.result) + 1n).toString(16)}`;
      }
      return answer;
    });
  }

  /** eth_getBlockByNumber("pending", full): the block being built, or "latest" before its first flashblock. */
  pendingBlock(params: Json[]): Promise<JsonRpcResponse> {
    return this.upstream.shared(async (raw) => {
      if (!this.building) return raw.forward({ method: 'eth_getBlockByNumber', params: ['latest', ...params.slice(1)] });
      // anvil's own pending block is built from the same pool as the receipts (restore()
      // checks the order), numbered head+1; only its provisional hash is replaced.
      const answer = await raw.forward({ method: 'eth_getBlockByNumber', params });
      if (isObject(answer.result)) answer.result = preconfirmedBlock(answer.result);
      return answer;
    });
  }

  /** eth_getBlockReceipts("pending"): receipts of the pre-confirmed block, or of "latest" before its first flashblock. */
  pendingReceipts(): Promise<Json> {
    return this.upstream.exclusive(async (raw) => {
      if (!this.building) return raw.call('eth_getBlockReceipts', ['latest']);
      return (await this.pool.preview(raw)).map(preconfirmedReceipt);
    });
  }

  /**
   * eth_getTransactionReceipt for a transaction anvil has no receipt for: its pre-confirmed
   * receipt, if published. Canonical first (as base's RPC does), re-read here under the lock
   * so a seal between the caller's read and ours cannot make a pre-confirmed one vanish.
   */
  preconfirmedReceipt(hash: string): Promise<Json> {
    return this.upstream.exclusive(async (raw) => {
      const sealed = await raw.call<Json>('eth_getTransactionReceipt', [hash]);
      if (sealed !== null || !this.building) return sealed;
      const found = (await this.pool.preview(raw)).find((r) => r.transactionHash.toLowerCase() === hash.toLowerCase());
      return found ? preconfirmedReceipt(found) : null;
    });
  }
}

function rpcError(code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id: null, error: { code, message } };
}
