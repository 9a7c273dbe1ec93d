/**
 * Checks that can tell history from the head (4.2: the block parameter accepts a block number
 * as hex and "earliest"; 4.3-4.6: each method answers at that block). The per-block checks read
 * fresh random addresses, whose answer is the same at every block, so a node that ignored the
 * block parameter and answered from the head would pass them. These read state that differs
 * over time, found read-only in blocks below the head:
 *
 * - an active sender of block n: its count at n-1 is the nonce of its first transaction in n
 *   (the count at the end of a block is the nonce of the sender's next transaction, 4.5); at n
 *   it is one past its last there; at "earliest" it is at most the first;
 * - a contract created by a transaction of block n: no code at n-1 nor at "earliest" (a
 *   creation succeeds only at an address without code), at n the code it has at "latest"
 *   (code never changes but by self-destruction, and then "latest" would show none);
 * - eth_getBlockReceipts of a block below the head: that block's receipts, each naming it and,
 *   when the receipt carries blockHash, its hash;
 * - eth_estimateGas of a call that the contract reverts at "latest": at n-1 and "earliest" the
 *   address had no code, so the same call is a plain transfer with data and gets an estimate.
 *   (An estimate that merely differs over time would prove nothing: 4.4 lets it be larger than
 *   the gas used, so only revert-or-not is a sound difference.)
 *
 * Blocks within HEAD_MARGIN of the head are not used: behind a load balancer a backend may not
 * have them yet. Reads below the head may meet pruned history: see chain.ts (skipped without
 * --archive, failed with it). When the blocks looked at offer no such state: skipped.
 */
import { getContractAddress, type Hex } from 'viem';
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, inconclusive, skip } from '../../src/harness/verdict';
import { expectSchema, resultOf } from '../../src/harness/expect';
import { isRecord, show } from '../../src/harness/json';
import { isEvmAddress, isHexQuantity } from '../../src/harness/formats';
import { randomAddress, toQuantity } from '../../src/harness/hex';
import { getReceipts, judgeBlockGas, judgeReceipts } from '../../src/harness/receipts';
import { answerAt, headNumber, readBlock, recentBlocks, resultAt, type ChainContext } from '../../src/harness/chain';
import { isInsufficientFunds, TRANSFER_GAS } from '../../src/harness/evm';

/** Where to look: the latest blocks, then the first ones (a young chain's deployments). */
const RECENT_BLOCKS = 16;
const FIRST_BLOCKS = 8;
/** Fewer latest blocks for deployments: five checks look for one, and each look reads whole blocks. */
const RECENT_BLOCKS_FOR_CREATION = 8;
/** Blocks this close to the head are left alone (a backend a block behind may lack them). */
const HEAD_MARGIN = 2n;
/** At most this many deployments are probed with eth_getCode. */
const MAX_PROBES = 16;
/** A selector no contract of the chain is expected to have: most contracts revert on it. */
const PROBE_DATA = '0xc0f0a11e';
const OP_DEPOSIT = '0x7e';
const EIP7702 = '0x4';

const looked = (recent: number) => `the latest ${recent} and the first ${FIRST_BLOCKS} blocks (at least ${HEAD_MARGIN} below the head)`;

/** Blocks below the head worth reading history at: the latest `recent`, then the first ones. */
async function* pastBlocks(ctx: ChainContext, recent = RECENT_BLOCKS) {
  const head = await headNumber(ctx);
  for await (const b of recentBlocks(ctx, { recent: recent + Number(HEAD_MARGIN), first: FIRST_BLOCKS })) {
    if (b.number !== undefined && b.number >= 1n && b.number + HEAD_MARGIN <= head) yield { ...b, number: b.number };
  }
}

interface SenderInBlock {
  sender: string;
  block: bigint;
  /** Nonces of its transactions in the block. */
  first: bigint;
  last: bigint;
  count: number;
}

/**
 * An account that sent transactions in a block below the head. Blocks holding EIP-7702
 * transactions are passed over (an authorization moves its signer's nonce mid-block), and so
 * are OP-stack deposits and their senders (a deposit's nonce field is not the sender's count,
 * yet it raises it).
 */
