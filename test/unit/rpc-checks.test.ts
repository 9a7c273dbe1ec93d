/**
 * The RPC checks can fail: they run through the real runner against a tiny JSON-RPC node on
 * 127.0.0.1 that answers right, or wrong in one chosen way, and the verdicts are asserted.
 * Also: the hand-assembled reverting init code, executed by a minimal interpreter of its few
 * opcodes and (when the binary is installed) by anvil, yields the Error("conformance") payload.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeErrorResult, getContractAddress, type Hex } from 'viem';
import type { Check, Profile } from '../../src/harness/check';
import { Redactor } from '../../src/harness/redact';
import { runChecks, type CheckResult } from '../../src/harness/runner';
import { decided } from '../support/runs';
import { violatedSection } from '../../src/harness/result';
import { checks as rpcChecks } from '../../suites/rpc';
import { expectedRevertData, REVERT_REASON } from '../../suites/rpc/revert';
import { isInsufficientFunds, isRevert, revertingInitCode } from '../../src/harness/evm';
import { judgeBlockGas } from '../../src/harness/receipts';
import { blockErrorKind } from '../../src/harness/chain';
import { CheckFailure } from '../../src/harness/verdict';
import { startAnvil } from '../../src/reference/anvil';
import { locateAnvil } from '../../src/reference/anvil-binary';
import { NO_DEPLOYMENT, NO_DEPLOYMENT_NOW } from '../../suites/rpc/pending-code';
import { QUIET_CHAIN, WATCH_MS } from '../../suites/rpc/pending-count';

// Each test judges its own fake node (no state shared between tests), and a whole run mostly
// waits (the pending checks watch for a bounded time), so the tests run together.
const test = global.test.concurrent;

/** A fake node shows no pre-confirmed deployment: nothing for that watch to read (skipped, as on any idle chain). */
const asExpected = (id: string): [string, string, string] => (id === 'rpc.getCode.pending-deployments' ? [id, 'skipped', NO_DEPLOYMENT] : [id, 'passed', '']);

// ---- a fake node --------------------------------------------------------------------------

interface Faults {
  /** Echo the id as a string instead of the same number. */
  idAsString?: boolean;
  /** Revert answered with code 3 (geth/reth/anvil) instead of -32000. */
  revertCode3?: boolean;
  /** Revert error data: 'wrong' payload, or 'absent'. */
  revertData?: 'wrong' | 'absent';
  /** eth_getBlockReceipts("pending") answers null. */
  nullPendingReceipts?: boolean;
  /** Quantities as decimal strings ("0", "21000") instead of hex. */
  decimal?: boolean;
  /** eth_getBlockReceipts leaves out one transaction of the block. */
  receiptMissing?: boolean;
  /** The pending count of the active sender is below its latest count. */
  pendingBelowLatest?: boolean;
  /** The active sender's "pending" count answered from the state `below` blocks under the head: the first `times` reads (a fleet's backend met on some reads), or always. */
  stalePending?: { below: number; times: number | 'always' };
  /** eth_getBlockReceipts("latest") answered `offset` blocks from the head (beyond it: the head's receipts so numbered): the first `times` reads (a fleet's backend met on some reads), or always. */
  latestReceiptsAt?: { offset: number; times: number | 'always' };
  /** eth_blockNumber names the block being built, one past the sealed head (a Flashblocks node's building mode). */
  buildingBlockNumber?: boolean;
  /** The first eth_getBlockReceipts("latest") finds the head block replaced (a reorg of depth one: same number, another hash and transactions). */
  reorgHeadOnLatestReceipts?: 'replace' | 'replace-and-seal';
  /** eth_getBlockReceipts refused with HTTP 403 (public node behaviour). */
  receipts403?: boolean;
  /** "latest" advances on every eth_getBlockByNumber call (a seal between every two reads). */
  sealEveryRead?: boolean;
  /** No transactions anywhere (no active sender). */
  quiet?: boolean;
  /** eth_getBlockByNumber("pending") is not offered (null). */
  noPendingBlock?: boolean;
  /** eth_getBlockByNumber("pending") is refused: a JSON-RPC error, or HTTP 501 (a web server). */
  pendingBlockRefused?: 'error' | 501;
  /** Contract bytecode in upper-case hex. */
  codeUppercase?: boolean;
  /** eth_getCode at "pending" answers "0x" for the sealed contract: always, or only the first `n` times (a backend behind). */
  pendingCodeEmpty?: 'always' | number;
  /** The contract has code only from the head block on (deployed just now), not from block 2. */
  contractYoung?: boolean;
  /** Every method refuses the "pending" tag with an error. */
  pendingRejected?: boolean;
  /** HTTP 403 for every method (a public node refusing everything). */
  all403?: boolean;
  /** Two blocks sealed at every eth_getBlockReceipts call (between the reads around it). */
  sealOnReceipts?: boolean;
  /** A transaction is pre-confirmed at every eth_getBlockByNumber("pending") read. */
  pendingGrows?: boolean;
  /** The pre-confirmed block is sealed just before or just after eth_getBlockReceipts("pending") answers. */
  sealAtPendingReceipts?: 'before' | 'after';
  /** The block parameter is ignored: state and receipts come from the head, whatever block is asked. */
  ignoresBlock?: boolean;
  /** A full node: state at "earliest" and more than 8 blocks below the head answers "missing trie node". */
  pruned?: boolean;
  /** A load balancer: half the requests reach a backend one block behind during the first 300 ms of each second. */
  lagging?: boolean;
  /** The first request naming the head block by number reaches a backend one block behind; its repetition does not. */
  firstReadLags?: boolean;
  /** A fleet's backend `behind` blocks behind: a read at a number above head - behind answers "header not found" (null for receipts), on the first read of each call, or always. */
  staleBackend?: { behind: number; times: 'first' | 'always' };
  /** The chain rewinds this many blocks (an OP-stack unsafe-head reset) on the first read at block 0xe, which is then past the head. */
  rewindAtBlock14?: number;
  /** eth_blockNumber names a block one past the head, which every read then calls unknown (a backend ahead, for good). */
  headUnknown?: boolean;
  /** Every n-th request is answered HTTP 429 with Retry-After: 0 (its retry is served, unless n is 1). */
  throttleEvery?: number;
  /** A method router answering eth_getBlockReceipts with its own id (the backend's answer passed through). */
  receiptsIdWrong?: boolean;
  /** Receipts carry cumulativeGasUsed as gasUsed. */
  gasUsedCumulative?: boolean;
  /** Pending receipts numbered as the head while eth_getBlockByNumber("pending") says head + 1. */
  pendingReceiptsAtHead?: boolean;
  /** The pre-confirmed block is empty (sealed blocks still hold transactions): nothing pre-confirmed to watch. */
  emptyPending?: boolean;
  /** The pending block also lists CONTRACT's creation, sealed long ago (as a pending block falling back to "latest" lists what is sealed). */
  pendingListsSealedDeployment?: boolean;
  /** eth_estimateGas at "pending" runs calls against a state without the sealed contract: a call into it is a plain transfer (21000). */
  pendingEstimateWithoutCode?: boolean;
  /** eth_getBlockReceipts answers null at these block parameters. */
  nullReceiptsAt?: string[];
  /** Blocks from this number on hold no transaction (a chain gone quiet): the newest busy block lies far below the head. */
  idleFrom?: number;
  /** A reth full node: receipts more than this many blocks below the head are pruned (bodies kept), eth_getBlockReceipts answers null. */
  receiptsPrunedBelow?: number;
  /** A block the node does not know is refused in Nethermind's words ("17 could not be found", code -32001), not geth's "header not found". */
  nethermindWords?: boolean;
  /** eth_estimateGas from a sender without funds is refused (Tevm charges a default gas price). */
  estimateNeedsFunds?: 'random-sender' | 'always';
  /** CONTRACT reverts with this reason, named in the message ("execution reverted: <reason>"). */
  contractRevertReason?: string;
}

const SENDER = '0x00000000000000000000000000000000000000aa';
const EOA = '0x00000000000000000000000000000000000000bb';
/** Deployed by SENDER's transaction with nonce 0, the first transaction of block 2. */
const CONTRACT = getContractAddress({ from: SENDER, nonce: 0n }).toLowerCase();
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const q = (n: number) => `0x${n.toString(16)}`;

