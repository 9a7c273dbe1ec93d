/**
 * The RPC checks can fail: they run through the real runner against a tiny JSON-RPC node on
 * 127.0.0.1 that answers right, or wrong in one chosen way, and the verdicts are asserted.
 * Also: the hand-assembled reverting init code, executed by a minimal interpreter of its few
 * opcodes and (when the binary is installed) by anvil, yields the Error("conformance") payload.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { decodeErrorResult, getContractAddress, type Hex } from 'viem';
import type { Check, Profile } from '../../src/harness/check';
import { Redactor } from '../../src/harness/redact';
import { runChecks, type CheckResult } from '../../src/harness/runner';
import { checks as rpcChecks } from '../../suites/rpc';
import { expectedRevertData, REVERT_REASON } from '../../suites/rpc/revert';
import { revertingInitCode } from '../../src/harness/evm';

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
  /** eth_getBlockReceipts refused with HTTP 403 (public node behaviour). */
  receipts403?: boolean;
  /** "latest" advances on every eth_getBlockByNumber call (a seal between every two reads). */
  sealEveryRead?: boolean;
  /** No transactions anywhere (no active sender). */
  quiet?: boolean;
  /** eth_getBlockByNumber("pending") is not offered (null). */
  noPendingBlock?: boolean;
  /** Contract bytecode in upper-case hex. */
  codeUppercase?: boolean;
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
}

const SENDER = '0x00000000000000000000000000000000000000aa';
const EOA = '0x00000000000000000000000000000000000000bb';
/** Deployed by SENDER's transaction with nonce 0 (the creation transactions of the fake chain). */
const CONTRACT = getContractAddress({ from: SENDER, nonce: 0n }).toLowerCase();
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const q = (n: number) => `0x${n.toString(16)}`;

