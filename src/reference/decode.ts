// Sender and nonce of a signed raw transaction, read locally: the gateway needs them before it
// lets anvil see the transaction (see Preconf.submit), and anvil offers no decoding call.
// viem's utilities from their own modules, not viem or viem/utils: start-up time (viem-parts.ts).
import type { Hex } from 'viem';
import { keccak256, parseTransaction, recoverAddress, serializeTransaction } from './viem-parts';

export interface SignedTx {
  hash: Hex;
  /** Lower-case address. */
  from: string;
  nonce: number;
}

/** undefined for anything that is not a signed transaction viem can read; anvil then judges it. */
export async function decodeSigned(raw: string): Promise<SignedTx | undefined> {
  if (!/^0x[0-9a-fA-F]+$/.test(raw)) return undefined;
  try {
    const tx = parseTransaction(raw as Hex);
    const { r, s, v, yParity, ...unsigned } = tx as typeof tx & { v?: bigint; yParity?: number };
    if (r === undefined || s === undefined || typeof tx.nonce !== 'number') return undefined;
    // The signing payload is the transaction serialised without its signature (EIP-155 for
    // legacy transactions with a chain id, the typed envelope otherwise).
    const signingHash = keccak256(serializeTransaction(unsigned as Parameters<typeof serializeTransaction>[0]));
    const from = await recoverAddress({ hash: signingHash, signature: { r, s, v, yParity } as Parameters<typeof recoverAddress>[0]['signature'] });
    return { hash: keccak256(raw as Hex), from: from.toLowerCase(), nonce: tx.nonce };
  } catch {
    return undefined;
  }
}
