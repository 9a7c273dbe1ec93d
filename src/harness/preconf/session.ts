// The plumbing of a pre-confirmed-state check: the signer's nonce, fees and balance, signing and
// sending, the seal clock, and the bracketed "before the seal" attempt. The checks themselves
// (nonce.ts, code.ts, estimate.ts, receipts.ts, latency.ts) read as the rules they enforce.
//
// Safety: only 0-value self-transfers and tiny deployments are sent, each after reserving its
// worst-case cost (gas limit x max fee) in the run's SpendBudget, and only after the balance was
// seen to cover the attempt. Nonces are the "pending" count (spec 4.5), as the spec recommends.
import { getContractAddress, keccak256, type Hex, type TransactionSerializable } from 'viem';
import { fail, inconclusive, skip } from '../verdict';
import type { CheckContext } from '../check';
import { callResult } from '../expect';
import { isRecord, jsonSafe, show } from '../json';
import { quantity, toQuantity } from '../hex';
import { beforeSeal, bracket, measureRtt, pollUntil, realClock, SealClock, VISIBILITY_BUDGET_MS, watchPending, type Attempt, type Clock, type Percentiles, blockPollMs, POLL_INTERVAL_MS } from './timing';

// ---- tiny contracts -------------------------------------------------------------------------

/** Runtime that returns 42: PUSH1 0x2a PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN. */
export const RUNTIME_RETURNS_42: Hex = '0x602a60005260206000f3';
/**
 * Runtime that writes 1 to storage slot 0: PUSH1 1 PUSH1 0 SSTORE STOP. Setting a zero slot costs
 * at least 20000 gas on every fork since Istanbul (EIP-2200; 22100 cold under EIP-2929).
 */
export const RUNTIME_SSTORE: Hex = '0x600160005500';
export const SSTORE_MIN_GAS = 20_000n;

/** Init code that returns `runtime` (< 256 bytes): PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN. */
export function initCodeFor(runtime: Hex): Hex {
  const len = (runtime.length - 2) / 2;
  if (!Number.isInteger(len) || len <= 0 || len > 255) throw new Error(`runtime of ${len} bytes: expected 1 to 255`);
  const l = len.toString(16).padStart(2, '0');
  return `0x60${l}600c60003960${l}6000f3${runtime.slice(2)}`;
}

// ---- helpers --------------------------------------------------------------------------------

/** Seal cadence per target, measured once per run (null: no regular seals seen). */
const cadenceCache = new Map<string, number | null>();

type Fees = { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 'legacy'; gasPrice: bigint };

export interface Signed {
  raw: Hex;
  hash: Hex;
  nonce: bigint;
  /** For deployments: the address the contract gets. */
  contractAddress?: Hex;
}

export interface Sent {
  hash: Hex;
  nonce: bigint;
  /** Clock time just before eth_sendRawTransaction was posted. */
  startedAt: number;
  /** Clock time its answer arrived (the transaction was accepted). */
  acceptedAt: number;
  /** For deployments: the address the contract gets. */
  contractAddress?: Hex;
}

export interface TxPlan {
  /** Omitted for a deployment; otherwise always the signer itself (a self-transfer or a call). */
  to?: Hex;
  data?: Hex;
}

export interface BeforeSealSpec<T, F> {
  /**
   * Signs the attempt's transactions, the first with nonce `base` (and reads anything else it
   * needs first); they are then sent back to back, right after the start block is read.
   */
  prepare(base: bigint): Promise<Signed[]>;
  /** One observation at "pending" and when it shows the pre-confirmed state. */
  observe(sent: Sent[], base: bigint): Promise<T>;
  visible(value: T, sent: Sent[], base: bigint): boolean;
  /** The violation when it stays invisible for the budget with no seal (a fail message). */
  notVisible(last: T, stableMs: number, sent: Sent[], base: bigint): string;
  /** What to show as `actual` for the last observation (default: the value itself). */
  shown?(last: T, sent: Sent[]): unknown;
  /** The observation judged, taken between two block-number reads. */
  final(sent: Sent[], base: bigint): Promise<F>;
}

export interface BeforeSealResult<F> {
  base: bigint;
  startBlock: bigint;
  sent: Sent[];
  visibleAfterMs: number;
  final: F;
}

/** One check's session with the signer. Open with Session.open; always `settle()` at the end. */
export class Session {
  readonly address: Hex;
  readonly clock: SealClock;
  rtt!: Percentiles;
  chainId!: number;
  private fees!: Fees;
  private highestNonce = -1n;

  private constructor(
    private readonly ctx: CheckContext,
    readonly time: Clock,
  ) {
    this.address = ctx.signer.address;
    this.clock = new SealClock(() => this.blockNumber(), time, ctx.signal);
  }

