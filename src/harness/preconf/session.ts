// The signer's plumbing for the pre-confirmation pass (pass.ts): reads of the spec's four
// methods at a tag, the standard helper methods the observation relies on, fees and gas, local
// signing and sending. Every call names its lane, so each check shows the exchanges it judged.
// An answer at odds with a rule is thrown as a Violation, a helper method that does not answer
// as Unobservable (errors.ts): readings for the pass to keep, never verdicts.
//
// Safety: only 0-value self-transfers and deployments of a few bytes are sent, each after
// reserving its worst-case cost (gas limit x max fee) in the run's SpendBudget, and only after
// the balance was seen to cover an attempt. Nonces are the "pending" count (spec 4.5).
import type { Hex, TransactionSerializable } from 'viem';
import { viem } from '../viem';
import type { SharedScope } from '../check';
import type { RpcAnswer, RpcClient, RpcError } from '../rpc';
import type { Signer } from '../signer';
import { blockErrorKind, readBlock, type BlockView } from '../chain';
import { isRecord, show } from '../json';
import { quantity, toQuantity } from '../hex';
import { realClock, type Clock } from './timing';
import { notServedViolation, Unobservable, Violation } from './errors';
import { RPC_ENVELOPE_ROOT } from '../expect';
import { isAlreadyKnown, lostSend } from './sends';

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

// ---- types ----------------------------------------------------------------------------------

type Fees = { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 'legacy'; gasPrice: bigint };

export interface TxPlan {
  /** Omitted for a deployment; otherwise always the signer itself (a self-transfer). */
  to?: Hex;
  data?: Hex;
}

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
  contractAddress?: Hex;
}

/** What eth_sendRawTransaction answered: accepted, or refused (the error, or why it gave no result; `lost`: a gateway answered every try, sends.ts). */
export type Posted = { sent: Sent } | { refused: string; error?: RpcError; startedAt: number; answeredAt: number; lost?: { nonce: bigint; answer: string } };

export type Receipt = Record<string, unknown>;

/** The signer's session: one per pass. Lanes name where the exchanges are shown. */
export class Session {
  readonly address: Hex;
  readonly signer: Signer;
  chainId!: number;
  private fees!: Fees;
  /** The highest nonce this session ever sent, so waits know when everything is sealed. */
  highestNonce = -1n;
  /** The lowest nonce whose send the gateway lost (Posted.lost): the signer's count cannot pass it. */
  lostNonce?: bigint;
  private readonly clients = new Map<string, RpcClient>();

  constructor(
    readonly scope: SharedScope,
    readonly time: Clock = realClock,
  ) {
    if (!scope.signer) throw new Error('the pre-confirmation pass needs a signer');
    this.signer = scope.signer;
    this.address = scope.signer.address;
  }

  rpc(lane: string): RpcClient {
    let c = this.clients.get(lane);
    if (!c) this.clients.set(lane, (c = this.scope.rpc(lane)));
    return c;
  }

  get maxFeePerGas(): bigint {
    return this.fees.type === 'eip1559' ? this.fees.maxFeePerGas : this.fees.gasPrice;
  }

  // ---- calls ------------------------------------------------------------------------------

  /**
   * A standard method the observation relies on but the spec does not cover (eth_chainId,
   * eth_gasPrice, eth_getBalance, ...). If it does not answer, nothing can be judged.
   */
  async helper<T = unknown>(lane: string, method: string, params: unknown[]): Promise<T> {
    const a = await this.rpc(lane).call(method, params);
    if (a.http.status !== 200 || !a.hasResult || a.hasError) {
      throw new Unobservable(
        `${method} (a standard method these observations rely on, outside the spec's four) did not give a result: HTTP ${a.http.status} ${show(a.error ?? a.json ?? a.jsonError)}`,
      );
    }
    return a.result as T;
  }

  async helperQuantity(lane: string, method: string, params: unknown[]): Promise<bigint> {
    const r = await this.helper(lane, method, params);
    const q = quantity(r);
    if (q === undefined) throw new Unobservable(`${method} answered ${show(r)}, not a hex quantity`);
    return q;
  }

  /**
   * What the chain helpers need: a lane's client and the pass's signal. Their notes (a re-read of
   * a block a load balancer did not have yet) are dropped: the re-reads stay in the exchanges.
   */
  private chain(lane: string) {
    return { rpc: this.rpc(lane), signal: this.scope.signal, note: () => undefined };
  }

