// The equities the reference lists. Real issuers and ISINs (check digits verified by a test);
// supplies, multipliers, prices and pauses are made up but chosen to exercise the format:
// 18 and 6 decimals, non-trivial multipliers, paused features, NAV rounds of varying age.
import { Feature } from './abi';

export interface CatalogEntry {
  symbol: string;
  name: string;
  isin: string;
  decimals: number;
  /** In token units, as a decimal string (exact). */
  totalSupply: string;
  /** Shares per token unit, as a decimal string (exact). */
  multiplier: string;
  /** NAV per token, as a decimal string with at most 8 fraction digits (the feed's decimals). */
  navPrice: string;
  /** Age of the initial NAV round at start-up; feeds lag wall-clock time (spec 2.1 rule 1). */
  navAgeSeconds: number;
  pausedFeatures: number[];
}

export const CATALOG: readonly CatalogEntry[] = [
  {
    symbol: 'AAPL',
    name: 'Apple Inc.',
    isin: 'US0378331005',
    decimals: 18,
    totalSupply: '125000.5',
    multiplier: '1',
    navPrice: '229.87',
    navAgeSeconds: 45,
    pausedFeatures: [],
  },
  {
    symbol: 'MSFT',
    name: 'Microsoft Corporation',
    isin: 'US5949181045',
    decimals: 18,
    totalSupply: '48210.25',
    multiplier: '1.0237',
    navPrice: '415.32',
    navAgeSeconds: 300,
    pausedFeatures: [],
  },
  {
    symbol: 'TSLA',
    name: 'Tesla, Inc.',
    isin: 'US88160R1014',
    decimals: 6,
    totalSupply: '310777.123456',
    multiplier: '1',
    navPrice: '251.44',
    navAgeSeconds: 1_800,
    pausedFeatures: [Feature.MINT],
  },
  {
    symbol: 'NVDA',
    name: 'NVIDIA Corporation',
    isin: 'US67066G1040',
    decimals: 18,
    totalSupply: '902001',
    multiplier: '10',
    navPrice: '1312.61',
    navAgeSeconds: 120,
    pausedFeatures: [],
  },
  {
    symbol: 'AMZN',
    name: 'Amazon.com, Inc.',
    isin: 'US0231351067',
    decimals: 6,
    totalSupply: '77000',
    multiplier: '1.0041',
    navPrice: '186.51',
    navAgeSeconds: 7_200,
    pausedFeatures: [],
  },
  {
    symbol: 'GOOGL',
    name: 'Alphabet Inc. Class A',
    isin: 'US02079K3059',
    decimals: 18,
    totalSupply: '15550.75',
    multiplier: '1',
    navPrice: '164.74035',
    navAgeSeconds: 61_200,
    pausedFeatures: [Feature.TRANSFER, Feature.SEIZE],
  },
  {
    symbol: 'META',
    name: 'Meta Platforms, Inc.',
    isin: 'US30303M1027',
    decimals: 6,
    totalSupply: '20480.5',
    multiplier: '0.9985',
    navPrice: '563.12',
    navAgeSeconds: 900,
    pausedFeatures: [],
  },
];

export function iconUrl(symbol: string): string {
  // Made-up host: the reference never fetches it, it only has to be an absolute https URL.
  return `https://icons.example/${encodeURIComponent(symbol)}.svg`;
}
