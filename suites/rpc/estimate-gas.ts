/** Spec 4.4 (eth_estimateGas) of a plain transfer, without and with every block parameter of 4.2. */
import { isInsufficientFunds, TRANSFER_GAS } from '../../src/harness/evm';
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, inconclusive } from '../../src/harness/verdict';
import { expectSchema } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { randomAddress } from '../../src/harness/hex';
import { answerAt, blockParam, describeParam, resultFrom, type BlockParamKey } from '../../src/harness/chain';

/**
 * A 0-value transfer between two fresh addresses, without fee fields: it needs no balance, no
 * code and no nonce, so it succeeds against any state and its estimate is >= 21000 at every
 * block. Some nodes still charge a default gas price to the sender and refuse an unfunded one
 * ("insufficient funds for gas * price + value", Tevm): then the same transfer is estimated
 * without `from`, which the node fills with a sender of its own (the zero address, or a funded
 * dev account). Refused for funds both ways, it is not judged: the suite chose the sender.
 */
function transfer(withSender = true) {
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

export const estimateGasChecks: Check[] = ESTIMATE_AT.map(estimateAt);
