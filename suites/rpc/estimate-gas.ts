/** Spec 4.4 (eth_estimateGas) of a plain transfer, without and with every block parameter of 4.2. */
import { isInsufficientFunds, isRevert, TRANSFER_GAS } from '../../src/harness/evm';
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, inconclusive, skip } from '../../src/harness/verdict';
import { expectSchema } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { randomAddress, toQuantity } from '../../src/harness/hex';
import { isHexQuantity } from '../../src/harness/formats';
import type { RpcAnswer } from '../../src/harness/rpc';
import { answerAt, blockParam, describeParam, headNumber, resultFrom, type BlockParamKey } from '../../src/harness/chain';
import { findContract, isDelegation, NO_CONTRACT } from './get-code';

/**
 * A 0-value transfer between two fresh addresses, without fee fields: it needs no balance, no
 * code and no nonce, so it succeeds against any state and its estimate is >= 21000 at every
 * block. Some nodes still charge a default gas price to the sender and refuse an unfunded one
 * ("insufficient funds for gas * price + value", Tevm): then the same transfer is estimated
 * without `from`, which the node fills with a sender of its own (the zero address, or a funded
 * dev account). Refused for funds both ways, it is not judged: the suite chose the sender.
 */
export function transfer(withSender = true) {
  return { ...(withSender ? { from: randomAddress() } : {}), to: randomAddress(), value: '0x0' };
}

async function estimateTransfer(ctx: CheckContext<'rpc'>, key: BlockParamKey | 'omitted'): Promise<unknown> {
  const block = key === 'omitted' ? [] : [await blockParam(ctx, key)];
  const first = await answerAt(ctx, 'eth_estimateGas', [transfer(), ...block], key);
  if (!(first.hasError && isInsufficientFunds(first.error))) return resultFrom('eth_estimateGas', first, key);
  ctx.note(`an unfunded random sender was refused for want of funds (${show(first.error)}): estimated again without "from"`);
  const second = await answerAt(ctx, 'eth_estimateGas', [transfer(false), ...block], key);
  if (second.hasError && isInsufficientFunds(second.error)) {
    inconclusive(
      `eth_estimateGas of a 0-value transfer was refused for want of funds, from an unfunded random sender and without "from" (${show(second.error)}): ` +
        'the node charges the sender a gas price even without fee fields, so the estimate could not be had from a sender it accepts (not a violation of 4.4)',
    );
  }
  return resultFrom('eth_estimateGas', second, key);
}

const ESTIMATE_AT: Array<[id: string, statements: string[], key: BlockParamKey | 'omitted']> = [
  ['rpc.estimateGas.block.omitted', ['4.4.1'], 'omitted'],
  ['rpc.estimateGas.block.latest', ['4.4.1', '4.2.2'], 'latest'],
  ['rpc.estimateGas.block.pending', ['4.4.1', '4.2.2', '1.4.1'], 'pending'],
  ['rpc.estimateGas.block.safe', ['4.4.1', '4.2.2'], 'safe'],
  ['rpc.estimateGas.block.finalized', ['4.4.1', '4.2.2'], 'finalized'],
  ['rpc.estimateGas.block.earliest', ['4.4.1', '4.2.2'], 'earliest'],
  ['rpc.estimateGas.block.head-number', ['4.4.1', '4.2.2'], 'head-number'],
];

function estimateAt([id, statements, key]: (typeof ESTIMATE_AT)[number]): Check {
  const what = key === 'omitted' ? 'without a block parameter (default "latest")' : `at ${describeParam(key)}`;
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rpc'],
      title: `eth_estimateGas of a transfer ${key === 'omitted' ? 'without a block parameter' : `at ${describeParam(key)}`} is >= 21000`,
    },
    async (ctx) => {
      const gas = await estimateTransfer(ctx, key);
      expectSchema('hexQuantity', gas, `eth_estimateGas ${what}`, ['4.4.1']);
      if (BigInt(gas as string) < TRANSFER_GAS) {
        fail(`eth_estimateGas ${what}: ${show(gas)} (${BigInt(gas as string)}) is below the 21000 gas every transfer uses`, {
          violated: ['4.4.1'],
          expected: '>= 0x5208',
          actual: gas,
        });
      }
    },
  );
}

