import type { Hex, PrivateKeyAccount } from 'viem';
import { viemAccounts } from './viem';

/**
 * The run's spend budget: shared by every signer check, so the cap holds for the whole run.
 * Nothing is sent without an explicit key; only 0-value self-transfers and tiny deployments.
 */
export class SpendBudget {
  private spent = 0n;
  constructor(readonly maxWei: bigint) {}

  /**
   * Reserve the worst-case cost before sending. Returns why it was refused (the cap would be
   * passed), or undefined when reserved; the caller decides what that means for its check.
   */
  reserve(wei: bigint): string | undefined {
    if (this.spent + wei > this.maxWei) {
      return `spend cap reached: needs ${wei} wei more, ${this.maxWei - this.spent} wei left of --max-spend-wei ${this.maxWei}`;
    }
    this.spent += wei;
    return undefined;
  }

  get spentWei(): bigint {
    return this.spent;
  }
}

export interface Signer {
  address: Hex;
  account: PrivateKeyAccount;
  budget: SpendBudget;
}

export function createSigner(key: Hex, budget: SpendBudget): Signer {
  const account = viemAccounts().privateKeyToAccount(key);
  return {
    address: account.address,
    account,
    budget,
  };
}

/**
 * Loads the signing library and builds the curve's tables with a throwaway key, so the first
 * account derived after this costs about 1 ms instead of about 130 ms: for a caller with time to
 * spare before it knows the key (an embedded run, while its reference starts).
 */
export function warmSigner(): void {
  viemAccounts().privateKeyToAccount(`0x${'11'.repeat(32)}`);
}