  /** Measures round-trip time and the seal cadence, and reads chain id and fees. */
  static async open(ctx: CheckContext, time: Clock = realClock): Promise<Session> {
    const s = new Session(ctx, time);
    s.rtt = await measureRtt(() => s.helper('eth_chainId', []), 8, time);
    s.chainId = Number(await s.helperQuantity('eth_chainId', []));
    const key = ctx.rpc.url;
    if (!cadenceCache.has(key)) cadenceCache.set(key, (await s.clock.measureCadence()) ?? null);
    s.clock.cadenceMs = cadenceCache.get(key) ?? undefined;
    s.fees = await s.readFees();
    ctx.note(
      `seal cadence ${s.clock.cadenceMs === undefined ? 'unknown (no regular seals seen; worst-case waits used)' : `~${s.clock.cadenceMs} ms`}; ` +
        `RTT (eth_chainId) p50 ${s.rtt.p50} ms, p95 ${s.rtt.p95} ms`,
    );
    return s;
  }

  /** How long pre-confirmed state may stay invisible at "pending" with no seal (timing.ts). */
  readonly budgetMs = VISIBILITY_BUDGET_MS;

  get maxFeePerGas(): bigint {
    return this.fees.type === 'eip1559' ? this.fees.maxFeePerGas : this.fees.gasPrice;
  }

  // ---- calls ------------------------------------------------------------------------------

