// The few viem utilities the reference uses, each required from its own module. The package's
// `viem/utils` entry loads every utility it has (several hundred modules): a third of a second of
// the reference's start-up, on the embedded run's critical path (index.ts, loadParts). viem's
// package exports name no deeper entry, so the modules are found beside the one `viem` resolves
// to; test/reference/viem-parts.test.ts checks that each is the very function `viem/utils` exports.
import path from 'node:path';
import type * as Utils from 'viem/utils';

const VIEM_DIR = path.dirname(require.resolve('viem'));

function part<K extends keyof typeof Utils>(file: string, name: K): (typeof Utils)[K] {
  const fn = (require(path.join(VIEM_DIR, 'utils', file)) as Record<string, unknown>)[name];
  if (typeof fn !== 'function') throw new Error(`viem: no ${name} in utils/${file} (an upgrade moved it: update src/reference/viem-parts.ts)`);
  return fn as (typeof Utils)[K];
}

export const decodeFunctionResult = part('abi/decodeFunctionResult.js', 'decodeFunctionResult');
export const encodeDeployData = part('abi/encodeDeployData.js', 'encodeDeployData');
export const encodeFunctionData = part('abi/encodeFunctionData.js', 'encodeFunctionData');
export const getAddress = part('address/getAddress.js', 'getAddress');
export const getContractAddress = part('address/getContractAddress.js', 'getContractAddress');
export const toHex = part('encoding/toHex.js', 'toHex');
export const keccak256 = part('hash/keccak256.js', 'keccak256');
export const recoverAddress = part('signature/recoverAddress.js', 'recoverAddress');
export const parseTransaction = part('transaction/parseTransaction.js', 'parseTransaction');
export const serializeTransaction = part('transaction/serializeTransaction.js', 'serializeTransaction');
export const formatUnits = part('unit/formatUnits.js', 'formatUnits');
export const parseUnits = part('unit/parseUnits.js', 'parseUnits');
/** viem's own parseAbi is abitype's, resolved as viem resolves it. */
export const parseAbi = (require(require.resolve('abitype', { paths: [VIEM_DIR] })) as Pick<typeof Utils, 'parseAbi'>).parseAbi;
