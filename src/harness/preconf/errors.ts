// How the pass's plumbing says an answer is odd or the observation cannot go on. Neither is a
// verdict: the pass turns them into evidence (evidence.ts) and the checks in suites/preconf judge.
import { notServedRoot } from '../expect';
import type { RpcAnswer } from '../rpc';

/**
 * An answer that is itself at odds with a cited rule (not a hex quantity, an error for a call
 * that does not revert, ...): the reading, described, for the behaviour's check to state.
 */
export class Violation extends Error {
  override name = 'Violation';
  constructor(
    message: string,
    readonly detail: {
      violated?: readonly string[];
      expected?: unknown;
      actual?: unknown;
      /** The check that owns the rule broken, when it is not the behaviour's own: a broken JSON-RPC envelope (4.2) is the envelope check's (RPC_ENVELOPE_ROOT). */
      root?: string;
    } = {},
    /**
     * eth_getBlockReceipts refused with HTTP 403, at this block parameter: a public node judged as
     * dedicated, one mistake stated by one check (src/harness/receipts.ts, dedicated403).
     */
    readonly refused403?: string,
  ) {
    super(message);
  }
}

/** The node said it does not serve `method`: a violation stated by the method's root check (expect.ts METHOD_ROOT), or undefined. */
export function notServedViolation(method: string, a: Pick<RpcAnswer, 'notServed'>): Violation | undefined {
  const refusal = notServedRoot(method, a, method);
  return refusal && new Violation(refusal.message, { ...refusal.detail, root: refusal.root });
}

/** Why the observation cannot go on (a helper method unanswered, funds, the spend cap, a stop). */
export class Unobservable extends Error {
  override name = 'Unobservable';
}

/** The node stopped sealing blocks while the pass waited for one: no seal can end the observation. */
export class Stalled extends Error {
  override name = 'Stalled';
}
