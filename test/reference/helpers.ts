// Shared plumbing for the reference-target tests: raw JSON-RPC over fetch (so status codes
// and error envelopes are visible), bounded polling, and viem clients for the signer.
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { ReferenceTarget } from '../../src/reference';

export interface RawAnswer {
  status: number;
  contentType: string | null;
  body: any;
}

let nextId = 1;

export async function post(url: string, body: unknown): Promise<RawAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
}

export function request(method: string, params: unknown[] = []) {
  return { jsonrpc: '2.0', id: nextId++, method, params };
}

/** One call; throws on a JSON-RPC error. */
export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const answer = await post(url, request(method, params));
  if (answer.status !== 200) throw new Error(`${method}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  if (answer.body.error) throw new Error(`${method}: ${JSON.stringify(answer.body.error)}`);
  return answer.body.result as T;
}

/** Polls until check returns a value other than undefined; bounded. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 5_000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Resolves right after a block seals, so a test has a full block time before the next one. */
export async function nextBlock(url: string): Promise<number> {
  const start = Number(await rpc<string>(url, 'eth_blockNumber'));
  return waitFor(
    'the next block',
    async () => {
      const n = Number(await rpc<string>(url, 'eth_blockNumber'));
      return n > start ? n : undefined;
    },
    10_000,
    5,
  );
}

export function clients(ref: ReferenceTarget) {
  const chain = defineChain({
    id: ref.chainId,
    name: 'reference',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [ref.rpcUrl] } },
  });
  const account = privateKeyToAccount(ref.signerKey);
  return {
    chain,
    account,
    wallet: createWalletClient({ account, chain, transport: http(ref.rpcUrl) }),
    publicClient: createPublicClient({ chain, transport: http(ref.rpcUrl) }),
  };
}

/** A funded dev account of anvil's that the signer pays in the tests. */
export const RECIPIENT: Hex = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

/** A signed EIP-1559 transfer (or, with `to: null`, a deployment) from the reference's signer. */
export interface TxFields {
  value?: bigint;
  data?: Hex;
  to?: Hex | null;
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

export async function sign(target: ReferenceTarget, nonce: number, fields: TxFields = {}, account: PrivateKeyAccount = clients(target).account): Promise<Hex> {
  const { wallet, chain } = clients(target);
  const { to = RECIPIENT, value = 1n, ...rest } = fields;
  return wallet.signTransaction({
    account,
    chain,
    ...(to === null ? {} : { to }),
    value,
    nonce,
    gas: 21_000n,
    maxFeePerGas: parseEther('0.00000005'),
    maxPriorityFeePerGas: 1_000_000n,
    ...rest,
  });
}

export async function pendingCount(target: ReferenceTarget, address: Hex = clients(target).account.address): Promise<number> {
  return Number(await rpc(target.rpcUrl, 'eth_getTransactionCount', [address, 'pending']));
}

/** Sends a raw transaction; returns the hash and the moment the answer arrived. */
export async function send(target: ReferenceTarget, raw: Hex): Promise<{ hash: Hex; answeredAt: number; sendMs: number }> {
  const t = performance.now();
  const hash = await rpc<Hex>(target.rpcUrl, 'eth_sendRawTransaction', [raw]);
  const answeredAt = performance.now();
  return { hash, answeredAt, sendMs: answeredAt - t };
}

/** ms from `since` until the "pending" count of the signer passes `nonce`; bounded. */
export async function visibleAfter(target: ReferenceTarget, nonce: number, since: number, timeoutMs = 3_000): Promise<number> {
  return waitFor('the transaction at "pending"', async () => ((await pendingCount(target)) > nonce ? performance.now() - since : undefined), timeoutMs, 1);
}

/** ISIN validity is judged by the suite's own unit-tested format. */
export { isIsin as isValidIsin } from '../../src/harness/formats';