/**
 * Whether an estimate's answer shows the callee's code ran: an estimate above the 21000 of a
 * plain transfer, or a revert (only code reverts). A call into an account without code is a plain
 * transfer: exactly 21000.
 */
function ranCode(answer: RpcAnswer): boolean {
  if (answer.hasResult) return isHexQuantity(answer.result) && BigInt(answer.result as string) > TRANSFER_GAS;
  return answer.hasError && isRevert(answer.error);
}

const contractEstimatePending = check(
  {
    id: 'rpc.estimateGas.contract.pending',
    statements: ['4.4.1', '1.4.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: 'eth_estimateGas at "pending" of a call into a sealed contract runs its code',
  },
  async (ctx) => {
    // A 0-value call with no data into a contract of the chain runs its code (its first opcode
    // costs gas, or it reverts); into an account without code it is a plain transfer, 21000. The
    // pre-confirmed state is the sealed one plus what was accepted since (1.4), and code sealed two
    // blocks below the head is on every backend within the skew bound (a block), so "latest"
    // running the code while "pending" estimates a plain transfer is a "pending" state without the
    // sealed contract, as read: no later answer takes it back.
    const head = await headNumber(ctx);
    if (head < 2n) skip(`the head is block ${toQuantity(head)}: no block two below it to find a settled contract in`);
    const below = toQuantity(head - 2n);
    const found = await findContract(ctx, below);
    if (!found) skip(`${NO_CONTRACT} with code at block ${below}, two below the head`);
    if (isDelegation(found.code))
      skip(`the account found, ${found.address}, holds an EIP-7702 delegation, which a later transaction may clear: no contract to judge by`);
    ctx.note(`contract ${found.address}, with code at block ${below}`);
    const call = { from: randomAddress(), to: found.address, value: '0x0' };
    const latest = await ctx.rpc.call('eth_estimateGas', [call, 'latest']);
    if (!ranCode(latest)) {
      skip(
        `eth_estimateGas at "latest" of a 0-value call into ${found.address} answered ${show(latest.hasResult ? latest.result : latest.error)}, which does not show its code running: nothing to compare "pending" with`,
      );
    }
    const pending = await answerAt(ctx, 'eth_estimateGas', [call, 'pending'], 'pending');
    if (ranCode(pending)) return;
    if (pending.hasError && isInsufficientFunds(pending.error))
      skip(`eth_estimateGas at "pending" refused the unfunded random sender for want of funds (${show(pending.error)}), although "latest" did not: not judged`);
    const gas = resultFrom('eth_estimateGas', pending, 'pending');
    expectSchema('hexQuantity', gas, 'eth_estimateGas of a call into a contract at "pending"', ['4.4.1']);
    if (BigInt(gas as string) < TRANSFER_GAS)
      fail(`eth_estimateGas at "pending" of a 0-value call into ${found.address}: ${show(gas)} is below the 21000 gas every transaction uses`, {
        violated: ['4.4.1'],
        expected: '>= 0x5208',
        actual: gas,
      });
    fail(
      `eth_estimateGas at "pending" of a 0-value call into ${found.address} answered ${show(gas)} (${BigInt(gas as string)}), the estimate of a plain transfer to an account without code, while "latest" ran its code (${show(latest.hasResult ? latest.result : latest.error)}): the contract had code at block ${below}, and the pre-confirmed state is the sealed state plus the transactions accepted since`,
      {
        violated: ['1.4.1', '4.4.1'],
        expected: "an estimate above 0x5208 or a revert: the contract's code runs",
        actual: gas,
      },
    );
  },
);

export const estimateGasChecks: Check[] = [...ESTIMATE_AT.map(estimateAt), contractEstimatePending];
