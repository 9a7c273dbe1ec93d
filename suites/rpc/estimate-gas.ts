/** Spec 4.4 (eth_estimateGas) of a plain transfer, without and with every block parameter of 4.2. */
import { TRANSFER_GAS } from '../../src/harness/evm';
import { check, type Check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { expectSchema } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { randomAddress } from '../../src/harness/hex';
import { blockParam, describeParam, resultAt, type BlockParamKey } from '../../src/harness/chain';

/**
 * A 0-value transfer between two fresh addresses: it needs no balance, no code and no nonce,
 * so it succeeds against any state and its estimate is >= 21000 at every block.
 */
function transfer() {
  return { from: randomAddress(), to: randomAddress(), value: '0x0' };
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
      const params: unknown[] = [transfer()];
      if (key !== 'omitted') params.push(await blockParam(ctx, key));
      const gas = await resultAt(ctx, 'eth_estimateGas', params, key);
      expectSchema('hexQuantity', gas, `eth_estimateGas ${what}`, '4.4');
      if (BigInt(gas as string) < TRANSFER_GAS) {
        fail(`eth_estimateGas ${what}: ${show(gas)} (${BigInt(gas as string)}) is below the 21000 gas every transfer uses`, {
          section: '4.4',
          expected: '>= 0x5208',
          actual: gas,
        });
      }
    },
  );
}

export const estimateGasChecks: Check[] = ESTIMATE_AT.map(estimateAt);
