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
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, inconclusive, skip } from '../../src/harness/verdict';
import { expectSchema, expectServed, resultOf } from '../../src/harness/expect';
import { isRecord, show } from '../../src/harness/json';
import { randomAddress, toQuantity } from '../../src/harness/hex';
import { getReceipts, judgeBlockGas, judgeReceipts } from '../../src/harness/receipts';
import { answerAt, readBlock, resultAt } from '../../src/harness/chain';
import { isInsufficientFunds, TRANSFER_GAS } from '../../src/harness/evm';
import { PROBE_DATA, SenderInBlock, findSender, Creation, findCreation, findBusyBlock, scanned, Unfound, skipUnfound } from './history-scan';

/** On a failure: the same read at "latest", to say so when the node seems to answer from the head. */
async function headHint(ctx: CheckContext<'rpc'>, method: string, params: unknown[], got: unknown): Promise<string> {
  const a = await ctx.rpc.call(method, params);
  const same = JSON.stringify(a.hasError ? a.error : a.result) === JSON.stringify(got);
  return same ? `; that is what it answers at "latest": the node seems to ignore the block parameter and answer from the head` : '';
}

async function senderCheck(ctx: CheckContext<'rpc'>): Promise<SenderInBlock> {
  const s = await scanned(ctx, 'sender', findSender);
  if (s instanceof Unfound) skipUnfound(s, ctx.settings.archive);
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
  if (c instanceof Unfound) skipUnfound(c, ctx.settings.archive);
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
    if (target instanceof Unfound) skipUnfound(target, ctx.settings.archive);
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
    expectServed('eth_estimateGas', now, `eth_estimateGas of a call to ${c.address} at "latest"`);
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
    expectServed('eth_estimateGas', answer, `eth_estimateGas of a call to ${c.address} at ${show(param)}`);
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