  /**
   * The block at a tag or number (eth_getBlockByNumber, hashes only). Seals are established
   * with it, so a node that does not offer it leaves the pass unjudged.
   */
  async block(lane: string, param: string): Promise<BlockView> {
    const b = await readBlock(this.chain(lane), param);
    if (!b || b.number === undefined)
      throw new Unobservable(
        `eth_getBlockByNumber(${show(param)}, false) gave no block with a number (a standard method, outside the spec's four): whether a transaction was sealed cannot be established`,
      );
    return b;
  }

  /** eth_getBlockByNumber("pending") as a number, when the node offers one (never judged itself). */
  async pendingBlockNumber(lane: string): Promise<bigint | undefined> {
    return (await readBlock(this.chain(lane), 'pending'))?.number;
  }

  /**
   * eth_getTransactionCount (spec 4.5) of the signer at a tag, its address given checksummed
   * (EIP-55, as viem gives it) or in lowercase: an address names one account whatever its case.
   */
  async count(lane: string, tag: string, form: 'checksummed' | 'lowercase' = 'checksummed'): Promise<bigint> {
    const address = form === 'lowercase' ? this.address.toLowerCase() : this.address;
    const r = resultOf('eth_getTransactionCount', await this.rpc(lane).call('eth_getTransactionCount', [address, tag]));
    const q = quantity(r);
    if (q === undefined)
      throw new Violation(
        `eth_getTransactionCount(signer${form === 'lowercase' ? ' in lowercase' : ''}, ${show(tag)}) answered ${show(r)}, not a hex quantity`,
        {
          violated: ['4.5.1'],
          expected: 'hex quantity',
          actual: r,
        },
      );
    return q;
  }

  /** eth_getCode (spec 4.6) at a tag. */
  async code(lane: string, address: Hex, tag: string): Promise<string> {
    const r = resultOf('eth_getCode', await this.rpc(lane).call('eth_getCode', [address, tag]));
    if (typeof r !== 'string')
      throw new Violation(`eth_getCode(${address}, ${show(tag)}) answered ${show(r)}, not a hex string`, {
        violated: ['4.6.1'],
        expected: 'hex string',
        actual: r,
      });
    return r.toLowerCase();
  }

  /**
   * eth_estimateGas (spec 4.4) of a call that does not revert: any error is a violation. Without
   * a tag the block parameter is left out (its default is "latest", 4.4).
   */
  async estimate(lane: string, tx: Record<string, unknown>, tag?: string): Promise<bigint> {
    const a = await this.rpc(lane).call('eth_estimateGas', tag === undefined ? [tx] : [tx, tag]);
    if (a.http.status === 200 && isRecord(a.json)) sameId('eth_estimateGas', a);
    if (a.http.status === 200 && a.hasError) {
      throw new Violation(
        `eth_estimateGas(${show(tx)}${tag === undefined ? '' : `, ${show(tag)}`}) returned an error for a transaction that does not revert: ${show(a.error)}`,
        {
          violated: ['4.4.1'],
          expected: 'a gas estimate',
          actual: a.error,
        },
      );
    }
    if (a.http.status !== 200 || !a.hasResult) {
      throw new Violation(
        `eth_estimateGas(${tag === undefined ? 'no block parameter' : show(tag)}) did not answer with a JSON-RPC result: HTTP ${a.http.status} ${show(a.json ?? a.jsonError)}`,
        {
          violated: ['4.2.1'],
          root: a.http.status !== 200 ? RPC_ENVELOPE_ROOT.status : isRecord(a.json) ? RPC_ENVELOPE_ROOT.members : RPC_ENVELOPE_ROOT.body,
          expected: 'HTTP 200 with a result',
          actual: a.json ?? a.http.status,
        },
      );
    }
    const q = quantity(a.result);
    if (q === undefined)
      throw new Violation(`eth_estimateGas(${tag === undefined ? 'no block parameter' : show(tag)}) answered ${show(a.result)}, not a hex quantity`, {
        violated: ['4.4.1'],
        expected: 'hex quantity',
        actual: a.result,
      });
    return q;
  }

  /** eth_getBlockReceipts (spec 4.3) at a tag or hex number; must be an array. */
  async receipts(lane: string, block: string): Promise<Receipt[]> {
    return receiptsOf(block, resultOf('eth_getBlockReceipts', await this.rpc(lane).call('eth_getBlockReceipts', [block]), block));
  }

