// The node interface at {rpc_url}: pre-confirmed state at "pending" in the instant model,
// revert translation, envelope handling, and the public/dedicated profile rule.
//
// These tests run the reference with flashblockMs 0 (every accepted transaction is
// pre-confirmed at once): they are about what the pre-confirmed state shows and how it is
// kept consistent (order, the hidden temporary block), not about when it is published. The
// default flashblock model (200 ms ticks) and its timing are tested in flashblocks.test.ts.
import { encodeAbiParameters, encodeFunctionData, getContractAddress, parseEther, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { tokenAbi } from '../../src/reference/contracts/abi';
import { ZERO_HASH } from '../../src/reference';
import { clients, nextBlock, post, request, rpc, waitFor } from './helpers';

const BLOCK_TIME_MS = 1000;

// Init code that returns the 10-byte runtime 602a60005260206000f3 (which returns 42).
const RUNTIME: Hex = '0x602a60005260206000f3';
const DEPLOY: Hex = `0x600a600c600039600a6000f3${RUNTIME.slice(2)}`;
// Init code that reverts with Error("nope"): copy the ABI-encoded error after the 12-byte
// prefix to memory and revert with it.
const ERROR_NOPE: Hex = `0x08c379a0${encodeAbiParameters([{ type: 'string' }], ['nope']).slice(2)}`;
const REVERT_NOPE: Hex = `0x6064600c60003960646000fd${ERROR_NOPE.slice(2)}`;

interface Receipt {
  transactionHash: Hex;
  blockNumber: Hex;
  status: Hex;
  gasUsed: Hex;
  type: Hex;
}

let ref: ReferenceTarget;

beforeAll(async () => {
  ref = await startReference({ blockTimeMs: BLOCK_TIME_MS, flashblockMs: 0 });
});

afterAll(() => ref?.stop());

async function pendingReceipts(): Promise<Receipt[]> {
  return rpc<Receipt[]>(ref.rpcUrl, 'eth_getBlockReceipts', ['pending']);
}

// anvil's second and third dev keys: funded, public knowledge.
const DEV_KEY_1: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const DEV_KEY_2: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

/** Signs a transfer to a fixed account without sending it; all with the same fees. */
async function signTransfer(nonce: number, value = 1n, account: PrivateKeyAccount = clients(ref).account): Promise<Hex> {
  const { wallet, chain } = clients(ref);
  return wallet.signTransaction({
    account,
    chain,
    to: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    value,
    nonce,
    gas: 21_000n,
    maxFeePerGas: parseEther('0.00000005'),
    maxPriorityFeePerGas: 1_000_000n,
  });
}

describe('pre-confirmed state', () => {
  /**
   * Sends a transfer right after a seal and reads "pending" once, as soon as the send is
   * answered: in the instant model (flashblockMs 0) the acceptance is published before the
   * send answers, so that first read shows it. How long visibility takes with 200 ms
   * flashblocks is measured by `npm run bench` (flashblocks, instant), not asserted here.
   */
  async function submitAndRead() {
    const { account } = clients(ref);
    const nonce = Number(await rpc(ref.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']));
    const raw = await signTransfer(nonce);
    const sealed = await nextBlock(ref.rpcUrl); // a full block time before the next seal
    const hash = await rpc<Hex>(ref.rpcUrl, 'eth_sendRawTransaction', [raw]);
    const [pendingNonce, receipts] = await Promise.all([
      rpc(ref.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']).then(Number),
      pendingReceipts(),
    ]);
    return { account, nonce, hash, sealed, pendingNonce, receipt: receipts.find((r) => r.transactionHash === hash) };
  }

  test('a signed transaction shows at "pending" on the first read after the send and at "latest" only after the seal', async () => {
    const seen = await submitAndRead();
    expect(seen.pendingNonce).toBe(seen.nonce + 1);
    expect(seen.receipt).toBeDefined();
    const receipt = seen.receipt!;
    const { account, nonce, hash, sealed } = seen;
    expect(Number(receipt.blockNumber)).toBe(sealed + 1);
    expect(receipt.status).toBe('0x1');
    expect(receipt.gasUsed).toBe('0x5208');

    // Not sealed yet: "latest" does not know it; its receipt is the pre-confirmed one (a
    // Flashblocks node answers it before the seal, with a zero block hash).
    expect(Number(await rpc(ref.rpcUrl, 'eth_blockNumber'))).toBe(sealed);
    expect(Number(await rpc(ref.rpcUrl, 'eth_getTransactionCount', [account.address, 'latest']))).toBe(nonce);
    expect(await rpc(ref.rpcUrl, 'eth_getTransactionReceipt', [hash])).toEqual({ ...receipt, blockHash: ZERO_HASH });

    // After the seal both agree, and the pending block starts empty.
    await nextBlock(ref.rpcUrl);
    expect(Number(await rpc(ref.rpcUrl, 'eth_getTransactionCount', [account.address, 'latest']))).toBe(nonce + 1);
    const latest = await rpc<Receipt[]>(ref.rpcUrl, 'eth_getBlockReceipts', [receipt.blockNumber]);
    expect(latest.map((r) => r.transactionHash)).toContain(hash);
    expect(latest.find((r) => r.transactionHash === hash)).toMatchObject({ status: '0x1', gasUsed: receipt.gasUsed });
    expect((await pendingReceipts()).map((r) => r.transactionHash)).not.toContain(hash);
  });

  test('a deployment has code at "pending" before the seal', async () => {
    const { wallet, account } = clients(ref);
    await nextBlock(ref.rpcUrl);
    const nonce = Number(await rpc(ref.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']));
    const address = getContractAddress({ from: account.address, nonce: BigInt(nonce) });
    await wallet.sendTransaction({ data: DEPLOY, nonce, gas: 100_000n });
    expect(await rpc(ref.rpcUrl, 'eth_getCode', [address, 'pending'])).toBe(RUNTIME);
    expect(await rpc(ref.rpcUrl, 'eth_getCode', [address, 'latest'])).toBe('0x');
    // A call that depends on the pre-confirmed deployment estimates against "pending".
    expect(Number(await rpc(ref.rpcUrl, 'eth_estimateGas', [{ from: account.address, to: address }, 'pending']))).toBeGreaterThan(21_000);
    await waitFor(
      'the deployment to seal',
      async () => {
        return (await rpc(ref.rpcUrl, 'eth_getCode', [address, 'latest'])) === RUNTIME ? true : undefined;
      },
      3 * BLOCK_TIME_MS,
    );
  });

  test('pending receipts keep submission order across senders through repeated reads, and the seal agrees', async () => {
    const senders = [ref.signerKey, DEV_KEY_1, DEV_KEY_2].map((k) => privateKeyToAccount(k));
    const nonces = await Promise.all(senders.map(async (a) => Number(await rpc(ref.rpcUrl, 'eth_getTransactionCount', [a.address, 'pending']))));
    const first = Number(await rpc(ref.rpcUrl, 'eth_blockNumber')) + 1;
    const hashes: Hex[] = [];
    for (let i = 0; i < 9; i++) {
      const s = i % senders.length;
      hashes.push(await rpc<Hex>(ref.rpcUrl, 'eth_sendRawTransaction', [await signTransfer(nonces[s]++, BigInt(i + 1), senders[s])]));
      // Each read mines a temporary block, reverts it and resubmits the pool. A seal may fall
      // in between: then the pending ones are the not-yet-sealed tail (maybe empty), in order.
      const pending = (await pendingReceipts()).map((r) => r.transactionHash).filter((h) => hashes.includes(h));
      expect(pending).toEqual(hashes.slice(hashes.length - pending.length));
    }
    // A receipt exists before the seal (pre-confirmed, zero block hash); sealed means a real hash.
    await waitFor(
      'all to seal',
      async () => {
        const receipt = await rpc<{ blockHash: Hex } | null>(ref.rpcUrl, 'eth_getTransactionReceipt', [hashes[8]]);
        return receipt && receipt.blockHash !== ZERO_HASH ? true : undefined;
      },
      3 * BLOCK_TIME_MS,
    );
    const last = Number(await rpc(ref.rpcUrl, 'eth_blockNumber'));
    const sealed: Hex[] = [];
    for (let n = first; n <= last; n++) {
      for (const r of await rpc<Receipt[]>(ref.rpcUrl, 'eth_getBlockReceipts', [`0x${n.toString(16)}`])) sealed.push(r.transactionHash);
    }
    expect(sealed.filter((h) => hashes.includes(h))).toEqual(hashes);
  });

  test('the temporary block behind pending receipts is never observable', async () => {
    const { account } = clients(ref);
    let nonce = Number(await rpc(ref.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']));
    // A transaction reaches anvil's pool at the next flashblock, not at its acceptance: the rounds
    // start once one is there, so an empty pool below can only be a leak (or a seal).
    await rpc(ref.rpcUrl, 'eth_sendRawTransaction', [await signTransfer(nonce++)]);
    await waitFor(
      'a transaction in the pool',
      async () => (Number((await rpc<{ pending: Hex }>(ref.rpcUrl, 'txpool_status')).pending) > 0 ? true : undefined),
      3 * BLOCK_TIME_MS,
    );
    const heights: number[] = [];
    const pools: number[] = [];
    for (let i = 0; i < 8; i++) {
      // A new transaction each round, so every pending read really mines and reverts.
      await rpc(ref.rpcUrl, 'eth_sendRawTransaction', [await signTransfer(nonce + i)]);
      const reads = Array.from({ length: 6 }, async () => {
        heights.push(Number(await rpc(ref.rpcUrl, 'eth_blockNumber')));
        const status = await rpc<{ pending: Hex }>(ref.rpcUrl, 'txpool_status');
        pools.push(Number(status.pending));
      });
      await Promise.all([pendingReceipts(), ...reads, pendingReceipts()]);
    }
    // The head once every read is answered: a seal during the rounds shows here even when every
    // height read of a round was answered before it (the reference sends a round's reads to anvil
    // as one batch, so they are answered together, and its pool reads after).
    const after = Number(await rpc(ref.rpcUrl, 'eth_blockNumber'));
    // A leaked temporary block shows as N+1 followed by N; the emptied pool as 0 pending.
    for (let i = 1; i < heights.length; i++) expect(heights[i]).toBeGreaterThanOrEqual(heights[i - 1]);
    // Only a real seal may empty the pool, and then the head moved on.
    if (after === heights[0]) expect(Math.min(...pools)).toBeGreaterThan(0);
  });
});

describe('eth_estimateGas reverts', () => {
  test.each(['latest', 'pending'])('a reverting creation answers -32000 "execution reverted" with the Error(string) data (%s)', async (block) => {
    const answer = await post(ref.rpcUrl, request('eth_estimateGas', [{ from: clients(ref).account.address, data: REVERT_NOPE }, block]));
    expect(answer.status).toBe(200);
    expect(answer.body.error.code).toBe(-32000);
    expect(answer.body.error.message).toMatch(/^execution reverted/);
    expect(answer.body.error.data).toBe(ERROR_NOPE);
  });

  test('custom-error reverts keep their data and get a printable message', async () => {
    const stranger = '0x000000000000000000000000000000000000dEaD';
    const tsla = ref.tokens.find((t) => t.symbol === 'TSLA')!; // MINT (1) is paused
    const cases: Array<[from: Hex, data: Hex, revert: Hex]> = [
      [stranger, encodeFunctionData({ abi: tokenAbi, functionName: 'setMultiplier', args: [1n] }), '0x30cd7471'], // NotOwner()
      // FeatureIsPaused(1): anvil puts the raw argument bytes (NULs) into its message.
      [clients(ref).account.address, encodeFunctionData({ abi: tokenAbi, functionName: 'mint', args: [stranger, 1n] }), `0x088d5623${'0'.repeat(63)}1`],
    ];
    for (const [from, data, revert] of cases) {
      const answer = await post(ref.rpcUrl, request('eth_estimateGas', [{ from, to: tsla.address, data }, 'pending']));
      expect(answer.body.error.code).toBe(-32000);
      expect(answer.body.error.message).toMatch(/^execution reverted/);
      expect(answer.body.error.message).not.toMatch(/[\u0000-\u001f]/);
      expect(answer.body.error.data).toBe(revert);
    }
  });
});

describe('envelope', () => {
  test('malformed JSON is -32700 as application/json', async () => {
    const answer = await post(ref.rpcUrl, '{"jsonrpc":"2.0",');
    expect(answer.contentType).toBe('application/json');
    expect(answer.body.error.code).toBe(-32700);
  });

  test('batches are answered in order; an empty batch is -32600', async () => {
    const answer = await post(ref.rpcUrl, [
      request('eth_chainId'),
      { jsonrpc: '2.0', id: 'x', method: 'eth_getBlockReceipts', params: ['pending'] },
      { id: 3 },
    ]);
    expect(answer.body).toEqual([
      { jsonrpc: '2.0', id: answer.body[0].id, result: `0x${ref.chainId.toString(16)}` },
      { jsonrpc: '2.0', id: 'x', result: expect.any(Array) },
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: expect.any(String) } },
    ]);
    expect((await post(ref.rpcUrl, [])).body.error.code).toBe(-32600);
  });

  test('oversized bodies are refused with 413; GET with 405', async () => {
    const big = await post(ref.rpcUrl, { ...request('eth_chainId'), pad: 'x'.repeat(1024 * 1024) });
    expect(big.status).toBe(413);
    const get = await fetch(ref.rpcUrl);
    expect(get.status).toBe(405);
    expect(get.headers.get('content-type')).toBe('application/json');
  });

  test('other methods pass through to the node (viem works end to end)', async () => {
    const { publicClient } = clients(ref);
    expect(await publicClient.getChainId()).toBe(ref.chainId);
    const block = await publicClient.getBlock({ blockTag: 'latest' });
    expect(block.number).toBeGreaterThan(0n);
    expect(await publicClient.estimateFeesPerGas()).toHaveProperty('maxFeePerGas');
    expect(Array.isArray(await rpc(ref.rpcUrl, 'eth_getBlockReceipts', ['latest']))).toBe(true);
  });
});

describe('public profile', () => {
  test('eth_getBlockReceipts is HTTP 403, alone or in a batch; other calls are served', async () => {
    const pub = await startReference({ profile: 'public', blockTimeMs: BLOCK_TIME_MS });
    try {
      expect(pub.profile).toBe('public');
      for (const tag of ['latest', 'pending']) {
        const single = await post(pub.rpcUrl, request('eth_getBlockReceipts', [tag]));
        expect(single.status).toBe(403);
        expect(single.contentType).toBe('application/json');
      }
      const batch = await post(pub.rpcUrl, [request('eth_chainId'), request('eth_getBlockReceipts', ['latest'])]);
      expect(batch.status).toBe(403);
      const ok = await post(pub.rpcUrl, [request('eth_chainId'), request('eth_getCode', [pub.tokens[0].address, 'pending'])]);
      expect(ok.status).toBe(200);
      expect(ok.body[1].result).not.toBe('0x');
    } finally {
      await pub.stop();
    }
  });
});