function fakeNode(faults: Faults) {
  // Sealed blocks 1..16: the even ones hold two transactions. The pre-confirmed block holds
  // one, plus those pre-confirmed since (pendingGrows).
  let head = 16;
  const sealed = new Map<number, string[]>();
  for (let n = 1; n <= head; n++) sealed.set(n, faults.quiet || n % 2 === 1 ? [] : [hash(n * 10 + 1), hash(n * 10 + 2)]);
  let preconf: string[] = faults.quiet ? [] : [hash(1000 + head + 1)];
  // A seal keeps the pre-confirmed transactions and includes one more (as a sequencer may).
  const seal = () => {
    sealed.set(head + 1, faults.quiet ? [] : [...preconf, hash(3000 + head)]);
    head++;
    preconf = faults.quiet ? [] : [hash(1000 + head + 1)];
  };
  let extra = 0;
  const txsOf = (n: number): string[] => (n === head + 1 ? [...preconf] : sealed.get(n) ?? []);
  const resolve = (param: unknown): number | undefined => {
    switch (param) {
      case 'latest': return head;
      case 'pending': return head + 1;
      case 'safe': return head - 2;
      case 'finalized': return head - 4;
      case 'earliest': return 0;
      default: return typeof param === 'string' && /^0x[0-9a-f]+$/.test(param) ? Number(param) : undefined;
    }
  };
  const num = (n: number) => (faults.decimal ? String(n) : q(n));

  function answer(method: string, params: unknown[]): { result?: unknown; error?: unknown; status?: number } {
    if (faults.all403 && method !== 'eth_blockNumber' && method !== 'eth_getBlockByNumber') return { status: 403 };
    const blockAt: Record<string, number> = { eth_getBlockReceipts: 0, eth_estimateGas: 1, eth_getTransactionCount: 1, eth_getCode: 1 };
    if (faults.pendingRejected && method in blockAt && params[blockAt[method]] === 'pending') {
      return { error: { code: -32602, message: 'invalid block tag "pending": unsupported' } };
    }
    switch (method) {
      case 'eth_blockNumber':
        return { result: q(head) };
      case 'eth_getBlockByNumber': {
        if (faults.sealEveryRead && params[0] !== 'pending') seal();
        if (faults.pendingGrows && params[0] === 'pending' && !faults.quiet) preconf.push(hash(2000 + extra++));
        if (params[0] === 'pending' && faults.noPendingBlock) return { result: null };
        const n = resolve(params[0]);
        if (n === undefined || n > head + 1) return { result: null };
        const txs = txsOf(n);
        return {
          result: {
            number: q(n),
            hash: n === head + 1 ? null : hash(5000 + n),
            // Full objects: a deployment (no `to`) by SENDER at nonce 0, then transfers to an EOA.
            transactions: params[1] ? txs.map((h, i) => ({ hash: h, from: SENDER, to: i === 0 ? null : EOA, nonce: q(i) })) : txs,
          },
        };
      }
      case 'eth_getBlockReceipts': {
        if (faults.receipts403) return { status: 403 };
        if (faults.sealOnReceipts) (seal(), seal());
        if (faults.sealAtPendingReceipts === 'before' && params[0] === 'pending') seal();
        if (params[0] === 'pending' && faults.nullPendingReceipts) return { result: null };
        const n = resolve(params[0]);
        if (n === undefined || n > head + 1) return { result: null };
        const txs = txsOf(n).slice(faults.receiptMissing ? 1 : 0);
        if (faults.sealAtPendingReceipts === 'after' && params[0] === 'pending') seal();
        return { result: txs.map((h) => ({ transactionHash: h, blockNumber: num(n), status: '0x1', gasUsed: num(21000), type: '0x2', logs: [] })) };
      }
      case 'eth_getTransactionCount': {
        const [address, block] = params as [string, string];
        if (typeof address !== 'string' || address.length !== 42) return { error: { code: -32602, message: 'invalid address' } };
        if (address.toLowerCase() !== SENDER) return { result: num(0) };
        return { result: num(block === 'pending' ? (faults.pendingBelowLatest ? 4 : 6) : 5) };
      }
      case 'eth_getCode': {
        const n = resolve(params[1]);
        if (n === undefined || n > head + 1) return { error: { code: -32602, message: 'unknown block' } };
        if (String(params[0]).toLowerCase() === CONTRACT) return { result: faults.codeUppercase ? '0x6080604052FE' : '0x6080604052fe' };
        return { result: '0x' };
      }
      case 'eth_estimateGas': {
        const tx = params[0] as { to?: string };
        if (tx.to === undefined) {
          const data = faults.revertData === 'wrong' ? '0x08c379a0' : expectedRevertData();
          return { error: { code: faults.revertCode3 ? 3 : -32000, message: `execution reverted: ${REVERT_REASON}`, ...(faults.revertData === 'absent' ? {} : { data }) } };
        }
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
      const a = answer(call.method, call.params ?? []);
      if (a.status) {
        res.writeHead(a.status, { 'content-type': 'application/json' }).end('{"code":7,"message":"forbidden"}');
        return;
      }
      const id = faults.idAsString ? String(call.id) : call.id;
      const out = 'error' in a ? { jsonrpc: '2.0', id, error: a.error } : { jsonrpc: '2.0', id, result: a.result };
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(out));
    });
  });
}

