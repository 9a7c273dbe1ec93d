// Typed ABIs for the calls the reference makes. A test checks each entry against the
// compiled artifacts, so these cannot drift from the Solidity sources.
// viem's parseAbi from its own module, not viem or viem/utils: start-up time (viem-parts.ts).
import { parseAbi } from '../viem-parts';
import artifactsJson from './artifacts.json';
import type { Artifacts } from './compile';

export const artifacts = artifactsJson as unknown as Artifacts;

export const tokenAbi = parseAbi([
  'constructor(string name_, string symbol_, string isin_, uint8 decimals_, uint256 initialSupply, uint256 multiplier_, address priceFeed_, uint256[] pausedFeatures_)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function isin() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 value)',
  'function multiplier() view returns (uint256)',
  'function pausedFeatures() view returns (uint256[])',
  'function priceFeed() view returns (address)',
  'function setMultiplier(uint256 multiplier_)',
  'function pause(uint256 feature)',
  'function unpause(uint256 feature)',
]);

export const feedAbi = parseAbi([
  'constructor(string description_, int256 answer, uint256 updatedAt)',
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function publish(int256 answer, uint256 updatedAt)',
]);

/** Feature ordinals of TokenizedEquity.pause / unpause. */
export const Feature = { TRANSFER: 0, MINT: 1, BURN: 2, SEIZE: 3 } as const;
