// Shared plumbing for the reference-target tests: raw JSON-RPC over fetch (so status codes
// and error envelopes are visible), bounded polling, and viem clients for the signer.
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
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
  return waitFor('the next block', async () => {
    const n = Number(await rpc<string>(url, 'eth_blockNumber'));
    return n > start ? n : undefined;
  }, 10_000, 5);
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

/** ISIN validity is judged by the suite's own unit-tested format. */
export { isIsin as isValidIsin } from '../../src/harness/formats';