  /**
   * A standard method the observation relies on but the spec does not cover (eth_chainId,
   * eth_blockNumber, eth_sendRawTransaction, ...). If it does not answer, nothing can be judged.
   */
  async helper<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const a = await this.ctx.rpc.call(method, params);
    if (a.http.status !== 200 || !a.hasResult || a.hasError) {
      inconclusive(`${method} (a standard method these observations rely on, outside the spec's four) did not give a result: HTTP ${a.http.status} ${show(a.error ?? a.json ?? a.jsonError)}`);
    }
    return a.result as T;
  }

  private async helperQuantity(method: string, params: unknown[]): Promise<bigint> {
    const r = await this.helper(method, params);
    const q = quantity(r);
    if (q === undefined) inconclusive(`${method} answered ${show(r)}, not a hex quantity`);
    return q;
  }

  blockNumber(): Promise<bigint> {
    return this.helperQuantity('eth_blockNumber', []);
  }

  /** eth_getTransactionCount (spec 4.5) of the signer at a tag. */
  async count(tag: string): Promise<bigint> {
    const r = await callResult(this.ctx.rpc, 'eth_getTransactionCount', [this.address, tag]);
    const q = quantity(r);
    if (q === undefined) fail(`eth_getTransactionCount(signer, ${show(tag)}) answered ${show(r)}, not a hex quantity`, { section: '4.5', expected: 'hex quantity', actual: r });
    return q;
  }

  /** eth_getCode (spec 4.6) at a tag. */
  async code(address: Hex, tag: string): Promise<string> {
    const r = await callResult(this.ctx.rpc, 'eth_getCode', [address, tag]);
    if (typeof r !== 'string') fail(`eth_getCode(${address}, ${show(tag)}) answered ${show(r)}, not a hex string`, { section: '4.6', expected: 'hex string', actual: r });
    return r;
  }

  /** eth_estimateGas (spec 4.4) of a call that does not revert: any error is a violation. */
  async estimate(tx: Record<string, unknown>, tag: string): Promise<bigint> {
    const a = await this.ctx.rpc.call('eth_estimateGas', [tx, tag]);
    if (a.http.status === 200 && a.hasError) {
      fail(`eth_estimateGas(${show(tx)}, ${show(tag)}) returned an error for a transaction that does not revert: ${show(a.error)}`, { section: '4.4', expected: 'a gas estimate', actual: a.error });
    }
    if (a.http.status !== 200 || !a.hasResult) {
      fail(`eth_estimateGas(${show(tag)}) did not answer with a JSON-RPC result: HTTP ${a.http.status} ${show(a.json ?? a.jsonError)}`, { section: '4.2', expected: 'HTTP 200 with a result', actual: a.json ?? a.http.status });
    }
    const q = quantity(a.result);
    if (q === undefined) fail(`eth_estimateGas(${show(tag)}) answered ${show(a.result)}, not a hex quantity`, { section: '4.4', expected: 'hex quantity', actual: a.result });
    return q;
  }

  /** eth_getBlockReceipts (spec 4.3) at a tag or hex number; must be an array. */
  async receipts(block: string): Promise<Array<Record<string, unknown>>> {
    const r = await callResult(this.ctx.rpc, 'eth_getBlockReceipts', [block]);
    if (!Array.isArray(r)) fail(`eth_getBlockReceipts(${show(block)}) answered ${show(r)}, not an array of receipts`, { section: '4.3', expected: 'an array of receipt objects', actual: r });
    return r.filter(isRecord);
  }

  // ---- fees, funds, sending ------------------------------------------------------------------

  private async readFees(): Promise<Fees> {
    const block = await this.helper<Record<string, unknown> | null>('eth_getBlockByNumber', ['latest', false]);
    const baseFee = quantity(isRecord(block) ? block.baseFeePerGas : undefined);
    const gasPrice = await this.helperQuantity('eth_gasPrice', []);
    if (baseFee === undefined) return { type: 'legacy', gasPrice: gasPrice + gasPrice / 4n };
    const tipAnswer = await this.ctx.rpc.call('eth_maxPriorityFeePerGas', []);
    const tip = quantity(tipAnswer.result) ?? (gasPrice > baseFee ? gasPrice - baseFee : 0n);
    return { type: 'eip1559', maxPriorityFeePerGas: tip, maxFeePerGas: 2n * baseFee + tip };
  }

  /** Gas limit for a planned transaction: the node's estimate at "latest" plus 20%. */
  async gasFor(plan: TxPlan): Promise<bigint> {
    const tx: Record<string, unknown> = { from: this.address, value: '0x0', ...(plan.to ? { to: plan.to } : {}), ...(plan.data ? { data: plan.data } : {}) };
    const est = await this.estimate(tx, 'latest');
    return (est * 12n + 9n) / 10n;
  }

  /** Skips the check unless the signer can pay the worst case of the given gas limits. */
  async ensureFunds(gasLimits: bigint[]): Promise<void> {
    const needed = gasLimits.reduce((sum, g) => sum + g * this.maxFeePerGas, 0n);
    const balance = await this.helperQuantity('eth_getBalance', [this.address, 'latest']);
    if (balance < needed) {
      this.ctx.note(`signer ${this.address} has ${balance} wei; the worst case of this check is ${needed} wei`);
      skip(`signer balance too low (needs ${needed} wei)`);
    }
  }

  /** Signs locally (viem) one 0-value transaction from the signer to itself, or a deployment; reserves its worst-case cost. */
  async sign(plan: TxPlan & { nonce: bigint; gas: bigint }): Promise<Signed> {
    if (plan.to !== undefined && plan.to.toLowerCase() !== this.address.toLowerCase() && plan.data === undefined) {
      throw new Error('only 0-value self-transfers and deployments are sent');
    }
    const refused = this.ctx.signer.budget.reserve(plan.gas * this.maxFeePerGas);
    if (refused) skip(refused);
    const base = { chainId: this.chainId, nonce: Number(plan.nonce), gas: plan.gas, value: 0n, to: plan.to ?? null, ...(plan.data ? { data: plan.data } : {}) };
    const tx: TransactionSerializable =
      this.fees.type === 'eip1559'
        ? { ...base, type: 'eip1559', maxFeePerGas: this.fees.maxFeePerGas, maxPriorityFeePerGas: this.fees.maxPriorityFeePerGas }
        : { ...base, type: 'legacy', gasPrice: this.fees.gasPrice };
    const raw = await this.ctx.signer.account.signTransaction(tx);
    return { raw, hash: keccak256(raw), nonce: plan.nonce, ...(plan.to === undefined ? { contractAddress: getContractAddress({ from: this.address, nonce: plan.nonce }) } : {}) };
  }

  /** eth_sendRawTransaction of a signed transaction; returns when the node accepted it. */
  async post(signed: Signed): Promise<Sent> {
    const startedAt = this.time.now();
    if (signed.nonce > this.highestNonce) this.highestNonce = signed.nonce;
    const answer = await this.helper<unknown>('eth_sendRawTransaction', [signed.raw]);
    const acceptedAt = this.time.now();
    if (typeof answer === 'string' && answer.toLowerCase() !== signed.hash) {
      this.ctx.note(`eth_sendRawTransaction answered ${answer}, not keccak256 of the raw transaction ${signed.hash}; the latter is used`);
    }
    const { raw: _raw, ...rest } = signed;
    return { ...rest, startedAt, acceptedAt };
  }

  async send(plan: TxPlan & { nonce: bigint; gas: bigint }): Promise<Sent> {
    return this.post(await this.sign(plan));
  }

  // ---- waiting -----------------------------------------------------------------------------

  /**
   * Waits until nothing of the signer is pre-confirmed but unsealed ("pending" count = "latest"
   * count, and everything this session sent is in "latest"), so an attempt starts from sealed
   * state; returns that count, the next nonce.
   */
  async quiesce(): Promise<bigint> {
    const wait = this.clock.sealWaitMs();
    const r = await pollUntil(
      async () => {
        const [pending, latest] = await Promise.all([this.count('pending'), this.count('latest')]);
        return { pending, latest };
      },
      (v) => v.pending === v.latest && v.latest > this.highestNonce,
      { timeoutMs: wait, intervalMs: blockPollMs, clock: this.time, signal: this.ctx.signal },
    );
    if (!r.ok) {
      inconclusive(
        `the signer still had unsealed transactions after ${wait} ms (pending count ${r.value.pending}, latest ${r.value.latest}, ` +
          `highest nonce sent ${this.highestNonce}); is another process using this key?`,
      );
    }
    return r.value.pending;
  }

  /** Waits for the transaction's receipt (it was sealed); inconclusive past the seal wait. */
  async sealed(hash: Hex): Promise<Record<string, unknown>> {
    const wait = this.clock.sealWaitMs();
    const r = await pollUntil(() => this.helper<unknown>('eth_getTransactionReceipt', [hash]), (v) => isRecord(v), {
      timeoutMs: wait,
      intervalMs: blockPollMs,
      clock: this.time,
      signal: this.ctx.signal,
    });
    if (!r.ok) inconclusive(`transaction ${hash} was not sealed within ${wait} ms (about three block times), so the state after the seal could not be observed`);
    return r.value as Record<string, unknown>;
  }

  /** Waits (bounded, never throwing) until everything this session sent is sealed, so the next check starts clean. */
  async settle(): Promise<void> {
    if (this.highestNonce < 0n || this.ctx.signal.aborted) return;
    try {
      await pollUntil(() => this.count('latest'), (latest) => latest > this.highestNonce, {
        timeoutMs: this.clock.sealWaitMs(),
        intervalMs: blockPollMs,
        clock: this.time,
        signal: this.ctx.signal,
      });
    } catch {
      // the next check's quiesce() waits again and reports if it has to
    }
  }

  /**
   * The "before the seal" observation: start from sealed state, leave room before the next seal,
   * send, watch "pending" until the pre-confirmed state shows (polled every 20 ms), then take the
   * judged observation between two block-number reads. An attempt that a seal interrupts is
   * retried (bounded), then reported inconclusive. Staying invisible for the visibility budget
   * while no block was sealed is a violation (the spec's "about 200 ms" read generously).
   */
  observeBeforeSeal<T, F>(what: string, spec: BeforeSealSpec<T, F>): Promise<BeforeSealResult<F>> {
    return beforeSeal<BeforeSealResult<F>>(
      what,
      async (n): Promise<Attempt<BeforeSealResult<F>>> => {
        const base = await this.quiesce();
        const signed = await spec.prepare(base);
        // Room for the sends, the budget and the bracketed read before the next seal.
        await this.clock.alignForWindow(this.budgetMs + (signed.length + 4) * this.rtt.p50 + 100);
        const startBlock = await this.clock.read();
        const sent: Sent[] = [];
        for (const tx of signed) sent.push(await this.post(tx));
        const watched = await watchPending({
          observe: () => spec.observe(sent, base),
          visible: (v) => spec.visible(v, sent, base),
          blockNumber: () => this.clock.read(),
          startBlock,
          startedAt: sent[0].startedAt,
          acceptedAt: sent[sent.length - 1].acceptedAt,
          budgetMs: this.budgetMs,
          intervalMs: POLL_INTERVAL_MS,
          clock: this.time,
          signal: this.ctx.signal,
        });
        const retry = (why: string): Attempt<BeforeSealResult<F>> => (this.ctx.note(`${what}, attempt ${n}: ${why}`), { sealed: why });
        if (watched.kind === 'sealed') return retry(`a block was sealed ${Math.round(watched.stableMs)} ms after the send, before it showed at "pending"`);
        if (watched.kind === 'not-visible') {
          fail(spec.notVisible(watched.last, Math.round(watched.stableMs), sent, base), {
            expected: `visible at "pending" within ${this.budgetMs} ms of acceptance (spec: refreshed about every 200 ms)`,
            actual: jsonSafe(spec.shown ? spec.shown(watched.last, sent) : watched.last),
          });
        }
        const br = await bracket(() => this.clock.read(), startBlock, () => spec.final(sent, base));
        if (!br.stable) return retry(`the block number moved from ${startBlock} to ${br.before === startBlock ? br.after : br.before} around the observation`);
        return { value: { base, startBlock, sent, visibleAfterMs: Math.round(watched.afterMs), final: br.value } };
      },
      undefined,
      this.ctx.signal,
    );
  }
}

/** Opens a session, runs the check body, and always lets its transactions settle. */
export async function withSession(ctx: CheckContext, body: (s: Session) => Promise<void>): Promise<void> {
  const s = await Session.open(ctx);
  try {
    await body(s);
  } finally {
    await s.settle();
  }
}

export { toQuantity };
