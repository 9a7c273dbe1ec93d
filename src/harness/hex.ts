import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { isHexQuantity } from './formats';

/** Block parameters of spec 4.2: the five tags; a hex number is added by checks that know the head. */
export const BLOCK_TAGS = ['latest', 'pending', 'safe', 'finalized', 'earliest'] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

/** A fresh address nobody has used: exactly "0x" code, nonce 0 (spec 4.5, 4.6). */
export function randomAddress(): Hex {
  return `0x${randomBytes(20).toString('hex')}`;
}

export function toQuantity(n: bigint | number): Hex {
  return `0x${BigInt(n).toString(16)}`;
}

/** Parse a spec hex quantity; undefined when it is not one (callers fail with the section). */
export function quantity(v: unknown): bigint | undefined {
  return isHexQuantity(v) ? BigInt(v as string) : undefined;
}