async function run(faults: Faults, opts: { profile?: Profile; only?: RegExp } = {}): Promise<Map<string, CheckResult>> {
  const server = fakeNode(faults);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const selected: Check[] = rpcChecks.filter((c) => !opts.only || opts.only.test(c.id));
    const results = await runChecks(selected, {
      rpcUrl: `http://127.0.0.1:${port}`,
      restHeaders: {},
      rpcHeaders: {},
      settings: { profile: opts.profile ?? 'dedicated', clockSkewSec: 300, timeoutMs: 5000 },
      redactor: new Redactor(),
      signal: new AbortController().signal,
    }, { concurrency: 4 });
    return new Map(results.map((r) => [r.id, r]));
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
      else expect([id, r.status, r.reason]).toEqual([id, 'passed', '']);
    }
    expect(results.get('rpc.getCode.contract.latest')!.notes?.map((n) => n.toLowerCase())).toEqual([`contract ${CONTRACT}`]);
  });

  test('public profile: the 403 checks pass and the receipts checks are skipped', async () => {
    const results = await run({ receipts403: true }, { profile: 'public' });
    for (const [id, r] of results) {
      if (id.startsWith('rpc.getBlockReceipts.block.') || id === 'rpc.getBlockReceipts.nonempty-block') expect([id, r.status]).toEqual([id, 'skipped']);
      else expect([id, r.status, r.reason]).toEqual([id, 'passed', '']);
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
    expect(r.notes?.join(' ')).toMatch(/block 0x12: 2 receipt\(s\) for 2 transaction\(s\); the tag moved from 0x10 to 0x12 meanwhile, paired by the receipts' blockNumber/);
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
  test('id echoed as a string: the id checks fail with 4.2', async () => {
    const s = statuses(await run({ idAsString: true }, { only: /^rpc\.envelope\./ }));
    expect(s['rpc.envelope.id-zero']).toBe('failed');
    expect(s['rpc.envelope.id-max-safe-integer']).toBe('failed');
    expect(s['rpc.envelope.error-response']).toBe('failed');
    expect(s['rpc.envelope.http-200']).toBe('passed');
    expect(s['rpc.envelope.jsonrpc-version']).toBe('passed');
  });

  test('revert code 3 (geth/reth/anvil): only the code check fails, naming the code', async () => {
    const results = await run({ revertCode3: true }, { only: /revert|error-response/ });
    const code = results.get('rpc.estimateGas.revert.code')!;
    expect(code.status).toBe('failed');
    expect(code.reason).toContain('error code 3');
    expect(code.expected).toBe(-32000);
    expect(code.actual).toBe(3);
    expect(results.get('rpc.estimateGas.revert.message')!.status).toBe('passed');
    expect(results.get('rpc.estimateGas.revert.data')!.status).toBe('passed');
    expect(results.get('rpc.envelope.error-response')!.status).toBe('passed');
  });

  test('wrong revert data fails the data check', async () => {
    const r = (await run({ revertData: 'wrong' }, { only: /revert\.data$/ })).get('rpc.estimateGas.revert.data')!;
    expect(r.status).toBe('failed');
    expect(r.expected).toBe(expectedRevertData());
  });

  test('null for "pending" receipts fails 4.3 (null is not an array)', async () => {
    const r = (await run({ nullPendingReceipts: true }, { only: /getBlockReceipts/ })).get('rpc.getBlockReceipts.block.pending')!;
    expect(r.status).toBe('failed');
    expect(r.failedSection).toBe('4.3');
    expect(r.reason).toContain('answered null, not an array');
  });

  test('decimal numbers instead of hex fail every quantity check', async () => {
    const s = statuses(await run({ decimal: true }));
    for (const key of ['latest', 'pending', 'safe', 'finalized', 'earliest', 'head-number']) {
      expect([key, s[`rpc.getTransactionCount.block.${key}`]]).toEqual([key, 'failed']);
      expect([key, s[`rpc.estimateGas.block.${key}`]]).toEqual([key, 'failed']);
    }
    expect(s['rpc.estimateGas.block.omitted']).toBe('failed');
    expect(s['rpc.getTransactionCount.pending-ge-latest']).toBe('failed');
    // Receipts of the even-numbered blocks carry decimal blockNumber/gasUsed: schema 2.4.
    expect(s['rpc.getBlockReceipts.block.latest']).toBe('failed');
    expect(s['rpc.getBlockReceipts.block.earliest']).toBe('passed'); // genesis has no receipts
    expect(s['rpc.getCode.block.latest']).toBe('passed');
  });

  test('a missing receipt fails "one per transaction" with 4.3', async () => {
    const r = (await run({ receiptMissing: true }, { only: /getBlockReceipts\.block\.latest$/ })).get('rpc.getBlockReceipts.block.latest')!;
    expect(r.status).toBe('failed');
    expect(r.failedSection).toBe('4.3');
    expect(r.reason).toMatch(/no receipt for 1 transaction/);
  });

  test('a growing pre-confirmed block with a receipt missing fails 4.3', async () => {
    const r = (await run({ pendingGrows: true, receiptMissing: true }, { only: /getBlockReceipts\.block\.pending$/ })).get('rpc.getBlockReceipts.block.pending')!;
    expect(r.status).toBe('failed');
    expect(r.failedSection).toBe('4.3');
    expect(r.reason).toMatch(/no receipt for 1 transaction\(s\) of the block \(in it before and after the call\)/);
  });

  test('a receipt missing across a seal still fails, once paired by its block', async () => {
    // Blocks sealed during the call hold two transactions here; the node drops the first receipt.
    const r = (await run({ sealOnReceipts: true, receiptMissing: true }, { only: /getBlockReceipts\.block\.latest$/ })).get('rpc.getBlockReceipts.block.latest')!;
    expect(r.status).toBe('failed');
    expect(r.reason).toMatch(/no receipt for 1 transaction\(s\) of the block/);
  });

  test('pending count below latest fails the invariant', async () => {
    const r = (await run({ pendingBelowLatest: true }, { only: /pending-ge-latest/ })).get('rpc.getTransactionCount.pending-ge-latest')!;
    expect(r.status).toBe('failed');
    expect(r.reason).toContain('"pending" count "0x4" is below the "latest" count "0x5" read just before, in each of 4 attempts');
  });

  test('HTTP 403 on a dedicated profile fails the receipts checks with 4.3, 5.2', async () => {
    const results = await run({ receipts403: true }, { only: /getBlockReceipts\.block\./ });
    for (const r of results.values()) {
      expect([r.id, r.status, r.failedSection]).toEqual([r.id, 'failed', '4.3, 5.2']);
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
      expect([id, results.get(id)!.status, results.get(id)!.failedSection ?? results.get(id)!.section]).toEqual([id, 'failed', '4.6']);
    }
    expect(results.get('rpc.getCode.block.latest')!.status).toBe('passed');
  });

  test('refusing "pending" fails every pending check citing 1.4', async () => {
    const results = await run({ pendingRejected: true });
    const pendingIds = [...results.keys()].filter((id) => /\.pending$|pending-ge-latest/.test(id) && !id.includes('public'));
    expect(pendingIds.length).toBe(6); // count, code, receipts, estimate at "pending"; contract code; the invariant
    for (const id of pendingIds) {
      const r = results.get(id)!;
      expect([id, r.status, r.failedSection]).toEqual([id, 'failed', '1.4, 4.2']);
    }
    expect(results.get('rpc.getCode.block.latest')!.status).toBe('passed');
  });

  test('a public node refusing every method fails the 5.2 acceptance checks', async () => {
    const results = await run({ all403: true }, { profile: 'public', only: /^rpc\.public\.|public-403/ });
    for (const r of results.values()) {
      if (r.id.includes('public-403')) expect([r.id, r.status]).toEqual([r.id, 'passed']);
      else expect([r.id, r.status, r.section]).toEqual([r.id, 'failed', '5.2']);
    }
    expect(results.size).toBe(5);
  });

  test('no transactions in the latest blocks: the invariant is skipped, not passed', async () => {
    const r = (await run({ quiet: true }, { only: /pending-ge-latest/ })).get('rpc.getTransactionCount.pending-ge-latest')!;
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/^no active sender found in the latest blocks/);
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

  const anvilBin = path.resolve(__dirname, '../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');
  const withAnvil = fs.existsSync(anvilBin) ? test : test.skip;

  withAnvil('a real EVM (anvil) reverts the deployment with the same payload', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const anvil: ChildProcess = spawn(anvilBin, ['--port', String(port), '--host', '127.0.0.1', '--silent'], { stdio: 'ignore' });
    try {
      const url = `http://127.0.0.1:${port}`;
      const rpc = async (method: string, params: unknown[]) => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
        return (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: string } };
      };
      for (let i = 0; ; i++) {
        try {
          await rpc('eth_chainId', []);
          break;
        } catch (err) {
          if (i >= 100) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      const answer = await rpc('eth_estimateGas', [{ data: revertingInitCode(REVERT_REASON) }]);
      expect(answer.error?.message).toMatch(/^execution reverted/);
      expect(answer.error?.data).toBe(expectedRevertData());
      expect(decodeErrorResult({ abi, data: answer.error!.data as Hex }).args).toEqual([REVERT_REASON]);
    } finally {
      anvil.kill();
    }
  });
});
