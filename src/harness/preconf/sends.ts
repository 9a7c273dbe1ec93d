// What an answer to eth_sendRawTransaction says beyond accepted or refused: the transaction is
// already in the pool, its nonce was already used, or a gateway lost it.
import type { RpcError } from '../rpc';
import { InterfaceDown } from '../down-mid-run';
import { GatewayError } from '../throttle';

/** An eth_sendRawTransaction error saying this very transaction is already in the pool (geth, reth, erigon, nethermind wording). */
export function isAlreadyKnown(error: RpcError | undefined): boolean {
  return error !== undefined && /already known(?! nonce)|already imported|AlreadyKnown|transaction already exists/i.test(String(error.message));
}

/** An eth_sendRawTransaction error saying the nonce was already used ("nonce too low" in geth, reth and anvil). */
export function isNonceTooLow(error: RpcError | undefined): boolean {
  return error !== undefined && /nonce too low|nonce has already been used|already known nonce|OldNonce/i.test(String(error.message));
}

/**
 * The gateway in front of the node, not the node, answered every try of a send (HTTP 502/503/504):
 * this nonce is lost, and the signer's later ones cannot be included. A refusal saying so
 * (send.ts, refusalOf); anything else is rethrown.
 */
export function lostSend(
  err: unknown,
  nonce: bigint,
  startedAt: number,
  answeredAt: number,
): { refused: string; startedAt: number; answeredAt: number; lost: { nonce: bigint; answer: string } } {
  // A node that stopped answering lost no send of its own: the pass stops on it (state.ts, stopOf).
  if (!(err instanceof GatewayError) || err instanceof InterfaceDown) throw err;
  const answer = err.answer ?? 'a gateway error';
  const tries = `${err.attempts} tr${err.attempts === 1 ? 'y' : 'ies'}`;
  return { refused: `the send of nonce ${nonce} was answered ${answer} (${tries})`, startedAt, answeredAt, lost: { nonce, answer } };
}
