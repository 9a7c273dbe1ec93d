import { randomFillSync } from 'node:crypto';
import type { Hex } from 'viem';
import { isHexQuantity } from './formats';

/** Block parameters of spec 4.2: the five tags; a hex number is added by checks that know the head. */
export const BLOCK_TAGS = ['latest', 'pending', 'safe', 'finalized', 'earliest'] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

/** Random bytes drawn a pool at a time: a run asks for thousands of addresses, and one draw each cost more than the rest of making it. */
const pool = Buffer.alloc(4096);
let used = pool.length;

/** A fresh address nobody has used: exactly "0x" code, nonce 0 (spec 4.5, 4.6). */
export function randomAddress(): Hex {
  if (used + 20 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 20;
  return `0x${pool.toString('hex', used - 20, used)}`;
}

export function toQuantity(n: bigint | number): Hex {
  return `0x${BigInt(n).toString(16)}`;
}

/** Parse a spec hex quantity; undefined when it is not one (callers fail with the section). */
export function quantity(v: unknown): bigint | undefined {
  return isHexQuantity(v) ? BigInt(v as string) : undefined;
}