  /**
   * eth_getBlockReceipts of a sealed block by number, or what the node said when it did not know
   * the block (null, or an unknown-block error such as "header not found"): behind a load
   * balancer a backend may not have imported it yet, so that is an observation, not a verdict.
   */
  async receiptsAt(lane: string, number: bigint): Promise<Receipt[] | { unknown: string }> {
    const block = toQuantity(number);
    const a = await this.rpc(lane).call('eth_getBlockReceipts', [block]);
    if (a.http.status === 200 && !a.hasError && a.hasResult && a.result === null) return { unknown: `eth_getBlockReceipts(${show(block)}) answered null` };
    if (a.http.status === 200 && a.hasError && blockErrorKind(a) === 'unknown-block')
      return { unknown: `eth_getBlockReceipts(${show(block)}) answered ${show(a.error)}` };
    return receiptsOf(block, resultOf('eth_getBlockReceipts', a, block));
  }

  // ---- fees, funds, signing, sending ----------------------------------------------------------

  /** Chain id and fees, read in parallel (one round trip). */
  async open(lane: string): Promise<void> {
    const [chainId, block, gasPrice, tipAnswer] = await Promise.all([
      this.helperQuantity(lane, 'eth_chainId', []),
      this.helper<Record<string, unknown> | null>(lane, 'eth_getBlockByNumber', ['latest', false]),
      this.helperQuantity(lane, 'eth_gasPrice', []),
      this.rpc(lane).call('eth_maxPriorityFeePerGas', []),
    ]);
    this.chainId = Number(chainId);
    const baseFee = quantity(isRecord(block) ? block.baseFeePerGas : undefined);
    if (baseFee === undefined) {
      this.fees = { type: 'legacy', gasPrice: gasPrice + gasPrice / 4n };
      return;
    }
    const tip = quantity(tipAnswer.result) ?? (gasPrice > baseFee ? gasPrice - baseFee : 0n);
    this.fees = { type: 'eip1559', maxPriorityFeePerGas: tip, maxFeePerGas: 2n * baseFee + tip };
  }

  /** Gas limit for a planned transaction: the node's estimate at "latest" plus 20%. */
  async gasFor(lane: string, plan: TxPlan): Promise<bigint> {
    const est = await this.estimate(
      lane,
      { from: this.address, value: '0x0', ...(plan.to ? { to: plan.to } : {}), ...(plan.data ? { data: plan.data } : {}) },
      'latest',
    );
    return (est * 12n + 9n) / 10n;
  }

  /** The signer's balance at "latest". */
  balance(lane: string): Promise<bigint> {
    return this.helperQuantity(lane, 'eth_getBalance', [this.address, 'latest']);
  }

  /**
   * Stops the whole pass unless the balance covers the worst case of the given gas limits; a note
   * otherwise. A key was given, so these checks are in scope: not judged is inconclusive (the run
   * is incomplete), never a skip that would leave it "conformant".
   */
  ensureFunds(balance: bigint, gasLimits: bigint[]): string {
    const needed = gasLimits.reduce((sum, g) => sum + g * this.maxFeePerGas, 0n);
    if (balance < needed)
      throw new Unobservable(`signer balance too low (needs ${needed} wei, has ${balance}): fund ${this.address} to judge pre-confirmed state`);
    return `signer ${this.address} has ${balance} wei; an attempt's worst case is ${needed} wei`;
  }

  /** Reserves the worst case of these gas limits in the run's spend budget; the refusal, if any. */
  reserve(gasLimits: bigint[]): string | undefined {
    return this.signer.budget.reserve(gasLimits.reduce((sum, g) => sum + g * this.maxFeePerGas, 0n));
  }

  /** Signs locally (viem) one 0-value transaction from the signer to itself, or a deployment. */
  async sign(plan: TxPlan & { nonce: bigint; gas: bigint }): Promise<Signed> {
    if (plan.to !== undefined && plan.to.toLowerCase() !== this.address.toLowerCase()) throw new Error('only 0-value self-transfers and deployments are sent');
    const base = { chainId: this.chainId, nonce: Number(plan.nonce), gas: plan.gas, value: 0n, to: plan.to ?? null, ...(plan.data ? { data: plan.data } : {}) };
    const tx: TransactionSerializable =
      this.fees.type === 'eip1559'
        ? { ...base, type: 'eip1559', maxFeePerGas: this.fees.maxFeePerGas, maxPriorityFeePerGas: this.fees.maxPriorityFeePerGas }
        : { ...base, type: 'legacy', gasPrice: this.fees.gasPrice };
    const raw = await this.signer.account.signTransaction(tx);
    return {
      raw,
      hash: viem().keccak256(raw),
      nonce: plan.nonce,
      ...(plan.to === undefined ? { contractAddress: viem().getContractAddress({ from: this.address, nonce: plan.nonce }) } : {}),
    };
  }

