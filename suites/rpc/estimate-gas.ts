/** Spec 4.4 (eth_estimateGas) of a plain transfer, without and with every block parameter of 4.2. */
import { check, type Check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { expectSchema } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { randomAddress } from '../../src/harness/hex';
import { BLOCK_PARAM_KEYS, blockParam, describeParam, resultAt, type BlockParamKey } from '../../src/harness/chain';

/**
 * Intrinsic gas of a transaction without data: every transfer uses at least this much, so an
 * estimate below it could not be used as a gas limit ("may be larger than the gas used", 4.4,
 * never smaller).
 */
export const TRANSFER_GAS = 21_000n;

/**
 * A 0-value transfer between two fresh addresses: it needs no balance, no code and no nonce,
 * so it succeeds against any state and its estimate is >= 21000 at every block.
 */
function transfer() {
  return { from: randomAddress(), to: randomAddress(), value: '0x0' };
}

function estimateAt(key: BlockParamKey | 'omitted'): Check {
  const what = key === 'omitted' ? 'without a block parameter (default "latest")' : `at ${describeParam(key)}`;
  return check({
    id: `rpc.estimateGas.block.${key}`,
    section: key === 'omitted' ? '4.4' : key === 'pending' ? '4.4, 4.2, 1.4' : '4.4, 4.2',
    level: 'required',
    needs: ['rpc'],
    title: `eth_estimateGas of a 0-value transfer ${what} is a hex quantity >= 21000`,
  }, async (ctx) => {
    const params: unknown[] = [transfer()];
    if (key !== 'omitted') params.push(await blockParam(ctx, key));
    const gas = await resultAt(ctx, 'eth_estimateGas', params, key);
    expectSchema('hexQuantity', gas, `eth_estimateGas ${what}`, '4.4');
    if (BigInt(gas as string) < TRANSFER_GAS) {
      fail(`eth_estimateGas ${what}: ${show(gas)} (${BigInt(gas as string)}) is below the 21000 gas every transfer uses`, { section: '4.4', expected: '>= 0x5208', actual: gas });
    }
  });
}

export const estimateGasChecks: Check[] = [estimateAt('omitted'), ...BLOCK_PARAM_KEYS.map(estimateAt)];
