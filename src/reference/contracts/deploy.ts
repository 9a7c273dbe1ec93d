// Deploys the catalogue in one block: every creation transaction is sent to the (non-mining)
// pool with an explicit nonce, then a single evm_mine seals them together. Constructors run
// for real, so the state (and events) are exactly what a deployment on a chain would leave.
import type { Address, Hex } from 'viem';
// viem's utilities from their own modules, not viem or viem/utils: start-up time (viem-parts.ts).
import { encodeDeployData, getAddress, getContractAddress, parseUnits, toHex } from '../viem-parts';
import type { AnvilRpc } from '../rpc';
import { artifacts, feedAbi, tokenAbi } from './abi';
import { CATALOG, type CatalogEntry } from './catalog';

export const FEED_DECIMALS = 8;

export interface DeployedToken {
  address: Address;
  symbol: string;
  isin: string;
  feed: Address;
}

interface Receipt {
  transactionHash: Hex;
  status: Hex;
  contractAddress: Address | null;
}

const MAX_DEPLOY_BLOCKS = 4;

export async function deployCatalog(rpc: AnvilRpc, deployer: Address, now: Date, catalog: readonly CatalogEntry[] = CATALOG): Promise<DeployedToken[]> {
  const firstNonce = Number(await rpc.call<Hex>('eth_getTransactionCount', [deployer, 'pending']));
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const txs: Array<{ data: Hex; nonce: number; address: Address }> = [];
  const tokens: DeployedToken[] = [];

  catalog.forEach((entry, i) => {
    const feedNonce = firstNonce + 2 * i;
    const feed = getContractAddress({ from: deployer, nonce: BigInt(feedNonce) });
    const token = getContractAddress({ from: deployer, nonce: BigInt(feedNonce + 1) });
    txs.push({
      nonce: feedNonce,
      address: feed,
      data: encodeDeployData({
        abi: feedAbi,
        bytecode: artifacts.contracts.PriceFeed.bytecode,
        args: [`${entry.symbol} / USD NAV`, parseUnits(entry.navPrice, FEED_DECIMALS), BigInt(nowSeconds - entry.navAgeSeconds)],
      }),
    });
    txs.push({
      nonce: feedNonce + 1,
      address: token,
      data: encodeDeployData({
        abi: tokenAbi,
        bytecode: artifacts.contracts.TokenizedEquity.bytecode,
        args: [
          entry.name,
          entry.symbol,
          entry.isin,
          entry.decimals,
          parseUnits(entry.totalSupply, entry.decimals),
          parseUnits(entry.multiplier, 18),
          feed,
          entry.pausedFeatures.map(BigInt),
        ],
      }),
    });
    tokens.push({ address: getAddress(token), symbol: entry.symbol, isin: entry.isin, feed: getAddress(feed) });
  });

  // The creations are independent of each other, so all estimates can run against `latest`.
  const gas = await rpc.batch<Hex>(txs.map((tx) => ['eth_estimateGas', [{ from: deployer, data: tx.data }]]));
  const hashes = await rpc.batch<Hex>(
    txs.map((tx, i) => ['eth_sendTransaction', [{ from: deployer, data: tx.data, nonce: toHex(tx.nonce), gas: toHex((BigInt(gas[i]) * 5n) / 4n) }]]),
  );

  // One block normally holds them all; mine more only if the block gas limit says otherwise.
  const receipts = new Map<Hex, Receipt>();
  for (let i = 0; i < MAX_DEPLOY_BLOCKS && receipts.size < hashes.length; i++) {
    await rpc.call('evm_mine');
    for (const r of await rpc.call<Receipt[]>('eth_getBlockReceipts', ['latest'])) receipts.set(r.transactionHash, r);
  }
  hashes.forEach((hash, i) => {
    const r = receipts.get(hash);
    if (!r || r.status !== '0x1' || !r.contractAddress || getAddress(r.contractAddress) !== getAddress(txs[i].address)) {
      throw new Error(`deployment transaction ${i} (${hash}) did not succeed: ${JSON.stringify(r ?? null)}`);
    }
  });
  return tokens;
}