  /** eth_sendRawTransaction: accepted (with its times), or refused with the node's error. */
  async post(lane: string, signed: Signed): Promise<Posted> {
    const startedAt = this.time.now();
    if (signed.nonce > this.highestNonce) this.highestNonce = signed.nonce;
    let a: RpcAnswer;
    try {
      a = await this.rpc(lane).call('eth_sendRawTransaction', [signed.raw]);
    } catch (err) {
      const lost = lostSend(err, signed.nonce, startedAt, this.time.now());
      if (this.lostNonce === undefined || signed.nonce < this.lostNonce) this.lostNonce = signed.nonce;
      return lost;
    }
    const answeredAt = this.time.now();
    // The same signed bytes sent again (after a dropped connection or a throttled answer) meet
    // the first copy: "already known" means it was accepted.
    if (a.hasError && isAlreadyKnown(a.error)) {
      const { raw: _raw, ...rest } = signed;
      return { sent: { ...rest, startedAt, acceptedAt: answeredAt } };
    }
    if (a.http.status !== 200 || a.hasError || !a.hasResult) {
      const why = a.error ? `error ${a.error.code} ${show(a.error.message)}` : `HTTP ${a.http.status} ${show(a.json ?? a.jsonError)}`;
      return { refused: `eth_sendRawTransaction of nonce ${signed.nonce} answered ${why}`, error: a.error, startedAt, answeredAt };
    }
    const { raw: _raw, ...rest } = signed;
    return { sent: { ...rest, startedAt, acceptedAt: answeredAt } };
  }
}

/**
 * The result of an answer, or the violation of 4.2 it is (not HTTP 200, an error, no result);
 * an HTTP 403 of eth_getBlockReceipts at `receiptsAt` is kept as such (Violation.refused403).
 */
function resultOf(method: string, a: RpcAnswer, receiptsAt?: string): unknown {
  if (a.http.status === 403 && receiptsAt !== undefined) {
    throw new Violation(
      `eth_getBlockReceipts(${show(receiptsAt)}) answered HTTP 403`,
      { violated: ['4.3.1'], expected: 'HTTP 200 with a JSON-RPC result', actual: 'HTTP 403' },
      receiptsAt,
    );
  }
  if (a.http.status !== 200)
    throw new Violation(`${method} answered HTTP ${a.http.status}`, {
      violated: ['4.2.1'],
      expected: 'HTTP 200 with a JSON-RPC result',
      actual: `HTTP ${a.http.status}`,
      root: RPC_ENVELOPE_ROOT.status,
    });
  if (!isRecord(a.json))
    throw new Violation(`${method}: HTTP 200 with a body that is not a JSON object (${a.jsonError ?? show(a.json)})`, {
      violated: ['4.2.1'],
      expected: 'a JSON-RPC response object',
      actual: a.jsonError ?? a.json,
      root: RPC_ENVELOPE_ROOT.body,
    });
  sameId(method, a);
  // An error where a result was due breaks the behaviour's own rule (a valid call is answered); a method not served at all is its root's (METHOD_ROOT).
  if (a.hasError) throw notServedViolation(method, a) ?? new Violation(`${method} returned error ${show(a.error)}`, { expected: 'a result', actual: a.error });
  if (!a.hasResult)
    throw new Violation(`${method}: response has neither result nor error`, {
      violated: ['4.2.1'],
      expected: 'a result member',
      actual: a.json,
      root: RPC_ENVELOPE_ROOT.members,
    });
  return a.result;
}

/** 4.2: the answer carries the request's id (the client records a mismatch; this states it). */
function sameId(method: string, a: RpcAnswer): void {
  if (!a.idMismatch) return;
  throw new Violation(`${method}: the answer carries id ${show(a.idMismatch.got ?? '(none)')}, not the request's id ${a.idMismatch.sent}`, {
    violated: ['4.2.1'],
    expected: a.idMismatch.sent,
    actual: a.idMismatch.got ?? null,
    root: RPC_ENVELOPE_ROOT.id,
  });
}

/** An answer of eth_getBlockReceipts as receipts: an array (4.3), or a failure. */
function receiptsOf(block: string, r: unknown): Receipt[] {
  if (!Array.isArray(r))
    throw new Violation(`eth_getBlockReceipts(${show(block)}) answered ${show(r)}, not an array of receipts`, {
      violated: ['4.3.1'],
      expected: 'an array of receipt objects',
      actual: r,
    });
  return r.filter(isRecord);
}