async function findSender(ctx: ChainContext): Promise<SenderInBlock | undefined> {
  for await (const b of pastBlocks(ctx)) {
    if (b.txs.some((t) => t.type === EIP7702)) continue;
    // A deposit raises its sender's count too, without a nonce of its own: leave such senders out.
    const depositors = new Set(b.txs.filter((t) => t.type === OP_DEPOSIT && typeof t.from === 'string').map((t) => t.from!.toLowerCase()));
    const nonces = new Map<string, bigint[]>();
    for (const t of b.txs) {
      if (t.type === OP_DEPOSIT || !isEvmAddress(t.from) || !isHexQuantity(t.nonce) || depositors.has(t.from!.toLowerCase())) continue;
      const from = t.from!.toLowerCase();
      nonces.set(from, [...(nonces.get(from) ?? []), BigInt(t.nonce!)]);
    }
    const [sender, ns] = [...nonces][0] ?? [];
    if (!sender) continue;
    ns.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    return { sender, block: b.number, first: ns[0], last: ns[ns.length - 1], count: ns.length };
  }
  return undefined;
}

interface Creation {
  address: Hex;
  /** The block whose transaction created it. */
  block: bigint;
  /** Its code at "latest" (not "0x": the creation succeeded and the contract still exists). */
  code: string;
}

/** A contract created by a transaction (not a deposit) of a block below the head, still holding code. */
async function findCreation(ctx: ChainContext): Promise<Creation | undefined> {
  let probed = 0;
  for await (const b of pastBlocks(ctx, RECENT_BLOCKS_FOR_CREATION)) {
    for (const t of b.txs) {
      if ((t.to !== null && t.to !== undefined) || t.type === OP_DEPOSIT || !isEvmAddress(t.from) || !isHexQuantity(t.nonce)) continue;
      if (probed++ >= MAX_PROBES) return undefined;
      const address = getContractAddress({ from: t.from as Hex, nonce: BigInt(t.nonce!) });
      const a = await ctx.rpc.call('eth_getCode', [address, 'latest']);
      if (a.http.status === 200 && typeof a.result === 'string' && a.result !== '0x') return { address, block: b.number, code: a.result };
    }
  }
  return undefined;
}

/** A block below the head with transactions, for its receipts. */
async function findBusyBlock(ctx: ChainContext): Promise<bigint | undefined> {
  for await (const b of pastBlocks(ctx)) if (b.txs.length > 0) return b.number;
  return undefined;
}

/**
 * What the checks judge is found by scanning blocks: done once per run and shared by the checks
 * that need it (its exchanges shown with each of them), so nine checks do not scan nine times.
 */
function scanned<T>(ctx: CheckContext<'rpc'>, what: string, scan: (chain: ChainContext) => Promise<T>): Promise<T> {
  return ctx.shared(`rpc.history.${what}`, [SCAN_LANE], (scope) =>
    scan({ rpc: scope.rpc(SCAN_LANE), signal: scope.signal, settings: scope.settings, note: () => undefined }),
  );
}
const SCAN_LANE = 'history-scan';

const NO_SENDER = `no transaction sender found in ${looked(RECENT_BLOCKS)}`;
const NO_CREATION = `no contract created by a transaction of ${looked(RECENT_BLOCKS_FOR_CREATION)} still holds code (at most ${MAX_PROBES} deployments probed)`;

/** On a failure: the same read at "latest", to say so when the node seems to answer from the head. */
async function headHint(ctx: CheckContext<'rpc'>, method: string, params: unknown[], got: unknown): Promise<string> {
  const a = await ctx.rpc.call(method, params);
  const same = JSON.stringify(a.hasError ? a.error : a.result) === JSON.stringify(got);
  return same ? `; that is what it answers at "latest": the node seems to ignore the block parameter and answer from the head` : '';
}

async function senderCheck(ctx: CheckContext<'rpc'>): Promise<SenderInBlock> {
  const s = await scanned(ctx, 'sender', findSender);
  if (!s) skip(NO_SENDER);
  ctx.note(`sender ${s.sender}: ${s.count} transaction(s) in block ${toQuantity(s.block)} (${s.block}), nonces ${s.first}..${s.last}`);
  return s;
}

