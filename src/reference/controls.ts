// Scenario controls: owner-only transactions that change what the listing shows. Each one is
// sent and sealed at once, so the change is in `latest` (and the next REST answer) on return.
import type { Address, Hex } from 'viem';
// viem's utilities from their own modules, not viem or viem/utils: start-up time (viem-parts.ts).
import { encodeFunctionData, parseUnits } from './viem-parts';
import { feedAbi, tokenAbi } from './contracts/abi';
import { FEED_DECIMALS, type DeployedToken } from './contracts/deploy';
import type { Preconf } from './preconf';
import type { Upstream } from './rpc';

export interface Controls {
  /** Sets the token's multiplier, e.g. 1.0237 after a dividend or 2 after a 2:1 split. */
  corporateAction(symbol: string, multiplier: number): Promise<void>;
  /** Publishes a NAV round on the token's feed; updatedAt defaults to now. */
  publishRound(symbol: string, navPrice: number, updatedAt?: Date): Promise<void>;
  pause(symbol: string, feature: number): Promise<void>;
  unpause(symbol: string, feature: number): Promise<void>;
  /** Seals the pending block now. */
  seal(): Promise<void>;
  /** A flashblock reorg: withdraws the sender's pre-confirmed transactions, re-included after the next seal; how many. */
  reorg(sender: Address): Promise<number>;
  /** Evicts the sender's transactions held ahead of a nonce gap (a mempool's queued ones, never pre-confirmed); how many. */
  evictQueued(sender: Address): Promise<number>;
}

/** A caller mistake (unknown symbol, bad number); the REST layer maps it to 400/404. */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly kind: 'not-found' | 'invalid',
  ) {
    super(message);
  }
}

interface Deps {
  upstream: Upstream;
  preconf: Preconf;
  tokens: readonly DeployedToken[];
  owner: Address;
}

export function createControls({ upstream, preconf, tokens, owner }: Deps): Controls {
  const token = (symbol: string): DeployedToken => {
    const found = tokens.find((t) => t.symbol.toLowerCase() === String(symbol).toLowerCase());
    if (!found) throw new ControlError(`unknown symbol ${JSON.stringify(symbol)}`, 'not-found');
    return found;
  };

  const send = async (to: Address, data: Hex): Promise<void> => {
    const hash = await preconf.sealWith((raw) => raw.call<Hex>('eth_sendTransaction', [{ from: owner, to, data }]));
    const receipt = await upstream.call<{ status: Hex } | null>('eth_getTransactionReceipt', [hash]);
    if (receipt?.status !== '0x1') throw new Error(`control transaction ${hash} failed: ${JSON.stringify(receipt)}`);
  };

  const feature = (f: number): bigint => {
    if (!Number.isSafeInteger(f) || f < 0) throw new ControlError(`feature must be a non-negative integer, got ${f}`, 'invalid');
    return BigInt(f);
  };

  return {
    async corporateAction(symbol, multiplier) {
      const t = token(symbol);
      if (!(typeof multiplier === 'number' && multiplier > 0 && Number.isFinite(multiplier))) {
        throw new ControlError(`multiplier must be a positive number, got ${multiplier}`, 'invalid');
      }
      const value = parseUnits(decimalString(multiplier), 18);
      if (value === 0n) throw new ControlError(`multiplier ${multiplier} rounds to zero`, 'invalid');
      await send(t.address, encodeFunctionData({ abi: tokenAbi, functionName: 'setMultiplier', args: [value] }));
    },

    async publishRound(symbol, navPrice, updatedAt = new Date()) {
      const t = token(symbol);
      if (!(typeof navPrice === 'number' && Number.isFinite(navPrice))) {
        throw new ControlError(`navPrice must be a finite number, got ${navPrice}`, 'invalid');
      }
      const seconds = Math.floor(updatedAt.getTime() / 1000);
      if (!Number.isSafeInteger(seconds) || seconds <= 0) throw new ControlError('updatedAt must be a valid date after 1970', 'invalid');
      const answer = parseUnits(decimalString(navPrice), FEED_DECIMALS);
      await send(t.feed, encodeFunctionData({ abi: feedAbi, functionName: 'publish', args: [answer, BigInt(seconds)] }));
    },

    async pause(symbol, f) {
      const t = token(symbol);
      await send(t.address, encodeFunctionData({ abi: tokenAbi, functionName: 'pause', args: [feature(f)] }));
    },

    async unpause(symbol, f) {
      const t = token(symbol);
      await send(t.address, encodeFunctionData({ abi: tokenAbi, functionName: 'unpause', args: [feature(f)] }));
    },

    async seal() {
      await preconf.seal();
    },

    reorg(sender) {
      return preconf.withdraw(sender.toLowerCase());
    },

    evictQueued(sender) {
      return preconf.evictGapped(sender.toLowerCase());
    },
  };
}

/** A JS number as a plain decimal string (parseUnits does not take exponent notation). */
export function decimalString(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return Math.abs(n) >= 1e21 ? BigInt(n).toString() : n.toFixed(40).replace(/\.?0+$/, '');
}
