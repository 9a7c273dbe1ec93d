// The signer key as people paste it: from `cat key.txt` (a trailing newline), exported without its
// 0x, or the wallet's recovery phrase instead of a key. What is unambiguous is taken; the rest is
// refused with what to do, and the value is never echoed.
import { ConfigError } from './config-error';

/** BIP-39 phrase lengths: 12, 15, 18, 21 or 24 words. */
const MNEMONIC_WORDS = new Set([12, 15, 18, 21, 24]);

/** A recovery phrase (BIP-39): 12 to 24 lower-case words of 3 to 8 letters, separated by whitespace. */
export function isMnemonic(value: string): boolean {
  const words = value.trim().split(/\s+/);
  return MNEMONIC_WORDS.has(words.length) && words.every((w) => /^[a-z]{3,8}$/.test(w));
}

/** The order of secp256k1's group: a private key is a number from 1 to this, exclusive. */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * --signer-key (or SIGNER_PRIVATE_KEY) as the run uses it: 0x followed by 64 hex digits. Whitespace
 * around it (a newline from a file) is trimmed, as URLs are; 64 hex digits without 0x are the same
 * key (what `cast wallet new` and wallets' exports print), so 0x is added; a recovery phrase is
 * recognised and refused with how to derive the key from it.
 */
export function parseSignerKey(raw: string): `0x${string}` {
  const source = '--signer-key (or SIGNER_PRIVATE_KEY)';
  const value = raw.trim();
  const digits = /^(?:0[xX])?([0-9a-fA-F]{64})$/.exec(value)?.[1];
  if (digits !== undefined) {
    // 64 hex digits that no account has: a key is a secp256k1 scalar, 1 <= k < n.
    const k = BigInt(`0x${digits}`);
    if (k === 0n || k >= SECP256K1_ORDER)
      throw new ConfigError(`${source}: 64 hex digits, but not a private key: it must be above 0 and below the secp256k1 group order (value not shown)`);
    return `0x${digits}`;
  }
  if (isMnemonic(value))
    throw new ConfigError(
      `${source}: the value looks like a ${value.split(/\s+/).length}-word recovery phrase (not shown): a private key is needed (0x followed by 64 hex digits). Derive the key of its first account with Foundry: cast wallet private-key --mnemonic "$MNEMONIC" --mnemonic-index 0, and give that`,
    );
  const hex = value.replace(/^0[xX]/, '');
  const why = !/^[0-9a-fA-F]*$/.test(hex)
    ? /\s/.test(hex)
      ? 'it has whitespace inside'
      : 'it has characters that are not hex digits'
    : `it has ${hex.length} hex digits`;
  throw new ConfigError(`${source}: expected 0x followed by 64 hex digits, and ${why} (value not shown)`);
}