function fakeNode(faults: Faults) {
  // Sealed blocks 1..16: the even ones hold two transactions. The pre-confirmed block holds
  // one, plus those pre-confirmed since (pendingGrows). Every transaction is SENDER's, its nonce
  // counting all before it; the first (block 2) creates CONTRACT, the others pay EOA.
  let head = 16;
  const sealed = new Map<number, string[]>();
  for (let n = 1; n <= head; n++)
    sealed.set(n, faults.quiet || n % 2 === 1 || (faults.idleFrom !== undefined && n >= faults.idleFrom) ? [] : [hash(n * 10 + 1), hash(n * 10 + 2)]);
  let preconf: string[] = faults.quiet || faults.emptyPending ? [] : [hash(1000 + head + 1)];
  // A seal keeps the pre-confirmed transactions and includes one more (as a sequencer may).
  const seal = () => {
    sealed.set(head + 1, faults.quiet ? [] : [...preconf, hash(3000 + head)]);
    head++;
    preconf = faults.quiet || faults.emptyPending ? [] : [hash(1000 + head + 1)];
  };
  let extra = 0;
  const txsOf = (n: number): string[] => (n === head + 1 ? [...preconf] : (sealed.get(n) ?? []));
  /** SENDER's count at the end of block n: its transactions in blocks 1..n. */
  const countAt = (n: number): number => {
    let c = 0;
    for (let k = 1; k <= n; k++) c += txsOf(k).length;
    return c;
  };
  const CREATED_IN = 2;
  const started = Date.now();
  let requests = 0;
  const num = (n: number) => (faults.decimal ? String(n) : q(n));

  let emptyPendingCodes = 0;
  let rewound = false;
  let stalePendingCounts = 0;
  let offLatestReceipts = 0;
  let reorged = false;
  let sealOnNextRead = false;
  const blockHash = (n: number) => (reorged && n === 16 ? hash(9000 + n) : hash(5000 + n));
  const throttled = new Set<string>();
  const seen = new Set<string>();
  function answer(method: string, params: unknown[], body: string): { result?: unknown; error?: unknown; status?: number; retryAfter?: string } {
    requests++;
    if (faults.throttleEvery && requests % faults.throttleEvery === 0 && (faults.throttleEvery === 1 || !throttled.has(body))) {
      throttled.add(body);
      return { status: 429, retryAfter: '0' };
    }
    // The backend this request reached (half the requests, in a fixed scrambled order, so that
    // no worker of the run keeps meeting the same one): one block behind during the first 300 ms
    // of each second, as a replica that imports each block late.
    const firstSight =
      faults.firstReadLags && method !== 'eth_blockNumber' && !seen.has(JSON.stringify([method, params])) && JSON.stringify(params).includes(`"${q(head)}"`);
    if (faults.firstReadLags) seen.add(JSON.stringify([method, params]));
    if (faults.rewindAtBlock14 && !rewound && method !== 'eth_getBlockByNumber' && JSON.stringify(params).includes('"0xe"')) {
      head -= faults.rewindAtBlock14;
      rewound = true;
    }
    const stale = faults.staleBackend;
    const staleSight = stale !== undefined && (stale.times === 'always' || !seen.has(JSON.stringify([method, params])));
    if (stale) seen.add(JSON.stringify([method, params]));
    const behind = firstSight || (faults.lagging && ((requests * 2654435761) >>> 13) % 2 === 1 && (Date.now() - started) % 1000 < 300);
    // A function: seals during a request (sealOnReceipts) move the head it answers from.
    const top = () => (behind ? head - 1 : head);
    const resolve = (param: unknown): number | undefined => {
      switch (param) {
        case 'latest':
          return top();
        case 'pending':
          return head + 1;
        case 'safe':
          return top() - 2;
        case 'finalized':
          return top() - 4;
        case 'earliest':
          return 0;
        default:
          return typeof param === 'string' && /^0x[0-9a-f]+$/.test(param) ? Number(param) : undefined;
      }
    };
    /** The block a state read or receipts request is answered at, or an error. */
    const stateBlock = (param: unknown, state: boolean): number | { error: unknown } => {
      const n = resolve(param ?? 'latest');
      if (n === undefined) return { error: { code: -32602, message: 'invalid block' } };
      const unknown = faults.nethermindWords
        ? { error: { code: -32001, message: `${n} could not be found` } }
        : { error: { code: -32000, message: 'header not found' } };
      if (param !== 'pending' && (n > top() || (faults.headUnknown && n === head + 1))) return unknown;
      if (staleSight && typeof param === 'string' && param.startsWith('0x') && n > head - stale.behind) return unknown;
      if (faults.ignoresBlock && param !== 'pending') return top();
      if (state && faults.pruned && (param === 'earliest' || n < head - 8))
        return { error: { code: -32000, message: 'missing trie node 5c9988edf0f4826717b1cda157724c139a93e7c232e919b2f7cdff31e708c5d8 (path )' } };
      return n;
    };
    if (faults.all403 && method !== 'eth_blockNumber' && method !== 'eth_getBlockByNumber') return { status: 403 };
    const blockAt: Record<string, number> = { eth_getBlockReceipts: 0, eth_estimateGas: 1, eth_getTransactionCount: 1, eth_getCode: 1 };
    if (faults.pendingRejected && method in blockAt && params[blockAt[method]] === 'pending') {
      return { error: { code: -32602, message: 'invalid block tag "pending": unsupported' } };
    }
    switch (method) {
      case 'eth_blockNumber':
        return { result: q(faults.headUnknown ? head + 1 : faults.buildingBlockNumber ? top() + 1 : top()) };
      case 'eth_getBlockByNumber': {
        if (faults.sealEveryRead && params[0] !== 'pending') seal();
        if (sealOnNextRead && params[0] !== 'pending') {
          sealOnNextRead = false;
          seal();
        }
        if (faults.pendingGrows && params[0] === 'pending' && !faults.quiet) preconf.push(hash(2000 + extra++));
        if (params[0] === 'pending' && faults.noPendingBlock) return { result: null };
        if (params[0] === 'pending' && faults.pendingBlockRefused === 'error') return { error: { code: -32000, message: 'pending block is not available' } };
        if (params[0] === 'pending' && faults.pendingBlockRefused === 501) return { status: 501 };
        const n = resolve(params[0]);
        if (n === undefined || (params[0] !== 'pending' && n > top())) return { result: null };
        const txs = txsOf(n);
        const base = countAt(n - 1);
        return {
          result: {
            number: q(n),
            hash: n === head + 1 ? null : blockHash(n),
            gasUsed: q(21000 * txs.length),
            transactions: params[1]
              ? [
                  ...(faults.pendingListsSealedDeployment && params[0] === 'pending'
                    ? [{ hash: txsOf(CREATED_IN)[0], from: SENDER, to: null, nonce: q(0), type: '0x2' }]
                    : []),
                  ...txs.map((h, i) => ({ hash: h, from: SENDER, to: n === CREATED_IN && i === 0 ? null : EOA, nonce: q(base + i), type: '0x2' })),
                ]
              : txs,
          },
        };
      }
      case 'eth_getBlockReceipts': {
        if (faults.receipts403) return { status: 403 };
        if (faults.sealOnReceipts) {
          seal();
          seal();
        }
        if (faults.sealAtPendingReceipts === 'before' && params[0] === 'pending') seal();
        if (params[0] === 'pending' && faults.nullPendingReceipts) return { result: null };
        if (faults.nullReceiptsAt?.includes(String(params[0]))) return { result: null };
        if (faults.reorgHeadOnLatestReceipts && params[0] === 'latest' && !reorged) {
          reorged = true;
          sealed.set(head, [hash(7000 + head)]);
          sealOnNextRead = faults.reorgHeadOnLatestReceipts === 'replace-and-seal';
        }
        const off = faults.latestReceiptsAt;
        const shifted = off && params[0] === 'latest' && (off.times === 'always' || offLatestReceipts++ < off.times) ? off.offset : 0;
        const at = shifted ? top() + shifted : stateBlock(params[0], false);
        if (typeof at !== 'number') return { result: null };
        if (faults.receiptsPrunedBelow !== undefined && at < head - faults.receiptsPrunedBelow) return { result: null };
        const txs = txsOf(shifted > 0 ? top() : at).slice(faults.receiptMissing ? 1 : 0);
        if (faults.sealAtPendingReceipts === 'after' && params[0] === 'pending') seal();
        return {
          result: txs.map((h, i) => ({
            transactionHash: h,
            blockNumber: num(faults.pendingReceiptsAtHead && params[0] === 'pending' ? head : at),
            ...(at === head + 1 ? {} : { blockHash: blockHash(at) }),
            status: '0x1',
            gasUsed: num(faults.gasUsedCumulative ? 21000 * (i + 1) : 21000),
            cumulativeGasUsed: num(21000 * (i + 1)),
            type: '0x2',
            logs: [],
          })),
        };
      }
      case 'eth_getTransactionCount': {
        const [address, block] = params as [string, string];
        if (typeof address !== 'string' || address.length !== 42) return { error: { code: -32602, message: 'invalid address' } };
        const at = stateBlock(block, true);
        if (typeof at !== 'number') return at;
        if (address.toLowerCase() !== SENDER) return { result: num(0) };
        const stale = faults.stalePending;
        if (stale && block === 'pending' && (stale.times === 'always' || stalePendingCounts++ < stale.times))
          return { result: num(countAt(head - stale.below)) };
        return { result: num(block === 'pending' && faults.pendingBelowLatest ? countAt(head) - 1 : countAt(at)) };
      }
      case 'eth_getCode': {
        const at = stateBlock(params[1], true);
        if (typeof at !== 'number') return at;
        if (faults.pendingCodeEmpty !== undefined && params[1] === 'pending' && String(params[0]).toLowerCase() === CONTRACT) {
          if (faults.pendingCodeEmpty === 'always' || emptyPendingCodes++ < faults.pendingCodeEmpty) return { result: '0x' };
        }
        if (String(params[0]).toLowerCase() === CONTRACT && at >= (faults.contractYoung ? head : CREATED_IN))
          return { result: faults.codeUppercase ? '0x6080604052FE' : '0x6080604052fe' };
        return { result: '0x' };
      }
      case 'eth_estimateGas': {
        const tx = params[0] as { to?: string; from?: string };
        const unfunded = tx.from !== undefined && tx.from.toLowerCase() !== SENDER;
        if (faults.estimateNeedsFunds === 'always' || (faults.estimateNeedsFunds === 'random-sender' && unfunded))
          return { error: { code: -32000, message: 'insufficient funds for gas * price + value' } };
        if (tx.to === undefined) {
          const data = faults.revertData === 'wrong' ? '0x08c379a0' : expectedRevertData();
          return {
            error: {
              code: faults.revertCode3 ? 3 : -32000,
              message: `execution reverted: ${REVERT_REASON}`,
              ...(faults.revertData === 'absent' ? {} : { data }),
            },
          };
        }
        const at = stateBlock(params[1], true);
        if (typeof at !== 'number') return at;
        // CONTRACT has no function but reverts every call (from its creation on).
        const codeless = faults.pendingEstimateWithoutCode && params[1] === 'pending';
        if (tx.to.toLowerCase() === CONTRACT && at >= CREATED_IN && !codeless)
          return { error: { code: -32000, message: `execution reverted${faults.contractRevertReason ? `: ${faults.contractRevertReason}` : ''}` } };
        return { result: num(21000) };
      }
      default:
        return { error: { code: -32601, message: 'method not found' } };
    }
  }

  return http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      const a = answer(call.method, call.params ?? [], body);
      if (a.status) {
        res
          .writeHead(a.status, { 'content-type': 'application/json', ...(a.retryAfter !== undefined ? { 'retry-after': a.retryAfter } : {}) })
          .end('{"code":7,"message":"forbidden"}');
        return;
      }
      const id = faults.idAsString ? String(call.id) : faults.receiptsIdWrong && call.method === 'eth_getBlockReceipts' ? 4242 : call.id;
      const out = 'error' in a ? { jsonrpc: '2.0', id, error: a.error } : { jsonrpc: '2.0', id, result: a.result };
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(out));
    });
  });
}

