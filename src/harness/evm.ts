/**
 * Hand-assembled EVM init code that reverts with Solidity's `Error(string)`: the payload a
 * `require(false, reason)` produces, i.e. selector 0x08c379a0 followed by the ABI encoding of
 * the string (offset 0x20, length, the UTF-8 bytes right-padded to 32-byte words).
 *
 * Sent as a contract creation (no `to`), the init code runs and REVERTs with that payload, so
 * eth_estimateGas must answer "execution reverted" (spec 4.4, 7). No compiler is involved: the
 * few opcodes are written out below and unit-tested (test/unit/rpc-checks.test.ts).
 */
import type { Hex } from 'viem';

/** Selector of `Error(string)`: the first 4 bytes of keccak256("Error(string)"). */
export const ERROR_STRING_SELECTOR = '08c379a0';

const OP = { PUSH1: 0x60, PUSH2: 0x61, PUSH4: 0x63, PUSH32: 0x7f, MSTORE: 0x52, REVERT: 0xfd } as const;

/** Longest reason accepted (keeps every offset and size within a PUSH2). */
export const MAX_REASON_BYTES = 1024;

function hexOf(n: number, bytes: number): string {
  return n.toString(16).padStart(bytes * 2, '0');
}

/**
 * Init code reverting with `Error(reason)`. Memory layout (word = 32 bytes):
 *
 *   0x00  word 0: 0x08c379a0 in its last 4 bytes (MSTORE of a small value), so the payload
 *                 starts at byte 28 with the selector
 *   0x20  word 1: 0x20, offset of the string in the ABI encoding
 *   0x40  word 2: byte length of the string
 *   0x60  words 3..: the string bytes, left-aligned, zero-padded (one PUSH32 + MSTORE each)
 *
 * then `REVERT(28, 4 + 64 + 32 * words)`.
 */
export function revertingInitCode(reason: string): Hex {
  const data = Buffer.from(reason, 'utf8');
  if (data.length > MAX_REASON_BYTES) throw new Error(`revert reason longer than ${MAX_REASON_BYTES} bytes`);
  const words = Math.ceil(data.length / 32);
  const op = (code: number, arg = '') => code.toString(16).padStart(2, '0') + arg;
  let code = '';
  code += op(OP.PUSH4, ERROR_STRING_SELECTOR) + op(OP.PUSH1, '00') + op(OP.MSTORE); //           mstore(0x00, selector)
  code += op(OP.PUSH1, '20') + op(OP.PUSH1, '20') + op(OP.MSTORE); //                             mstore(0x20, 0x20)
  code += op(OP.PUSH2, hexOf(data.length, 2)) + op(OP.PUSH1, '40') + op(OP.MSTORE); //            mstore(0x40, length)
  for (let i = 0; i < words; i++) {
    const chunk = Buffer.alloc(32);
    data.copy(chunk, 0, i * 32, Math.min(data.length, (i + 1) * 32));
    code += op(OP.PUSH32, chunk.toString('hex')) + op(OP.PUSH2, hexOf(0x60 + 32 * i, 2)) + op(OP.MSTORE); // mstore(0x60 + 32i, chunk)
  }
  code += op(OP.PUSH2, hexOf(4 + 64 + 32 * words, 2)) + op(OP.PUSH1, '1c') + op(OP.REVERT); //     revert(28, size)
  return `0x${code}`;
}

/**
 * Intrinsic gas of a transaction without data: every transfer uses at least this much, so an
 * estimate below it could not be used as a gas limit ("may be larger than the gas used", 4.4,
 * never smaller).
 */
export const TRANSFER_GAS = 21_000n;

/**
 * Whether an error answer is a revert: code 3 (geth, reth), or a message naming one ("execution
 * reverted", Nethermind's and Hardhat's "... revert ..."). The call then ran against the state at
 * its block, whatever the contract's own reason says.
 */
export function isRevert(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; message?: unknown };
  return e.code === 3 || (typeof e.message === 'string' && /\brevert/i.test(e.message));
}

/**
 * An eth_estimateGas refusal for want of the sender's funds ("insufficient funds for gas * price
 * + value" in geth, Tevm, reth; "insufficient balance" elsewhere). Estimating from a random,
 * unfunded sender is the suite's own choice, so such an answer says nothing about 4.4.
 */
export function isInsufficientFunds(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { message?: unknown; data?: unknown };
  const text = `${typeof e.message === 'string' ? e.message : ''} ${typeof e.data === 'string' ? e.data : ''}`;
  return /insufficient funds|insufficient balance|not enough (funds|balance)|InsufficientFunds|LackOfFundForMaxFee/i.test(text);
}