/** Whether an account carries an EIP-7702 delegation (code 0xef0100 + address) at a block. */
async function delegated(ctx: CheckContext<'rpc'>, account: string, param: string): Promise<boolean> {
  const a = await ctx.rpc.call('eth_getCode', [account, param]);
  return typeof a.result === 'string' && a.result.toLowerCase().startsWith('0xef0100');
}

async function countAt(ctx: CheckContext<'rpc'>, sender: string, param: string): Promise<bigint> {
  const count = await resultAt(ctx, 'eth_getTransactionCount', [sender, param], param === 'earliest' ? 'earliest' : 'number');
  expectSchema('hexQuantity', count, `eth_getTransactionCount(${sender}, ${show(param)})`, ['4.5.1']);
  return BigInt(count as string);
}

const countBeforeBlock = check(
  {
    id: 'rpc.history.getTransactionCount.before-block',
    statements: ['4.5.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: "eth_getTransactionCount at the block before a sender's transaction is its nonce",
  },
  async (ctx) => {
    const s = await senderCheck(ctx);
    const at = toQuantity(s.block - 1n);
    const count = await countAt(ctx, s.sender, at);
    if (count !== s.first) {
      fail(
        `eth_getTransactionCount(${s.sender}, ${show(at)}) is ${toQuantity(count)} (${count}), but the sender's first transaction in block ${toQuantity(s.block)} carries nonce ${s.first}: at the end of block ${at} its count was exactly that${await headHint(ctx, 'eth_getTransactionCount', [s.sender, 'latest'], toQuantity(count))}`,
        {
          expected: toQuantity(s.first),
          actual: toQuantity(count),
        },
      );
    }
  },
);

const countAtBlock = check(
  {
    id: 'rpc.history.getTransactionCount.at-block',
    statements: ['4.5.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: "eth_getTransactionCount at the block of a sender's transactions is one past them",
  },
  async (ctx) => {
    const s = await senderCheck(ctx);
    const at = toQuantity(s.block);
    const count = await countAt(ctx, s.sender, at);
    if (count > s.last + 1n && (await delegated(ctx, s.sender, at))) {
      // An EIP-7702 delegated account runs code that may create contracts, each raising its count.
      skip(`sender ${s.sender} is an EIP-7702 delegated account at ${at}: its count (${count}) may exceed its last nonce + 1 without any fault`);
    }
    if (count !== s.last + 1n) {
      fail(
        `eth_getTransactionCount(${s.sender}, ${show(at)}) is ${toQuantity(count)} (${count}), but the sender's last transaction in that block carries nonce ${s.last}: at its end the count was ${s.last + 1n}${await headHint(ctx, 'eth_getTransactionCount', [s.sender, 'latest'], toQuantity(count))}`,
        {
          expected: toQuantity(s.last + 1n),
          actual: toQuantity(count),
        },
      );
    }
  },
);

const countEarliest = check(
  {
    id: 'rpc.history.getTransactionCount.earliest',
    statements: ['4.5.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: 'eth_getTransactionCount at "earliest" is at most a later transaction\'s nonce',
  },
  async (ctx) => {
    const s = await senderCheck(ctx);
    const count = await countAt(ctx, s.sender, 'earliest');
    // Nonces only grow: at genesis the count was at most the nonce the sender used in block n.
    if (count > s.first) {
      fail(
        `eth_getTransactionCount(${s.sender}, "earliest") is ${toQuantity(count)} (${count}), more than the nonce ${s.first} the sender used later, in block ${toQuantity(s.block)}: counts only grow${await headHint(ctx, 'eth_getTransactionCount', [s.sender, 'latest'], toQuantity(count))}`,
        {
          expected: `<= ${toQuantity(s.first)}`,
          actual: toQuantity(count),
        },
      );
    }
  },
);

async function creationCheck(ctx: CheckContext<'rpc'>): Promise<Creation> {
  const c = await scanned(ctx, 'creation', findCreation);
  if (!c) skip(NO_CREATION);
  ctx.note(`contract ${c.address}, created in block ${toQuantity(c.block)} (${c.block})`);
  return c;
}

async function codeAt(ctx: CheckContext<'rpc'>, address: string, param: string): Promise<string> {
  const code = await resultAt(ctx, 'eth_getCode', [address, param], param === 'earliest' ? 'earliest' : 'number');
  expectSchema('hexBytes', code, `eth_getCode(${address}, ${show(param)})`, ['4.6.1']);
  return code as string;
}

function noCodeBefore(id: string, title: string, at: (c: Creation) => string): Check {
  return check({ id, statements: ['4.6.1', '4.2.2'], level: 'required', needs: ['rpc'], title }, async (ctx) => {
    const c = await creationCheck(ctx);
    const param = at(c);
    const code = await codeAt(ctx, c.address, param);
    if (code !== '0x') {
      fail(
        `eth_getCode(${c.address}, ${show(param)}) is ${show(code, 60)}, but the contract was created in block ${toQuantity(c.block)}: before that it had no code ("0x")${await headHint(ctx, 'eth_getCode', [c.address, 'latest'], code)}`,
        {
          expected: '0x',
          actual: code.length > 200 ? `${code.slice(0, 200)}…` : code,
        },
      );
    }
  });
}

const codeBeforeCreation = noCodeBefore('rpc.history.getCode.before-creation', 'eth_getCode at the block before a contract\'s creation is "0x"', (c) =>
  toQuantity(c.block - 1n),
);

const codeEarliest = noCodeBefore('rpc.history.getCode.earliest', 'eth_getCode at "earliest" of a contract created after genesis is "0x"', () => 'earliest');

const codeAtCreation = check(
  {
    id: 'rpc.history.getCode.at-creation',
    statements: ['4.6.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: 'eth_getCode at the block that created a contract is its code',
  },
  async (ctx) => {
    const c = await creationCheck(ctx);
    const at = toQuantity(c.block);
    const code = await codeAt(ctx, c.address, at);
    if (code !== c.code) {
      fail(
        `eth_getCode(${c.address}, ${show(at)}) is ${show(code, 60)}, not the code it has at "latest" (${show(c.code, 60)}): a contract's code is set when it is created, in block ${at}, and never changes`,
        {
          expected: c.code.length > 200 ? `${c.code.slice(0, 200)}…` : c.code,
          actual: code.length > 200 ? `${code.slice(0, 200)}…` : code,
        },
      );
    }
  },
);

const receiptsOfPastBlock = check(
  {
    id: 'rpc.history.getBlockReceipts.past-block',
    statements: ['4.3.1', '4.2.2', '2.4.1'],
    level: 'required',
    needs: ['rpc', 'profile:dedicated'],
    title: "eth_getBlockReceipts of a past block answers that block's receipts",
  },
  async (ctx) => {
    const target = await scanned(ctx, 'busy-block', findBusyBlock);
    if (target === undefined) skip(`no block with transactions in ${looked(RECENT_BLOCKS)}`);
    const param = toQuantity(target);
    const block = await readBlock(ctx, param);
    if (!block || block.hash === undefined)
      inconclusive(`eth_getBlockByNumber(${show(param)}, false) gives no block with a hash to compare with (it is not a method of the spec)`);
    const receipts = await getReceipts(ctx, param, 'number');
    judgeReceipts(`eth_getBlockReceipts(${show(param)})`, receipts, target, block.txs);
    judgeBlockGas(`eth_getBlockReceipts(${show(param)})`, receipts, block.gasUsed);
    const hashes = receipts.map((r) => (r as unknown as Record<string, unknown>).blockHash);
    const wrong = hashes.find((h) => typeof h === 'string' && h.toLowerCase() !== block.hash);
    if (wrong !== undefined) {
      fail(`eth_getBlockReceipts(${show(param)}): a receipt names blockHash ${show(wrong)}, but block ${param} is ${block.hash}`, {
        violated: ['4.3.1'],
        expected: block.hash,
        actual: wrong,
      });
    }
    const named = hashes.filter((h) => typeof h === 'string').length;
    ctx.note(
      `block ${param}: ${receipts.length} receipt(s) for ${block.txs.length} transaction(s); ${named === receipts.length ? 'every receipt names the block hash' : `${receipts.length - named} receipt(s) carry no blockHash (a field 2.4 does not show)`}`,
    );
  },
);

function estimateBeforeCreation(id: string, title: string, at: (c: Creation) => string): Check {
  return check({ id, statements: ['4.4.1', '4.2.2'], level: 'required', needs: ['rpc'], title }, async (ctx) => {
    const c = await creationCheck(ctx);
    // From a random sender; without `from` when the node refuses that unfunded sender for funds
    // (a default gas price charged even without fee fields, Tevm): the suite chose the sender.
    let call: Record<string, string> = { from: randomAddress(), to: c.address, data: PROBE_DATA };
    let now = await ctx.rpc.call('eth_estimateGas', [call, 'latest']);
    if (isInsufficientFunds(now.error)) {
      ctx.note(`an unfunded random sender was refused for want of funds (${show(now.error)}): estimated without "from"`);
      call = { to: c.address, data: PROBE_DATA };
      now = await ctx.rpc.call('eth_estimateGas', [call, 'latest']);
    }
    if (!now.hasError) {
      skip(
        `contract ${c.address} does not revert the probe call ${PROBE_DATA} at "latest" (answer ${show(now.json ?? now.http.status)}): an estimate at an earlier block could not tell history from the head`,
      );
    }
    const param = at(c);
    let answer = await answerAt(ctx, 'eth_estimateGas', [call, param], param === 'earliest' ? 'earliest' : 'number');
    if (answer.hasError && isInsufficientFunds(answer.error) && 'from' in call) {
      ctx.note(`at ${show(param)} an unfunded random sender was refused for want of funds (${show(answer.error)}): estimated without "from"`);
      call = { to: c.address, data: PROBE_DATA };
      answer = await answerAt(ctx, 'eth_estimateGas', [call, param], param === 'earliest' ? 'earliest' : 'number');
    }
    if (answer.hasError && isInsufficientFunds(answer.error))
      inconclusive(
        `eth_estimateGas of a call to ${c.address} at ${show(param)} was refused for want of funds (${show(answer.error)}), also without "from": the suite chose the sender, so this says nothing about 4.4`,
      );
    if (answer.hasError && isRecord(answer.json)) {
      const same = JSON.stringify(answer.error) === JSON.stringify(now.error);
      fail(
        `eth_estimateGas of a call to ${c.address} at ${show(param)} answered error ${show(answer.error)}${same ? ', the very error it gives at "latest"' : ''}; but the contract was created in block ${toQuantity(c.block)}, so at ${show(param)} the address had no code and the call is a plain transfer with data, which cannot revert${same ? ': the node seems to ignore the block parameter and answer from the head' : ''}`,
        {
          expected: 'a gas estimate (a hex quantity >= 21000)',
          actual: answer.error,
        },
      );
    }
    const gas = resultOf('eth_estimateGas', answer);
    expectSchema('hexQuantity', gas, `eth_estimateGas at ${show(param)}`, ['4.4.1']);
    if (BigInt(gas as string) < TRANSFER_GAS) {
      fail(`eth_estimateGas at ${show(param)}: ${show(gas)} is below the 21000 gas every transaction uses`, {
        violated: ['4.4.1'],
        expected: '>= 0x5208',
        actual: gas,
      });
    }
    ctx.note(`"latest": ${show(now.error)}; ${show(param)}: ${show(gas)}`);
  });
}

const estimateBefore = estimateBeforeCreation(
  'rpc.history.estimateGas.before-creation',
  "eth_estimateGas before a contract's creation estimates a call it reverts today",
  (c) => toQuantity(c.block - 1n),
);

const estimateEarliest = estimateBeforeCreation(
  'rpc.history.estimateGas.earliest',
  'eth_estimateGas at "earliest" estimates a call a later contract reverts today',
  () => 'earliest',
);

export const historyChecks: Check[] = [
  countBeforeBlock,
  countAtBlock,
  countEarliest,
  codeBeforeCreation,
  codeAtCreation,
  codeEarliest,
  receiptsOfPastBlock,
  estimateBefore,
  estimateEarliest,
];