async function run(
  faults: Faults,
  opts: { profile?: Profile; only?: RegExp; archive?: boolean; acrossSamples?: Map<string, object> } = {},
): Promise<Map<string, CheckResult>> {
  const server = fakeNode(faults);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const selected: Check[] = rpcChecks.filter((c) => !opts.only || opts.only.test(c.id));
    const results = await runChecks(
      selected,
      {
        rpcUrl: `http://127.0.0.1:${port}`,
        restHeaders: {},
        rpcHeaders: {},
        settings: { profile: opts.profile ?? 'dedicated', clockSkewSec: 300, timeoutMs: 5000, ...(opts.archive ? { archive: true } : {}) },
        redactor: new Redactor(),
        signal: new AbortController().signal,
        ...(opts.acrossSamples ? { acrossSamples: opts.acrossSamples } : {}),
      },
      { concurrency: 4 },
    );
    return new Map(decided(results).map((r) => [r.id, r]));
  } finally {
    await new Promise((r) => server.close(r));
  }
}

function statuses(results: Map<string, CheckResult>): Record<string, string> {
  return Object.fromEntries([...results].map(([id, r]) => [id, r.status]));
}

// ---- verdicts -----------------------------------------------------------------------------

describe('RPC checks against a conformant fake node', () => {
  test('dedicated profile: every check passes except the public-only ones', async () => {
    const results = await run({});
    expect(results.size).toBeGreaterThanOrEqual(35);
    for (const [id, r] of results) {
      if (id.startsWith('rpc.getBlockReceipts.public-403') || id.startsWith('rpc.public.')) expect([id, r.status]).toEqual([id, 'skipped']);
      else expect([id, r.status, r.reason]).toEqual(asExpected(id));
    }
    expect(results.get('rpc.getCode.contract.latest')!.notes?.map((n) => n.toLowerCase())).toEqual([`contract ${CONTRACT}`]);
  });

  test('public profile: the 403 checks pass and the receipts checks are skipped', async () => {
    const results = await run({ receipts403: true }, { profile: 'public' });
    for (const [id, r] of results) {
      if (id.startsWith('rpc.getBlockReceipts.block.') || id === 'rpc.getBlockReceipts.nonempty-block' || id === 'rpc.history.getBlockReceipts.past-block')
        expect([id, r.status]).toEqual([id, 'skipped']);
      else expect([id, r.status, r.reason]).toEqual(asExpected(id));
    }
  });

  test('"pending" receipts judged by head range when eth_getBlockByNumber("pending") is not offered', async () => {
    const r = (await run({ noPendingBlock: true }, { only: /getBlockReceipts\.block\.pending$/ })).get('rpc.getBlockReceipts.block.pending')!;
    expect(r.status).toBe('passed');
    expect(r.notes?.join(' ')).toMatch(/not offered/);
  });

  test('a seal between the reads: receipts paired with the block they name', async () => {
    const r = (await run({ sealOnReceipts: true }, { only: /getBlockReceipts\.block\.latest$/ })).get('rpc.getBlockReceipts.block.latest')!;
    expect(r.status).toBe('passed');
    expect(r.notes?.join(' ')).toMatch(
      /block 0x12: 2 receipt\(s\) for 2 transaction\(s\); the tag moved from 0x10 to 0x12 meanwhile, paired by the receipts' blockNumber/,
    );
  });

  test('a growing pre-confirmed block: receipts bracketed by the reads before and after', async () => {
    const r = (await run({ pendingGrows: true }, { only: /getBlockReceipts\.block\.pending$/ })).get('rpc.getBlockReceipts.block.pending')!;
    expect(r.status).toBe('passed');
    expect(r.notes?.join(' ')).toMatch(/2 receipt\(s\), 2 transaction\(s\) pre-confirmed before and 3 after the call/);
  });

  test.each([
    ['after', /block 0x11 \(sealed during the call\): 1 receipt\(s\), 1 transaction\(s\) pre-confirmed before, 2 sealed/],
    ['before', /block 0x12 \(begun by a seal during the call\): 1 receipt\(s\), 1 transaction\(s\) pre-confirmed just after/],
  ] as const)('"pending" across a seal %s the receipts: paired with the block they name', async (when, note) => {
    const r = (await run({ sealAtPendingReceipts: when }, { only: /getBlockReceipts\.block\.pending$/ })).get('rpc.getBlockReceipts.block.pending')!;
    expect([r.status, r.reason]).toEqual(['passed', '']);
    expect(r.notes?.join(' ')).toMatch(note);
  });

  test('revert data absent is conformant (optional) but leaves nothing to judge: skipped, never passed', async () => {
    const r = (await run({ revertData: 'absent' }, { only: /revert\.data$/ })).get('rpc.estimateGas.revert.data')!;
    expect(r.status).toBe('skipped');
    expect(r.reason).toBe('the error carries no data member (optional in 4.4 and 7): nothing to judge');
  });
});

