// Builds the v1TokenizedEquityToken records from chain state at request time. Every read of
// one request is pinned to the same block, so a record never mixes two blocks.
import type { Address, Hex } from 'viem';
// viem's utilities from their own modules, not viem or viem/utils: start-up time (viem-parts.ts).
import { decodeFunctionResult, encodeFunctionData, formatUnits, getAddress, toHex } from './viem-parts';
import { feedAbi, tokenAbi } from './contracts/abi';
import { iconUrl } from './contracts/catalog';
import type { Json, Upstream } from './rpc';

export interface TokenRecord {
  contract_address: string;
  symbol: string;
  name: string;
  decimals: number;
  icon_url: string;
  total_supply: number;
  isin: string;
  multiplier: number;
  paused_features: number[];
  nav_price: number;
  nav_price_updated_at: string;
}

const TOKEN_READS = ['name', 'symbol', 'isin', 'decimals', 'totalSupply', 'multiplier', 'pausedFeatures', 'priceFeed'] as const;

export async function listTokens(upstream: Upstream, addresses: readonly Address[]): Promise<TokenRecord[]> {
  const block = toHex(BigInt(await upstream.call<Hex>('eth_blockNumber')));
  const call = (to: Address, data: Hex): [string, Json[]] => ['eth_call', [{ to, data }, block]];

  const tokenAnswers = await upstream.batch<Hex>(
    addresses.flatMap((to) => TOKEN_READS.map((functionName) => call(to, encodeFunctionData({ abi: tokenAbi, functionName })))),
  );
  const tokens = addresses.map((address, i) => {
    const at = (k: number): Hex => tokenAnswers[i * TOKEN_READS.length + k];
    return {
      address,
      name: decodeFunctionResult({ abi: tokenAbi, functionName: 'name', data: at(0) }),
      symbol: decodeFunctionResult({ abi: tokenAbi, functionName: 'symbol', data: at(1) }),
      isin: decodeFunctionResult({ abi: tokenAbi, functionName: 'isin', data: at(2) }),
      decimals: decodeFunctionResult({ abi: tokenAbi, functionName: 'decimals', data: at(3) }),
      totalSupply: decodeFunctionResult({ abi: tokenAbi, functionName: 'totalSupply', data: at(4) }),
      multiplier: decodeFunctionResult({ abi: tokenAbi, functionName: 'multiplier', data: at(5) }),
      pausedFeatures: decodeFunctionResult({ abi: tokenAbi, functionName: 'pausedFeatures', data: at(6) }),
      feed: decodeFunctionResult({ abi: tokenAbi, functionName: 'priceFeed', data: at(7) }),
    };
  });

  const feedAnswers = await upstream.batch<Hex>(
    tokens.flatMap((t) => [
      call(t.feed, encodeFunctionData({ abi: feedAbi, functionName: 'decimals' })),
      call(t.feed, encodeFunctionData({ abi: feedAbi, functionName: 'latestRoundData' })),
    ]),
  );

  return tokens.map((t, i) => {
    const feedDecimals = decodeFunctionResult({ abi: feedAbi, functionName: 'decimals', data: feedAnswers[2 * i] });
    const [, answer, , updatedAt] = decodeFunctionResult({ abi: feedAbi, functionName: 'latestRoundData', data: feedAnswers[2 * i + 1] });
    return {
      contract_address: getAddress(t.address),
      symbol: t.symbol,
      name: t.name,
      decimals: t.decimals,
      icon_url: iconUrl(t.symbol),
      total_supply: Number(formatUnits(t.totalSupply, t.decimals)),
      isin: t.isin,
      multiplier: Number(formatUnits(t.multiplier, 18)),
      paused_features: t.pausedFeatures.map(Number),
      nav_price: Number(formatUnits(answer, feedDecimals)),
      nav_price_updated_at: rfc3339(updatedAt),
    };
  });
}

/** Seconds since the epoch as an RFC 3339 UTC timestamp, e.g. 2025-01-31T14:30:00Z. */
export function rfc3339(seconds: bigint): string {
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.000Z$/, 'Z');
}
