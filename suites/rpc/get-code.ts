/** Spec 4.6 (eth_getCode) with every block parameter of 4.2. */
import { check, type Check } from '../../src/harness/check';
import { expectEqual, expectSchema } from '../../src/harness/expect';
import { randomAddress } from '../../src/harness/hex';
import { BLOCK_PARAM_KEYS, blockParam, describeParam, type BlockParamKey } from './common';

/** A freshly generated address has no code at any block: the result is exactly "0x" (4.6). */
function codeAtBlock(key: BlockParamKey): Check {
  return check({
    id: `rpc.getCode.block.${key}`,
    section: '4.6, 4.2',
    level: 'required',
    needs: ['rpc'],
    title: `eth_getCode of a fresh address at ${describeParam(key)} is exactly "0x"`,
  }, async (ctx) => {
    const param = await blockParam(ctx, key);
    const code = await ctx.rpc.result('eth_getCode', [randomAddress(), param]);
    expectSchema('hexBytes', code, `eth_getCode at ${param}`, '4.6');
    expectEqual(code, '0x', `eth_getCode of a fresh address at ${param}`, '4.6');
  });
}

export const codeChecks: Check[] = BLOCK_PARAM_KEYS.map(codeAtBlock);