describe('RPC checks against faulty fake nodes', () => {
  test('id echoed as a string: the id checks fail with 4.2, the error envelope is blocked by them', async () => {
    const results = await run({ idAsString: true }, { only: /^rpc\.envelope\./ });
    const s = statuses(results);
    expect(s['rpc.envelope.id-zero']).toBe('failed');
    expect(s['rpc.envelope.id-max-safe-integer']).toBe('failed');
    expect(results.get('rpc.envelope.error-response')).toMatchObject({ status: 'inconclusive', cause: 'blocked', blockedBy: 'rpc.envelope.id-zero' });
    expect(s['rpc.envelope.http-200']).toBe('passed');
    expect(s['rpc.envelope.jsonrpc-version']).toBe('passed');
  });

  test('a router answering eth_getBlockReceipts with its own id: one receipts check states the 4.2 failure, the others are blocked by it, the rest pass', async () => {
    const results = await run({ receiptsIdWrong: true });
    // The id check of the envelope passes on its own method, so one receipts check states the evidence once.
    const receipts = [...results].filter(([id]) => /getBlockReceipts/.test(id) && !id.startsWith('rpc.getBlockReceipts.public-403'));
    const failed = receipts.filter(([, r]) => r.status === 'failed');
    expect(failed.map(([id, r]) => [id, violatedSection(r)])).toEqual([['rpc.getBlockReceipts.block.latest', '4.2']]);
    expect(failed[0][1].reason).toMatch(/the answer carries id 4242, not the request's id \d+/);
    expect(failed[0][1].exchanges?.length).toBeGreaterThan(0);
    for (const [id, r] of receipts.filter(([, r]) => r.status !== 'failed'))
      expect([id, r.status, r.cause, r.blockedBy]).toEqual([id, 'inconclusive', 'blocked', 'rpc.getBlockReceipts.block.latest']);
    for (const [id, r] of results) {
      if (/getBlockReceipts/.test(id) || id.startsWith('rpc.public.')) continue;
      expect([id, r.status, r.reason]).toEqual(asExpected(id));
    }
  });

  test('HTTP 200 on a public profile fails the 403 checks', async () => {
    const s = statuses(await run({}, { profile: 'public', only: /public-403/ }));
    expect(s).toEqual({ 'rpc.getBlockReceipts.public-403': 'failed', 'rpc.getBlockReceipts.public-403-pending': 'failed' });
  });

  test('a seal between every pair of reads with nothing to pair by makes the tag checks inconclusive, never a verdict', async () => {
    // Empty blocks: empty receipts name no block, so they cannot be paired across the seal.
    const results = await run({ sealEveryRead: true, quiet: true }, { only: /getBlockReceipts\.block\.latest$/ });
    const r = results.get('rpc.getBlockReceipts.block.latest')!;
    expect(r.status).toBe('inconclusive');
    expect(r.reason).toMatch(/could not be paired with a block in any of 3 attempts/);
    expect(r.notes?.join(' ')).toMatch(/changed between reads/);
  });

  test('upper-case contract bytecode fails the contract code checks with 4.6', async () => {
    const results = await run({ codeUppercase: true }, { only: /getCode/ });
    for (const id of ['rpc.getCode.contract.latest', 'rpc.getCode.contract.pending']) {
      expect([id, results.get(id)!.status, violatedSection(results.get(id)!)]).toEqual([id, 'failed', '4.6']);
    }
    expect(results.get('rpc.getCode.block.latest')!.status).toBe('passed');
  });

  test('a pending state without a sealed contract\'s code ("0x" at "pending", code two blocks below the head) fails rpc.getCode.contract.pending at once, with 1.4 and 4.6', async () => {
    // Once is evidence: a fleet's bad backend is met on some reads only, and a later good one takes nothing back.
    for (const pendingCodeEmpty of [1, 'always'] as const) {
      const r = (await run({ pendingCodeEmpty }, { only: /getCode\.contract\.pending/ })).get('rpc.getCode.contract.pending')!;
      expect([r.status, r.violated]).toEqual(['failed', ['1.4.1', '4.6.1']]);
      expect(r.reason).toMatch(/answered "0x" for a contract that had code at block 0xe, two below the head 0x10/);
    }
  });

  test('a contract younger than two blocks: "0x" at "pending" then its code is not judged (a backend behind?); "0x" on every read fails', async () => {
    const once = (await run({ contractYoung: true, pendingCodeEmpty: 1 }, { only: /getCode\.contract\.pending/ })).get('rpc.getCode.contract.pending')!;
    expect([once.status, once.reason]).toEqual(['inconclusive', expect.stringMatching(/younger than two blocks, then its code: .*not judged$/)]);
    const always = (await run({ contractYoung: true, pendingCodeEmpty: 'always' }, { only: /getCode\.contract\.pending/ })).get(
      'rpc.getCode.contract.pending',
    )!;
    expect([always.status, always.violated]).toEqual(['failed', ['1.4.1', '4.6.1']]);
    expect(always.reason).toMatch(/answered "0x" in each of 4 reads over 1750 ms/);
  });

  test('a "pending" estimate of a call into a sealed contract as a plain transfer (21000) while "latest" runs its code fails rpc.estimateGas.contract.pending with 1.4 and 4.4', async () => {
    const only = { only: /estimateGas\.contract\.pending/ };
    const right = (await run({}, only)).get('rpc.estimateGas.contract.pending')!;
    expect([right.status, right.notes?.join(' ')]).toEqual(['passed', expect.stringMatching(/contract 0x[0-9a-fA-F]{40}, with code at block 0xe/)]);
    const r = (await run({ pendingEstimateWithoutCode: true }, only)).get('rpc.estimateGas.contract.pending')!;
    expect([r.status, r.violated]).toEqual(['failed', ['1.4.1', '4.4.1']]);
    expect(r.reason).toMatch(/answered "0x5208" \(21000\), the estimate of a plain transfer .* while "latest" ran its code .*had code at block 0xe/);
    // A contract younger than two blocks is not on every backend yet: nothing settled to judge by.
    const young = (await run({ pendingEstimateWithoutCode: true, contractYoung: true }, only)).get('rpc.estimateGas.contract.pending')!;
    expect([young.status, young.reason]).toEqual(['skipped', expect.stringMatching(/^no contract found .* with code at block 0xe, two below the head$/)]);
  });

  test('refusing "pending" fails every pending check citing 1.4', async () => {
    const results = await run({ pendingRejected: true });
    const pendingIds = [...results.keys()].filter((id) => /\.pending$|pending-ge-latest|pending-counts-preconfirmed/.test(id) && !id.includes('public'));
    expect(pendingIds.length).toBe(8); // count, code, receipts, estimate at "pending"; contract code and estimate; the two invariants
    for (const id of pendingIds) {
      const r = results.get(id)!;
      expect([id, r.status, violatedSection(r)]).toEqual([id, 'failed', '1.4, 4.2']);
    }
    expect(results.get('rpc.getCode.block.latest')!.status).toBe('passed');
    // The deployments watch too, when the pending block lists a deployment to read: a failure citing 1.4 and 4.2, never a bug of the suite.
    const watch = (await run({ pendingRejected: true, pendingListsSealedDeployment: true }, { only: /pending-deployments/ })).get(
      'rpc.getCode.pending-deployments',
    )!;
    expect([watch.status, watch.cause, violatedSection(watch)]).toEqual(['failed', 'violation', '1.4, 4.2']);
  });

  test('refusing "pending" is one root for the revert at "pending" too: blocked by the estimate check at "pending", never a revert code or message the node never gave', async () => {
    const r = await run({ pendingRejected: true }, { only: /estimateGas\.(revert|block\.pending$)/ });
    expect([r.get('rpc.estimateGas.block.pending')!.status, violatedSection(r.get('rpc.estimateGas.block.pending')!)]).toEqual(['failed', '1.4, 4.2']);
    for (const id of ['rpc.estimateGas.revert.pending.code', 'rpc.estimateGas.revert.pending.message', 'rpc.estimateGas.revert.pending.data'])
      expect([id, r.get(id)!.status, r.get(id)!.blockedBy]).toEqual([id, 'inconclusive', 'rpc.estimateGas.block.pending']);
    for (const id of ['rpc.estimateGas.revert.code', 'rpc.estimateGas.revert.message', 'rpc.estimateGas.revert.data'])
      expect([id, r.get(id)!.status]).toEqual([id, 'passed']);
    // Without the root in the run, the first of them states it, citing 1.4 and 4.2: still a failure.
    const alone = await run({ pendingRejected: true }, { only: /estimateGas\.revert\.pending/ });
    expect([...alone.values()].filter((x) => x.status === 'failed').map((x) => [x.id, violatedSection(x)])).toEqual([
      ['rpc.estimateGas.revert.pending.code', '1.4, 4.2'],
    ]);
  });

  test('a public node refusing every method fails 5.2 once: the other acceptance checks are blocked by the first', async () => {
    const results = await run({ all403: true }, { profile: 'public', only: /^rpc\.public\.|public-403/ });
    for (const r of results.values()) {
      if (r.id.includes('public-403')) expect([r.id, r.status]).toEqual([r.id, 'passed']);
      else if (r.id === 'rpc.public.accepts.getTransactionCount') expect([r.id, r.status, r.section]).toEqual([r.id, 'failed', '5.2']);
      else expect([r.id, r.status, r.blockedBy]).toEqual([r.id, 'inconclusive', 'rpc.public.accepts.getTransactionCount']);
    }
    expect(results.size).toBe(5);
  });

  test('a pending block that keeps listing a sealed deployment: skipped (nothing pre-confirmed to judge), the watch ended while idle, not at its bound', async () => {
    const r = (await run({ pendingListsSealedDeployment: true }, { only: /pending-deployments/ })).get('rpc.getCode.pending-deployments')!;
    expect([r.status, r.reason]).toEqual(['skipped', expect.stringMatching(/^the deployments 0x[0-9a-fA-F]{40} were each sealed before a read/)]);
    // Sealed, the deployment is no longer open: the watch ends IDLE_MS after (2 s), as with no
    // deployment at all, instead of going on to its WATCH_MS bound (5 s) for nothing.
    expect(r.durationMs).toBeLessThan(WATCH_MS);
  });

  test.each([
    ['null', { noPendingBlock: true }, /gave no block \(result null\)/],
    ['an error', { pendingBlockRefused: 'error' as const }, /gave no block \(error -32000: "pending block is not available"\)/],
    ['HTTP 501', { pendingBlockRefused: 501 as const }, /gave no block \(HTTP 501\)/],
  ])('a node whose pending block is %s: the pending-block watches are not judged (never "nothing to judge", never passed)', async (_, faults, why) => {
    const r = await run(faults, { only: /pending-counts-preconfirmed|pending-deployments/ });
    for (const id of ['rpc.getTransactionCount.pending-counts-preconfirmed', 'rpc.getCode.pending-deployments']) {
      expect([id, r.get(id)!.status]).toEqual([id, 'inconclusive']);
      expect(r.get(id)!.reason).toMatch(why);
      expect(r.get(id)!.reason).toMatch(/other senders' pre-confirmed transactions are found .*: not judged$/);
    }
  });

  test("a quiet chain is the run's to learn: once a watch found the pending block empty for 2 s, a later sample's ends at its first fresh read with nothing unsealed", async () => {
    // Runs sharing one record across samples stand for samples of one run, in order.
    const count = (r: Map<string, CheckResult>) => r.get('rpc.getTransactionCount.pending-counts-preconfirmed')!;
    const code = (r: Map<string, CheckResult>) => r.get('rpc.getCode.pending-deployments')!;
    // The count watch alone, on an empty pending block, watches 2 s and learns the chain is quiet;
    // the deployments watch does not teach it (deployments are rare on a chain with traffic).
    const byCode = new Map<string, object>();
    expect(code(await run({ emptyPending: true }, { only: /pending-deployments/, acrossSamples: byCode })).reason).toBe(NO_DEPLOYMENT);
    expect(byCode.get(QUIET_CHAIN) ?? { quiet: false }).toEqual({ quiet: false });
    const byCount = new Map<string, object>();
    const countFirst = count(await run({ emptyPending: true }, { only: /pending-counts-preconfirmed/, acrossSamples: byCount }));
    // Nothing pre-confirmed to count: said, never passed.
    expect([countFirst.status, countFirst.reason]).toEqual(['skipped', expect.stringMatching(/^the pending block showed no transaction for \d+ ms: /)]);
    expect(byCount.get(QUIET_CHAIN)).toEqual({ quiet: true });
    // A later sample: both end at their first fresh read with nothing unsealed, and say why.
    const later = await run({ emptyPending: true }, { only: /pending-counts-preconfirmed|pending-deployments/, acrossSamples: byCount });
    expect([count(later).status, count(later).reason]).toEqual([
      'skipped',
      expect.stringMatching(/^the pending block showed no transaction for \d+ ms \(this run had found nothing unsealed there for 2000 ms: a quiet chain\): /),
    ]);
    expect([code(later).status, code(later).reason]).toEqual(['skipped', NO_DEPLOYMENT_NOW]);
  });

  test('a chain with traffic is never taken for quiet: a transaction in the pending block clears what an earlier sample learned, and the watch judges as without samples', async () => {
    const acrossSamples = new Map<string, object>([[QUIET_CHAIN, { quiet: true }]]);
    const r = (await run({}, { only: /pending-counts-preconfirmed/, acrossSamples })).get('rpc.getTransactionCount.pending-counts-preconfirmed')!;
    expect([r.status, r.notes?.at(-1)]).toEqual([
      'passed',
      expect.stringMatching(/"pending" 0x[0-9a-f]+ counts pre-confirmed nonce 0x[0-9a-f]+ \("latest" 0x[0-9a-f]+\)$/),
    ]);
    expect(acrossSamples.get(QUIET_CHAIN)).toEqual({ quiet: false });
  });

  test('a "pending" count below the count one block under a head read before it fails pending-ge-latest at once: no backend a block behind explains it', async () => {
    // Once is evidence: a fleet's bad backend is met on some reads only, and a later good read takes nothing back.
    for (const times of [1, 'always'] as const) {
      const r = (await run({ stalePending: { below: 3, times } }, { only: /pending-ge-latest/ })).get('rpc.getTransactionCount.pending-ge-latest')!;
      expect([r.status, r.violated]).toEqual(['failed', ['4.5.2', '1.4.1']]);
      expect(r.reason).toMatch(/"pending" count "0xc" is below its count "0xe" at block 0xf, one below the sealed head 0x10 read before it/);
    }
  });

  test('a "pending" count at the block under the head (a backend a block behind), then the right one: re-read, passes', async () => {
    const r = (await run({ stalePending: { below: 1, times: 1 } }, { only: /pending-ge-latest/ })).get('rpc.getTransactionCount.pending-ge-latest')!;
    expect(r.status).toBe('passed');
    expect(r.notes?.join(' ')).toMatch(/attempt 1: .* "pending" "0xe" below "latest" "0x10"; re-reading/);
  });

  test('no transactions in the latest blocks: the invariant is skipped, not passed', async () => {
    const r = (await run({ quiet: true }, { only: /pending-ge-latest/ })).get('rpc.getTransactionCount.pending-ge-latest')!;
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/^no active sender found in the latest blocks/);
  });
});

// ---- history, pruning, load-balancer skew, throttling -------------------------------------

const HISTORY = /^rpc\.history\./;

describe('history checks tell history from the head', () => {
  test('a conformant node passes all nine, with the state they used named in a note', async () => {
    const results = await run({}, { only: HISTORY });
    expect([...results.values()].map((r) => [r.id, r.status, r.reason])).toEqual([...results.keys()].map(asExpected));
    expect(results.size).toBe(9);
    // The newest block with transactions at least two below the head (16): block 14, nonces 12 and 13.
    expect(results.get('rpc.history.getTransactionCount.before-block')!.notes).toEqual([`sender ${SENDER}: 2 transaction(s) in block 0xe (14), nonces 12..13`]);
    expect(results.get('rpc.history.getCode.before-creation')!.notes!.join(' ').toLowerCase()).toContain(`contract ${CONTRACT}, created in block 0x2 (2)`);
    expect(results.get('rpc.history.getBlockReceipts.past-block')!.notes).toEqual([
      'block 0xe: 2 receipt(s) for 2 transaction(s); every receipt names the block hash',
    ]);
  });

  test('a node answering from the head whatever the block fails every one that can tell, citing 4.2', async () => {
    const results = await run({ ignoresBlock: true }, { only: /^rpc\.history\.|^rpc\.getBlockReceipts\.block\.earliest$/ });
    for (const r of results.values()) {
      // Code never changes after creation: at the creation block the head's code is the right answer.
      const expected = r.id === 'rpc.history.getCode.at-creation' ? 'passed' : 'failed';
      expect([r.id, r.status]).toEqual([r.id, expected]);
      if (expected === 'failed') expect(r.section.split(', ')).toContain('4.2');
    }
    expect(results.get('rpc.history.getTransactionCount.before-block')!.reason).toMatch(
      /is 0x10 \(16\), but the sender's first transaction in block 0xe carries nonce 12: .*the node seems to ignore the block parameter and answer from the head$/,
    );
    expect(results.get('rpc.history.estimateGas.before-creation')!.reason).toMatch(
      /answered error .*the very error it gives at "latest".*cannot revert: the node seems to ignore the block parameter/,
    );
  });

  // A contract's own revert reason is any text: one naming an unknown block or pruned state is
  // still a revert, which the node could give only by running the call at that block's state.
  test.each(['Sale not yet available', 'price data not available', 'could not find the header'])(
    'a node answering from the head fails the estimates before creation, whatever the revert reason says ("%s")',
    async (reason) => {
      const results = await run({ ignoresBlock: true, contractRevertReason: reason }, { only: /^rpc\.history\.estimateGas\./ });
      expect([...results.values()].map((r) => [r.id, r.status])).toEqual([
        ['rpc.history.estimateGas.before-creation', 'failed'],
        ['rpc.history.estimateGas.earliest', 'failed'],
      ]);
      expect(results.get('rpc.history.estimateGas.before-creation')!.reason).toMatch(/the very error it gives at "latest"/);
    },
  );

  test('no transactions in the blocks looked at: skipped with the reason, never passed', async () => {
    const results = await run({ quiet: true }, { only: HISTORY });
    for (const r of results.values()) expect([r.id, r.status]).toEqual([r.id, 'skipped']);
    expect(results.get('rpc.history.getTransactionCount.at-block')!.reason).toBe(
      'no transaction sender found in the latest 16 and the first 8 blocks (at least 2 below the head)',
    );
  });
});

describe('pruned history (a full node)', () => {
  const READS_AT_OLD_STATE = [
    'rpc.getTransactionCount.block.earliest',
    'rpc.getCode.block.earliest',
    'rpc.estimateGas.block.earliest',
    'rpc.history.getTransactionCount.earliest',
    'rpc.history.getCode.before-creation', // block 1, more than 8 below the head
    'rpc.history.getCode.at-creation',
    'rpc.history.getCode.earliest',
    'rpc.history.estimateGas.before-creation',
    'rpc.history.estimateGas.earliest',
  ];

  test('without --archive: reads of old state are skipped as out of scope, the rest still judged', async () => {
    const results = await run({ pruned: true });
    for (const id of READS_AT_OLD_STATE) {
      const r = results.get(id)!;
      expect([id, r.status, r.cause, r.reason, r.outOfScope]).toEqual([
        id,
        'skipped',
        'out-of-scope',
        'node keeps no state this old (run with --archive to require it)',
        { flag: '--archive', words: 'no --archive' },
      ]);
      expect(r.notes?.join(' ')).toMatch(/missing trie node .*: pruned state or history/);
    }
    // Recent state (block 13 and 14) and receipts are kept: judged and passed.
    for (const id of [
      'rpc.history.getTransactionCount.before-block',
      'rpc.history.getTransactionCount.at-block',
      'rpc.history.getBlockReceipts.past-block',
      'rpc.getCode.block.head-number',
    ]) {
      expect([id, results.get(id)!.status]).toEqual([id, 'passed']);
    }
    expect([...results.values()].filter((r) => r.status === 'failed' || r.status === 'inconclusive').map((r) => r.id)).toEqual([]);
  });

  test('with --archive: the same reads fail, citing 4.2', async () => {
    const results = await run({ pruned: true }, { archive: true, only: /earliest|^rpc\.history\.getCode\./ });
    for (const id of READS_AT_OLD_STATE.filter((i) => results.has(i))) {
      const r = results.get(id)!;
      expect([id, r.status, violatedSection(r)]).toEqual([id, 'failed', '4.2']);
      expect(r.reason).toMatch(/answered \{"code":-32000,"message":"missing trie node .*--archive requires it/);
    }
    expect(results.get('rpc.getBlockReceipts.block.earliest')!.status).toBe('passed'); // receipts are history, not pruned here
  });
});

describe('pruned receipts (a reth full node: bodies kept, receipts pruned)', () => {
  // Blocks 8..16 hold no transaction: the newest busy block is 6, ten below the head, whose receipts are pruned.
  const BUSY_BLOCK_RECEIPTS = /^rpc\.getBlockReceipts\.nonempty-block$|^rpc\.history\.getBlockReceipts\.past-block$/;
  const faults: Faults = { idleFrom: 8, receiptsPrunedBelow: 8 };

  test('without --archive: null receipts of a block far below the head are pruned history, skipped as out of scope', async () => {
    const results = await run(faults, { only: BUSY_BLOCK_RECEIPTS });
    expect(results.size).toBe(2);
    for (const [id, r] of results) {
      expect([id, r.status, r.reason, r.outOfScope]).toEqual([
        id,
        'skipped',
        'node keeps no state this old (run with --archive to require it)',
        { flag: '--archive', words: 'no --archive' },
      ]);
      expect(r.notes?.join(' ')).toMatch(/eth_getBlockReceipts at "0x6" answered null: pruned state or history/);
    }
  });

  test('with --archive: the same reads fail, citing 4.2', async () => {
    const results = await run(faults, { only: BUSY_BLOCK_RECEIPTS, archive: true });
    for (const [id, r] of results) {
      expect([id, r.status, r.violated]).toEqual([id, 'failed', ['4.2.2']]);
      expect(r.reason).toMatch(/^eth_getBlockReceipts at "0x6" answered null: the node keeps no state or history at that block, and --archive requires it/);
    }
  });

  test('null receipts at "safe" or "earliest" stay a failure of 4.3: no node prunes the receipts of those blocks', async () => {
    const results = await run({ nullReceiptsAt: ['safe', 'earliest'] }, { only: /^rpc\.getBlockReceipts\.block\.(safe|earliest)$/ });
    for (const [id, r] of results) expect([id, r.status, r.reason]).toEqual([id, 'failed', expect.stringMatching(/answered null, not an array of receipts/)]);
  });
});

describe('load-balancer skew (backends a block apart)', () => {
  test('a backend lagging one block on every other request: every check passes (re-reads), none fails', async () => {
    const results = await run({ lagging: true });
    const notPassed = [...results.values()].filter(
      (r) => r.status !== 'passed' && !(r.status === 'skipped' && r.outOfScope?.flag === '--profile') && r.reason !== NO_DEPLOYMENT,
    );
    expect(notPassed.map((r) => [r.id, r.status, r.reason])).toEqual([]);
  });

  test('the head just read is unknown on the first read of it: re-read, then judged and passed', async () => {
    const results = await run({ firstReadLags: true }, { only: /\.head-number$/ });
    expect(results.size).toBe(4);
    for (const r of results.values()) {
      expect([r.id, r.status, r.reason]).toEqual(asExpected(r.id));
      expect(r.notes?.join(' ')).toMatch(
        /at "0x10" answered .* while the head read just after was 0x10; re-reading after 250 ms \(backends a block apart\?\)|eth_getBlockByNumber\("0x10"\) answered .* re-reading after 250 ms/,
      );
    }
  });

  test('Nethermind\'s words for a block it does not know yet ("16 could not be found", -32001): re-read as skew, then judged and passed', async () => {
    const results = await run({ firstReadLags: true, nethermindWords: true }, { only: /\.head-number$/ });
    expect(results.size).toBe(4);
    for (const r of results.values()) {
      expect([r.id, r.status, r.reason]).toEqual(asExpected(r.id));
      expect(r.notes?.join(' ')).toMatch(
        /at "0x10" answered .*16 could not be found.* re-reading after 250 ms|eth_getBlockByNumber\("0x10"\) answered .* re-reading after 250 ms/,
      );
    }
  });

  test('a head the node then never knows: the head-number checks are inconclusive after the re-reads, never failed', async () => {
    const results = await run({ headUnknown: true }, { only: /\.head-number$/ });
    expect(results.size).toBe(4);
    for (const r of results.values()) {
      expect([r.id, r.status]).toEqual([r.id, 'inconclusive']);
      // eth_getBlockReceipts answers null for a block it does not know; the others an error.
      expect(r.reason).toMatch(
        /at "0x11" answered (\{"code":-32000,"message":"header not found"\}|null) while the head read just after was 0x11, in each of 4 attempts: a block at or near the observed head stayed unknown/,
      );
      expect(r.notes?.filter((n) => n.startsWith('attempt '))).toHaveLength(3);
    }
  }, 20_000);
});

describe('a block number below the head that no backend within a block could call unknown', () => {
  const NUMBERED = /^rpc\.history\.(getTransactionCount\.at-block|getBlockReceipts\.past-block)$|\.head-number$/;

  test.each(['first', 'always'] as const)(
    'a backend three blocks behind (%s read): the history reads two below the sealed head fail at once citing 4.2; the head itself is re-read',
    async (times) => {
      for (const buildingBlockNumber of [false, true]) {
        const results = await run({ staleBackend: { behind: 3, times }, buildingBlockNumber }, { only: NUMBERED });
        expect(results.size).toBe(6);
        for (const id of ['rpc.history.getTransactionCount.at-block', 'rpc.history.getBlockReceipts.past-block']) {
          const r = results.get(id)!;
          expect([id, buildingBlockNumber, r.status, r.violated]).toEqual([id, buildingBlockNumber, 'failed', ['4.2.2']]);
          expect(r.reason).toMatch(
            /at "0xe" answered (\{"code":-32000,"message":"header not found"\}|null), but block 14 is 2 below the sealed head 0x10 read before the call with eth_getBlockByNumber\("latest"\) \(the head read after: 0x1[01]\): every backend within a block of that head has it/,
          );
        }
        // The head named by eth_blockNumber (or the block being built, which this node never serves by
        // number): a backend a block behind may lack it, so it is re-read, never failed.
        for (const [id, r] of results) {
          if (!id.endsWith('.head-number')) continue;
          expect([id, r.status]).toEqual([id, times === 'first' && !buildingBlockNumber ? 'passed' : 'inconclusive']);
        }
      }
    },
    20_000,
  );

  test('the same backend in Nethermind\'s words ("14 could not be found"): the history reads fail at once citing 4.2 as with geth\'s', async () => {
    const results = await run(
      { staleBackend: { behind: 3, times: 'first' }, nethermindWords: true },
      { only: /^rpc\.history\.getTransactionCount\.at-block$/ },
    );
    const r = results.get('rpc.history.getTransactionCount.at-block')!;
    expect([r.status, r.violated]).toEqual(['failed', ['4.2.2']]);
    expect(r.reason).toMatch(/at "0xe" answered \{"code":-32001,"message":"14 could not be found"\}, but block 14 is 2 below the sealed head 0x10/);
  });

  test('a backend one block behind on the first read of each call: re-read, passes', async () => {
    const results = await run({ staleBackend: { behind: 1, times: 'first' } }, { only: NUMBERED });
    expect([...results.values()].map((r) => [r.id, r.status, r.reason])).toEqual([...results.keys()].map(asExpected));
  });

  test('a chain that rewinds past the block between the head read and the call (an unsafe-head reset): not judged, never failed', async () => {
    // The head read after the answer is below the block: the block is gone from every backend, not missing from one.
    const results = await run({ rewindAtBlock14: 4 }, { only: NUMBERED });
    expect([...results.values()].filter((r) => r.status === 'failed').map((r) => [r.id, r.reason])).toEqual([]);
    expect(results.get('rpc.history.getTransactionCount.at-block')!.status).toBe('inconclusive');
  }, 20_000);

  test('a pruned node without --archive: old state stays skipped, never failed as an unknown block', async () => {
    const results = await run({ pruned: true, staleBackend: { behind: 1, times: 'first' } }, { only: HISTORY });
    expect([...results.values()].filter((r) => r.status === 'failed').map((r) => [r.id, r.reason])).toEqual([]);
    expect(results.get('rpc.history.getCode.before-creation')!.status).toBe('skipped');
  });
});

describe('receipts at "latest" from a block no backend within a block could answer', () => {
  const LATEST = /^rpc\.getBlockReceipts\.block\.latest$/;
  const latest = async (faults: Faults) => (await run(faults, { only: LATEST })).get('rpc.getBlockReceipts.block.latest')!;

  test.each([
    [-2, /the receipts name block 0xe, two or more below the head 0x10 read just before them with eth_getBlockByNumber\("latest"\)/],
    [
      2,
      /the receipts name block 0x12, beyond the head re-read after them \(0x1[01]\) and two or more beyond the block read before and after them \(0x10\.\.0x10\)/,
    ],
  ] as const)('%i blocks from the head fails at once: a later read that looks right takes nothing back', async (offset, reason) => {
    for (const times of [1, 'always'] as const) {
      for (const buildingBlockNumber of [false, true]) {
        const r = await latest({ latestReceiptsAt: { offset, times }, buildingBlockNumber });
        expect([times, buildingBlockNumber, r.status, r.violated]).toEqual([times, buildingBlockNumber, 'failed', ['4.3.1']]);
        expect(r.reason).toMatch(reason);
      }
    }
  });

  test.each(['replace', 'replace-and-seal'] as const)(
    'the head block replaced (%s) between the reads (a reorg of depth one): its receipts are not judged by its older version',
    async (reorgHeadOnLatestReceipts) => {
      const r = await latest({ reorgHeadOnLatestReceipts });
      expect([r.status, r.reason]).toEqual(['passed', '']);
      expect(r.notes?.join(' ')).toMatch(/block 0x10: 1 receipt\(s\) for 1 transaction\(s\); the tag moved/);
    },
  );

  test('a block behind (a seal between the reads) or a block ahead, then the right one: retried, passes', async () => {
    const behind = await latest({ sealEveryRead: true, latestReceiptsAt: { offset: -1, times: 1 } });
    expect([behind.status, behind.reason]).toEqual(['passed', '']);
    expect(behind.notes?.join(' ')).toMatch(/attempt 1: the receipts name block 0x10, older than the tag's block read before and after \(0x11\.\.0x12\)/);
    const ahead = await latest({ latestReceiptsAt: { offset: 1, times: 1 } });
    expect([ahead.status, ahead.reason]).toEqual(['passed', '']);
    expect(ahead.notes?.join(' ')).toMatch(/attempt 1: the receipts name a block beyond the head read; retrying/);
  });

  test('eth_blockNumber naming the block being built (building mode), a backend a block ahead or behind: never failed', async () => {
    // A block ahead is the one eth_blockNumber names (read by number: not sealed yet); a block behind, with a seal between the reads.
    for (const faults of [{ latestReceiptsAt: { offset: 1, times: 1 } }, { sealEveryRead: true, latestReceiptsAt: { offset: -1, times: 1 } }]) {
      const r = await latest({ buildingBlockNumber: true, ...faults });
      expect([faults, r.status, r.reason]).toEqual([faults, 'passed', '']);
    }
    const all = await run({ buildingBlockNumber: true }, { only: /^rpc\.getBlockReceipts\.block\.(latest|safe|finalized|earliest)$/ });
    expect([...all.values()].map((r) => [r.id, r.status, r.reason])).toEqual([...all.keys()].map((id) => [id, 'passed', '']));
    expect(all.size).toBe(4);
  });
});

describe('throttling by the provider', () => {
  test('every fifth request answered 429 (Retry-After: 0): retried, every check passes as without', async () => {
    const results = await run({ throttleEvery: 5 });
    const notPassed = [...results.values()].filter(
      (r) => r.status !== 'passed' && !(r.status === 'skipped' && r.outOfScope?.flag === '--profile') && r.reason !== NO_DEPLOYMENT,
    );
    expect(notPassed.map((r) => [r.id, r.status, r.reason])).toEqual([]);
  });

  test('every request answered 429: each check that asks is inconclusive "throttled", none failed', async () => {
    const results = await run({ throttleEvery: 1 }, { only: /^rpc\.(envelope|history|getCode)\./ });
    for (const r of results.values()) {
      expect([r.id, r.status]).toEqual([r.id, 'inconclusive']);
      expect(r.reason).toMatch(/^throttled: POST http:\/\/127\.0\.0\.1:\d+\/?: HTTP 429 Too Many Requests \(Retry-After "0"\), still after 3 retries/);
    }
  });
});

// ---- the reverting init code --------------------------------------------------------------

/**
 * Executes exactly the opcodes the builder emits (PUSH1..PUSH32, MSTORE, REVERT) and returns
 * the revert payload; anything else is an error, so the builder cannot drift silently.
 */
function executeInitCode(code: Hex): Hex {
  const bytes = Buffer.from(code.slice(2), 'hex');
  const stack: bigint[] = [];
  const memory = Buffer.alloc(4096);
  for (let pc = 0; pc < bytes.length;) {
    const op = bytes[pc];
    if (op >= 0x60 && op <= 0x7f) {
      const n = op - 0x5f;
      stack.push(BigInt(`0x${bytes.subarray(pc + 1, pc + 1 + n).toString('hex')}`));
      pc += 1 + n;
    } else if (op === 0x52) {
      const offset = Number(stack.pop());
      const value = stack.pop()!;
      Buffer.from(value.toString(16).padStart(64, '0'), 'hex').copy(memory, offset);
      pc += 1;
    } else if (op === 0xfd) {
      const offset = Number(stack.pop());
      const size = Number(stack.pop());
      return `0x${memory.subarray(offset, offset + size).toString('hex')}`;
    } else {
      throw new Error(`unexpected opcode 0x${op.toString(16)} at ${pc}`);
    }
  }
  throw new Error('init code ended without REVERT');
}

describe('revertingInitCode', () => {
  const abi = [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }] as const;

  test.each(['conformance', '', 'x'.repeat(32), 'a reason longer than thirty-two bytes, over three words of text', 'ünïcødé ✓'])(
    'reverts with Error(%j), decoded by viem',
    (reason) => {
      const payload = executeInitCode(revertingInitCode(reason));
      expect(payload).toBe(expectedRevertData(reason));
      const decoded = decodeErrorResult({ abi, data: payload });
      expect(decoded.errorName).toBe('Error');
      expect(decoded.args).toEqual([reason]);
    },
  );

  test('rejects reasons too long for its PUSH2 offsets', () => {
    expect(() => revertingInitCode('x'.repeat(1025))).toThrow(/longer than 1024 bytes/);
  });

  const withAnvil = locateAnvil().found ? test : test.skip;

  withAnvil('a real EVM (anvil) reverts the deployment with the same payload', async () => {
    // The reference's launcher: a free port, readiness awaited, and no orphan if the test dies.
    const anvil = await startAnvil({ chainId: 31337, log: () => undefined });
    try {
      const rpc = async (method: string, params: unknown[]) => {
        const res = await fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: string } };
      };
      const answer = await rpc('eth_estimateGas', [{ data: revertingInitCode(REVERT_REASON) }]);
      expect(answer.error?.message).toMatch(/^execution reverted/);
      expect(answer.error?.data).toBe(expectedRevertData());
      expect(decodeErrorResult({ abi, data: answer.error!.data as Hex }).args).toEqual([REVERT_REASON]);
    } finally {
      await anvil.stop();
    }
  });
});

describe('judging helpers on odd input', () => {
  test('judgeBlockGas: nothing to judge without the block gasUsed, without receipts or with a receipt lacking a hex gasUsed; a wrong sum fails 4.3', () => {
    // Not judged: each block gasUsed here differs from what a judged sum would be, so only the guard keeps the verdict out.
    expect(judgeBlockGas('r', [{ gasUsed: '0x5208' }], undefined)).toBeUndefined();
    expect(judgeBlockGas('r', [{ gasUsed: null as unknown as string }, { gasUsed: '0x5208' }], 1n)).toBeUndefined();
    // No receipts: their count against the block's transactions is judgeReceipts' rule, not this one's.
    expect(judgeBlockGas('r', [], 21000n)).toBeUndefined();
    // Judged and equal: passes.
    expect(judgeBlockGas('r', [{ gasUsed: '0x5208' }, { gasUsed: '0x5208' }], 42000n)).toBeUndefined();
    // Judged and unequal: a failure of 4.3.1 and 2.4.1, the block's gasUsed expected and the receipts' given;
    // above the block's it names cumulativeGasUsed, below it does not.
    const verdict = (receipts: Array<{ gasUsed: string }>, block: bigint) => {
      try {
        judgeBlockGas('r', receipts, block);
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const above = verdict([{ gasUsed: '0x5208' }, { gasUsed: '0xa410' }], 42000n);
    expect(above).toBeInstanceOf(CheckFailure);
    expect((above as CheckFailure).message).toMatch(/add up to 63000 \(0xf618\), but the block's gasUsed is 42000 \(0xa410\).*cumulativeGasUsed/);
    expect((above as CheckFailure).detail).toEqual({ violated: ['4.3.1', '2.4.1'], expected: '0xa410', actual: ['0x5208', '0xa410'] });
    const below = verdict([{ gasUsed: '0x5208' }], 42000n);
    expect(below).toBeInstanceOf(CheckFailure);
    expect((below as CheckFailure).message).toMatch(/add up to 21000 \(0x5208\), but the block's gasUsed is 42000 \(0xa410\)/);
    expect((below as CheckFailure).message).not.toContain('cumulativeGasUsed');
    expect((below as CheckFailure).detail).toEqual({ violated: ['4.3.1', '2.4.1'], expected: '0xa410', actual: ['0x5208'] });
  });

  // Each text as the client's source writes it (version in the comment), the hash cut short where it is one.
  const ROOT = `0x${'5c99'.repeat(16)}`;
  test.each([
    // pruned state or history
    ['geth, hash scheme', 'missing trie node 5c9988edf0f4826717b1cda157724c139a93e7c232e919b2f7cdff31e708c5d8 (path )', 'pruned'],
    ['geth 1.16 full node, path scheme', `historical state ${ROOT.slice(2)} is not available`, 'pruned'],
    ['geth 1.16.0, state history not indexed', "state histories haven't been fully indexed yet", 'pruned'],
    ['geth 1.16.4+ path archive, state before its sync', `state ${ROOT} is not available`, 'pruned'],
    ['geth 1.16.4+ path archive, state history pruned (--history.state)', 'metadata is not found, 1', 'pruned'],
    ['geth, history expiry (EIP-4444)', 'pruned history unavailable', 'pruned'],
    ['reth, pruned state', 'state at block #5 is pruned', 'pruned'],
    ['reth, history expiry', 'pruned history unavailable: requested 5, earliest available 100', 'pruned'],
    ['erigon 3', 'old data not available due to pruning', 'pruned'],
    ['nethermind', `No state available for block ${ROOT} (5)`, 'pruned'],
    // a block the node does not know (yet)
    ['geth', 'header not found', 'unknown-block'],
    ['reth', 'block not found: 0x11', 'unknown-block'],
    ['reth, a number past its head', 'request beyond head block: requested 17, head 16', 'unknown-block'],
    ['nethermind, by number', '17 could not be found', 'unknown-block'],
    ['erigon, eth_estimateGas', 'could not find the header 0x11 in cache or db', 'unknown-block'],
    ['nethermind, by hash', `${ROOT} could not be found`, 'unknown-block'],
    // neither
    ['geth, a side chain', `state ${ROOT} is not canonical`, undefined],
    ['nethermind, a receipt', `${ROOT} receipt could not be found`, undefined],
    ['a revert', 'execution reverted', undefined],
    // a revert whose contract's reason names a block or state: still a revert, run at that state
    ['a revert, its reason', 'execution reverted: Sale not yet available', undefined],
    ['a revert, its reason', 'execution reverted: price data not available', undefined],
    ['a revert, its reason', 'execution reverted: archived', undefined],
    ['a revert, its reason', 'execution reverted: could not find the header', undefined],
  ] as const)('blockErrorKind: %s "%s" is %s', (_client, message, kind) => {
    expect(blockErrorKind({ error: { code: -32000, message } })).toBe(kind);
  });

  test('isInsufficientFunds reads the refusal of geth, Tevm and reth wording, and nothing else', () => {
    expect(isInsufficientFunds({ code: -32000, message: 'insufficient funds for gas * price + value' })).toBe(true);
    expect(isInsufficientFunds({ code: -32003, message: 'Insufficient funds: balance 0' })).toBe(true);
    expect(isInsufficientFunds({ code: -32000, message: 'execution reverted' })).toBe(false);
    expect(isInsufficientFunds(undefined)).toBe(false);
    expect(isInsufficientFunds(null)).toBe(false);
  });

  // One reading of "a revert" for the block-error reading, the revert checks at "pending" and the contract estimate.
  test('isRevert reads code 3 or a message naming a revert, and nothing else', () => {
    expect(isRevert({ code: -32000, message: 'execution reverted: Sale not yet available' })).toBe(true);
    expect(isRevert({ code: 3, message: 'execution reverted', data: '0x08c379a0' })).toBe(true);
    expect(isRevert({ code: 3, message: 'VM execution error' })).toBe(true);
    expect(isRevert({ code: -32015, message: 'VM execution error: revert' })).toBe(true);
    expect(isRevert({ code: -32000, message: 'header not found' })).toBe(false);
    expect(isRevert({ code: -32000, message: 'insufficient funds for gas * price + value' })).toBe(false);
    expect(isRevert(undefined)).toBe(false);
  });
});
