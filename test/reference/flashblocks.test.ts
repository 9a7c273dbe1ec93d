// The default model of the reference target: pre-confirmed state published on flashblock
// ticks (200 ms inside 2 s blocks, Base's cadence), as a Flashblocks node shows it.
//
// Timing assertions are bounds chosen to separate the models (instant, next tick, N ticks
// late) with room for a loaded 2-core machine: the reference runs in this very process, so
// a busy event loop delays both the ticks and our observation of them. Where a probe can race
// a tick by chance (a tick falling between the send's answer and the probe), the test tries
// again instead of asserting on luck; a model that is wrong fails every attempt.
import { getContractAddress, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEFAULT_FLASHBLOCK_MS, startReference, ZERO_HASH, type ReferenceTarget } from '../../src/reference';
import { clients, nextBlock, pendingCount, post, RECIPIENT, request, rpc, send, sign, visibleAfter, waitFor } from './helpers';

const FB = DEFAULT_FLASHBLOCK_MS;
/**
 * Scheduling slack on a loaded machine: timers and the observing loop share one event loop.
 * A CI run with four workers on two cores showed a transaction due 400-500 ms after its send
 * 834 ms after it (stalls of some 330 ms). 2 × FB + SLACK_MS stays well short of a seal 2 s away.
 */
const SLACK_MS = 600;

// Init code that returns the 10-byte runtime 602a60005260206000f3 (which returns 42).
const RUNTIME: Hex = '0x602a60005260206000f3';
const DEPLOY: Hex = `0x600a600c600039600a6000f3${RUNTIME.slice(2)}`;

interface Receipt {
  transactionHash: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  status: Hex;
  [field: string]: unknown;
}

interface Block {
  number: Hex;
  hash: Hex;
  transactions: Hex[];
}

const hex = (n: number): Hex => `0x${n.toString(16)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let ref: ReferenceTarget;

beforeAll(async () => {
  ref = await startReference(); // the defaults: 2000 ms blocks, 200 ms flashblocks
  expect([ref.blockTimeMs, ref.flashblockMs, ref.inclusionDelayFlashblocks, ref.blockNumberMode]).toEqual([2000, 200, 0, 'sealed']);
});

afterAll(() => ref?.stop());

describe('pre-confirmed receipts and the pending block', () => {
  test("before the seal: zero block hash and the number of the block being built; after it: the sealed block's hash, also in eth_getBlockReceipts(n)", async () => {
    const url = ref.rpcUrl;
    const head = await nextBlock(url); // a fresh 2 s block: the tick lands long before the seal
    const nonce = await pendingCount(ref);
    const { hash } = await send(ref, await sign(ref, nonce));
    const pre = await waitFor(
      'the pre-confirmed receipt',
      async () => (await rpc<Receipt | null>(url, 'eth_getTransactionReceipt', [hash])) ?? undefined,
      2 * FB + SLACK_MS,
      5,
    );
    expect(pre).toMatchObject({ transactionHash: hash, blockHash: ZERO_HASH, blockNumber: hex(head + 1), status: '0x1' });
    expect((pre.logs as unknown[]).length).toBe(0);

    // Still the same block: latest knows nothing, "pending" shows the block being built.
    expect(Number(await rpc(url, 'eth_blockNumber'))).toBe(head);
    expect(Number(await rpc(url, 'eth_getTransactionCount', [clients(ref).account.address, 'latest']))).toBe(nonce);
    const pending = await rpc<Block>(url, 'eth_getBlockByNumber', ['pending', false]);
    expect([pending.number, pending.hash]).toEqual([hex(head + 1), ZERO_HASH]);
    expect(pending.transactions).toContain(hash);
    const pendingReceipts = await rpc<Receipt[]>(url, 'eth_getBlockReceipts', ['pending']);
    expect(pendingReceipts.find((r) => r.transactionHash === hash)).toEqual(pre);
    expect(pendingReceipts.every((r) => r.blockHash === ZERO_HASH && r.blockNumber === hex(head + 1))).toBe(true);
    expect(Number(await rpc(url, 'eth_blockNumber'))).toBe(head); // the reads above were all before the seal

    await waitFor('the seal', async () => (Number(await rpc(url, 'eth_blockNumber')) > head ? true : undefined), ref.blockTimeMs + SLACK_MS, 5);
    const sealed = await rpc<Receipt>(url, 'eth_getTransactionReceipt', [hash]);
    const block = await rpc<Block>(url, 'eth_getBlockByNumber', [hex(head + 1), false]);
    expect(block.hash).not.toBe(ZERO_HASH);
    expect(block.transactions).toContain(hash);
    expect([sealed.blockHash, sealed.blockNumber]).toEqual([block.hash, hex(head + 1)]);
    const inBlock = (await rpc<Receipt[]>(url, 'eth_getBlockReceipts', [hex(head + 1)])).find((r) => r.transactionHash === hash);
    expect(inBlock).toEqual(sealed);
    // The pre-confirmation told the truth: same place in the block, same gas, same outcome.
    for (const field of ['transactionIndex', 'gasUsed', 'cumulativeGasUsed', 'status', 'from', 'to', 'logsBloom', 'type']) {
      expect([field, sealed[field]]).toEqual([field, pre[field]]);
    }
  });

  test('before the first flashblock of a block, "pending" answers as "latest"', async () => {
    const url = ref.rpcUrl;
    // Right after a seal there is one flashblock period without a flashblock. Reading it
    // takes a few ms, but a slow machine may miss the window: up to three blocks.
    let observed = false;
    for (let attempt = 1; attempt <= 3 && !observed; attempt++) {
      await nextBlock(url);
      const latest = await rpc<Block>(url, 'eth_getBlockByNumber', ['latest', false]);
      const [pending, pendingReceipts, latestReceipts] = await Promise.all([
        rpc<Block>(url, 'eth_getBlockByNumber', ['pending', false]),
        rpc<Receipt[]>(url, 'eth_getBlockReceipts', ['pending']),
        rpc<Receipt[]>(url, 'eth_getBlockReceipts', ['latest']),
      ]);
      const latestAfter = await rpc<Block>(url, 'eth_getBlockByNumber', ['latest', false]);
      if (pending.number !== latest.number || latestAfter.hash !== latest.hash) {
        console.log(`fallback window missed (attempt ${attempt}): pending ${pending.number}, latest ${latest.number}`);
        continue;
      }
      expect(pending).toEqual(latest);
      expect(pendingReceipts).toEqual(latestReceipts);
      observed = true;
    }
    expect(observed).toBe(true);
  });
});

describe('flashblock timing', () => {
  test('a transaction is not at "pending" when the send answers; it shows in all four methods at once', async () => {
    const url = ref.rpcUrl;
    const { account } = clients(ref);
    let judged = false;
    // A tick between the send and the end of the probe leaves nothing to judge: another attempt.
    // Under a loaded CI (sends and probes of tens of ms against 200 ms ticks) three were too few.
    for (let attempt = 1; attempt <= 6 && !judged; attempt++) {
      // Mid-block, so the flashblock that carries it is not the seal.
      await nextBlock(url);
      await sleep(FB + Math.random() * 4 * FB);
      const nonce = await pendingCount(ref);
      const address = getContractAddress({ from: account.address, nonce: BigInt(nonce) });
      const raw = await sign(ref, nonce, { to: null, value: 0n, data: DEPLOY, gas: 100_000n });
      const { hash, answeredAt, sendMs } = await send(ref, raw);
      const look = async () => {
        const [count, code, estimate, receipt, block, receipts] = await Promise.all([
          pendingCount(ref),
          rpc<Hex>(url, 'eth_getCode', [address, 'pending']),
          rpc<Hex>(url, 'eth_estimateGas', [{ from: account.address, to: address }, 'pending']),
          rpc<Receipt | null>(url, 'eth_getTransactionReceipt', [hash]),
          rpc<Block>(url, 'eth_getBlockByNumber', ['pending', false]),
          rpc<Receipt[]>(url, 'eth_getBlockReceipts', ['pending']),
        ]);
        return {
          count: count > nonce,
          code: code === RUNTIME,
          // A call to an account without code costs exactly 21000; to the contract, more.
          estimate: Number(estimate) > 21_000,
          receipt: receipt !== null,
          block: block.transactions.includes(hash),
          receipts: receipts.some((r) => r.transactionHash === hash),
        };
      };
      const probe = await look();
      const probeMs = performance.now() - answeredAt;
      if (Object.values(probe).some(Boolean)) {
        console.log(`attempt ${attempt}: a tick fell within the ${probeMs.toFixed(1)} ms probe after the send (${JSON.stringify(probe)}); again`);
        continue;
      }
      const latency = await visibleAfter(ref, nonce, answeredAt);
      // One flashblock publishes it for every method at once.
      expect(await look()).toEqual({ count: true, code: true, estimate: true, receipt: true, block: true, receipts: true });
      // How soon (within a tick) is measured by `npm run bench`, not asserted here.
      console.log(
        `send answered in ${sendMs.toFixed(1)} ms; not visible in a ${probeMs.toFixed(1)} ms probe; visible ${latency.toFixed(1)} ms after the answer`,
      );
      judged = true;
    }
    expect(judged).toBe(true);
  });
});

describe('invalid sends', () => {
  test("are answered with the mempool's error at once: nonce too low (below latest, or already pre-confirmed), insufficient funds", async () => {
    const url = ref.rpcUrl;
    const { account } = clients(ref);
    const latest = Number(await rpc(url, 'eth_getTransactionCount', [account.address, 'latest']));
    expect(latest).toBeGreaterThan(0); // the signer deployed the catalogue
    const errorOf = async (raw: Hex) => {
      const t = performance.now();
      const answer = await post(url, request('eth_sendRawTransaction', [raw]));
      return { error: answer.body.error, ms: performance.now() - t };
    };

    const stale = await errorOf(await sign(ref, latest - 1, { value: 7n }));
    expect(stale.error).toMatchObject({ code: -32003, message: expect.stringMatching(/nonce too low/) });

    // A nonce whose transaction is already pre-confirmed is spent, even before the seal.
    const nonce = await pendingCount(ref);
    const { answeredAt } = await send(ref, await sign(ref, nonce, { value: 1n }));
    await visibleAfter(ref, nonce, answeredAt);
    const spent = await errorOf(await sign(ref, nonce, { value: 2n, maxFeePerGas: parseEther('0.0000001'), maxPriorityFeePerGas: 2_000_000n }));
    expect(spent.error).toMatchObject({ code: -32003, message: expect.stringMatching(/nonce too low/) });

    const pauper = privateKeyToAccount(generatePrivateKey());
    const poor = await errorOf(await sign(ref, 0, {}, pauper));
    expect(poor.error).toMatchObject({ code: -32003, message: expect.stringMatching(/insufficient funds/i) });
    console.log(
      `error answers: nonce below latest ${stale.ms.toFixed(1)} ms, pre-confirmed nonce ${spent.ms.toFixed(1)} ms, insufficient funds ${poor.ms.toFixed(1)} ms`,
    );
  });
});

describe('eth_sendTransaction (an unlocked dev account)', () => {
  test('is held like a raw transaction: back-to-back sends get consecutive nonces and show at the next flashblock', async () => {
    const url = ref.rpcUrl;
    const from: Hex = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'; // anvil's second dev account
    await nextBlock(url); // both land in the block's first flashblock, long before the seal
    const start = await pendingCount(ref, from);
    const tx = { from, to: RECIPIENT, value: '0x1' };
    const a = await rpc<Hex>(url, 'eth_sendTransaction', [tx]);
    // anvil numbers a new transaction from its pool; the first one is held outside it, and
    // must still count: the second gets the next nonce, not the same one.
    const b = await rpc<Hex>(url, 'eth_sendTransaction', [tx]);
    expect(b).not.toBe(a);
    await waitFor('both at "pending"', async () => ((await pendingCount(ref, from)) === start + 2 ? true : undefined), 2 * FB + SLACK_MS, 2);
    const receipts = await Promise.all([a, b].map((h) => rpc<Receipt>(url, 'eth_getTransactionReceipt', [h])));
    expect(receipts.map((r) => r.status)).toEqual(['0x1', '0x1']);
    const txs = await Promise.all([a, b].map((h) => rpc<{ nonce: Hex }>(url, 'eth_getTransactionByHash', [h])));
    expect(txs.map((t) => Number(t.nonce))).toEqual([start, start + 1]);
  });
});

describe('knobs', () => {
  // inclusionDelayFlashblocks 8 with 100 ms flashblocks: a transaction lands in the ninth
  // flashblock after its acceptance, i.e. 800..900 ms later: long enough to hold transactions
  // while a test sends more, even in a CI where the event loop stalls for 300 ms (measured:
  // the 4-late transactions of the first version showed up to 434 ms late). 3 s blocks keep
  // a seal from overtaking the held transactions of a test that starts right after one.
  const DELAY = 8;
  const FAST_FB = 100;
  let late: ReferenceTarget;
  const lateLog: string[] = [];

  beforeAll(async () => {
    late = await startReference({ blockTimeMs: 3000, flashblockMs: FAST_FB, inclusionDelayFlashblocks: DELAY, log: (line) => void lateLog.push(line) });
  });

  afterAll(() => late?.stop());

  test('inclusionDelayFlashblocks: a transaction shows N flashblocks after the next one, not earlier', async () => {
    let nonce = await pendingCount(late);
    const latencies: number[] = [];
    for (let i = 0; i < 4; i++, nonce++) {
      const raw = await sign(late, nonce);
      await sleep(Math.random() * FAST_FB);
      // Timed from before the send: the acceptance happens after it, so the bound below holds however long the answer took.
      const { answeredAt, sendMs } = await send(late, raw);
      latencies.push(await visibleAfter(late, nonce, answeredAt - sendMs));
    }
    console.log(
      `inclusionDelayFlashblocks ${DELAY}, ${FAST_FB} ms flashblocks: visible (from the send) after ${latencies.map((l) => l.toFixed(0)).join(' ')} ms`,
    );
    // Never before the (DELAY+1)-th tick: at least DELAY whole periods after the acceptance, which
    // comes after the send began (less a timer's early wake-up). A loaded machine can only make it
    // later; how much later is the bench's to measure.
    for (const l of latencies) expect(l).toBeGreaterThan(DELAY * FAST_FB - 5);
  });

  test('held transactions are validated as a mempool does: duplicates, underpriced and valid replacements', async () => {
    // The delay keeps them held (not pre-confirmed) for at least 800 ms: room for the sends.
    const url = late.rpcUrl;
    const nonce = await pendingCount(late);
    const first = await sign(late, nonce, { value: 1n });
    const { hash: firstHash } = await send(late, first);
    const again = await post(url, request('eth_sendRawTransaction', [first]));
    expect(again.body.error).toMatchObject({ code: -32003, message: 'transaction already imported' });
    const cheap = await post(url, request('eth_sendRawTransaction', [await sign(late, nonce, { value: 2n })]));
    expect(cheap.body.error).toMatchObject({ code: -32003, message: 'replacement transaction underpriced' });
    // A held transaction of the same sender with a later nonce queues behind it.
    const next = await send(late, await sign(late, nonce + 1, { value: 3n }));
    const bumped = await send(late, await sign(late, nonce, { value: 4n, maxFeePerGas: parseEther('0.0000001'), maxPriorityFeePerGas: 2_000_000n }));
    expect(await pendingCount(late)).toBe(nonce); // all still held

    await visibleAfter(late, nonce + 1, bumped.answeredAt);
    const block = await rpc<Block>(url, 'eth_getBlockByNumber', ['pending', false]);
    const receipt = await rpc<Receipt | null>(url, 'eth_getTransactionReceipt', [bumped.hash]);
    expect(receipt?.status).toBe('0x1');
    expect(await rpc(url, 'eth_getTransactionReceipt', [firstHash])).toBeNull(); // replaced, never pre-confirmed
    expect(await rpc(url, 'eth_getTransactionReceipt', [next.hash])).not.toBeNull();
    if (block.number === receipt?.blockNumber) expect(block.transactions).not.toContain(firstHash);
  });

  test('a held transaction anvil already has when its flashblock comes ("already imported") is logged with where anvil keeps it', async () => {
    // Seen twice under load: anvil answered "already imported" for two held transactions, which
    // were then never counted nor sealed (left queued ahead of a nonce gap: the tests below).
    // Here the transaction reaches anvil behind the gateway's back,
    // right after a seal: held 800-900 ms, it is published 2 s before the next seal could mine it.
    await nextBlock(late.rpcUrl);
    const nonce = await pendingCount(late);
    const raw = await sign(late, nonce);
    await send(late, raw);
    await rpc(late.anvilUrl, 'eth_sendRawTransaction', [raw]);
    const from = clients(late).account.address.toLowerCase();
    const said = await waitFor('the log line', async () => lateLog.find((l) => l.includes(`anvil's pool for ${from}`)), 3_000);
    expect(said).toBe(
      `flashblocks: anvil's pool for ${from} after "already imported" for nonces ${nonce}: pending nonces ${nonce}, queued none; counts latest ${nonce}, pending ${nonce + 1}`,
    );
  });

  /** The nonces anvil holds queued (ahead of a gap) for `address`: the gateway must leave none. */
  const anvilQueued = async (address: string) => {
    const pool = await rpc<{ queued: Record<string, Record<string, unknown>> }>(late.anvilUrl, 'txpool_content');
    return Object.entries(pool.queued).flatMap(([from, byNonce]) => (from.toLowerCase() === address.toLowerCase() ? Object.keys(byNonce) : []));
  };

  test('a transaction sent ahead of a nonce gap stays held until the gap fills, and nothing of it stays in anvil meanwhile', async () => {
    // The pass sends an attempt's transactions concurrently, so they may arrive out of order.
    // anvil queues one ahead of a gap and anvil_dropTransaction leaves queued ones alone: the
    // gateway once published it ("already imported", so forgotten), and the gap's filler then
    // took it out of anvil with its own drop: accepted, never counted nor sealed.
    const logged = lateLog.length;
    const nonce = await pendingCount(late);
    await send(late, await sign(late, nonce + 1));
    await sleep((DELAY + 2) * FAST_FB); // past its due time
    expect(await pendingCount(late)).toBe(nonce);
    expect(await anvilQueued(clients(late).account.address)).toEqual([]);
    const filler = await send(late, await sign(late, nonce));
    await visibleAfter(late, nonce + 1, filler.answeredAt); // both: the count passes nonce + 1
    expect(await pendingCount(late)).toBe(nonce + 2);
    expect(lateLog.slice(logged)).toEqual([]);
  });

  test("clearing what anvil queued keeps the pre-confirmed block's order", async () => {
    // The sender's pre-confirmed transaction comes back into anvil's pool with what followed it:
    // resubmitted alone, it would move behind another sender's, and the sealed block would not be the one pre-confirmed.
    const url = late.rpcUrl;
    const other: Hex = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'; // anvil's second dev account
    let judged = false;
    for (let attempt = 1; attempt <= 3 && !judged; attempt++) {
      const head = await nextBlock(url);
      const nonce = await pendingCount(late);
      const otherCount = await pendingCount(late, other);
      await send(late, await sign(late, nonce));
      await rpc(url, 'eth_sendTransaction', [{ from: other, to: RECIPIENT, value: '0x1' }]);
      await waitFor(
        'both at "pending"',
        async () => ((await pendingCount(late)) > nonce && (await pendingCount(late, other)) > otherCount ? true : undefined),
        3_000,
        5,
      );
      const beforeBlock = await rpc<Block>(url, 'eth_getBlockByNumber', ['pending', false]);
      const before = beforeBlock.transactions;
      await send(late, await sign(late, nonce + 2)); // ahead of a gap: what anvil queued is cleared at once
      const after = await rpc<Block>(url, 'eth_getBlockByNumber', ['pending', false]);
      const filler = await send(late, await sign(late, nonce + 1));
      await visibleAfter(late, nonce + 2, filler.answeredAt); // the gap filled: both follow
      // Both reads of the block being built (a seal before its first flashblock falls back to "latest").
      if (Number(after.number) !== head + 1 || after.hash !== ZERO_HASH || beforeBlock.hash !== ZERO_HASH || before.length !== 2) {
        console.log(`attempt ${attempt}: a seal came between the reads (pending block ${after.number}, head was ${head}); again`);
        continue;
      }
      expect(after.transactions).toEqual(before);
      judged = true;
    }
    expect(judged).toBe(true);
  });

  test('eth_sendTransaction without a nonce, beside a transaction held ahead of a gap, leaves nothing queued in anvil', async () => {
    const { account } = clients(late);
    const nonce = await pendingCount(late);
    await send(late, await sign(late, nonce + 2)); // held ahead of a gap
    await rpc(late.rpcUrl, 'eth_sendTransaction', [{ from: account.address, to: RECIPIENT, value: '0x1' }]); // anvil numbers it: nonce
    expect(await anvilQueued(account.address)).toEqual([]);
    const filler = await send(late, await sign(late, nonce + 1));
    await visibleAfter(late, nonce + 2, filler.answeredAt); // all three
  });

  test("a transaction anvil refuses at its flashblock (funds spent meanwhile) leaves the sender's later ones held, none queued in anvil", async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    const nonce = await pendingCount(late);
    const funding = await send(late, await sign(late, nonce, { to: poor.address, value: parseEther('1') }));
    await visibleAfter(late, nonce, funding.answeredAt);
    await late.controls.seal();
    const spend = (nonce: number, value: bigint) => sign(late, nonce, { value }, poor);
    const first = await send(late, await spend(0, parseEther('0.5')));
    await waitFor('the first at "pending"', async () => ((await pendingCount(late, poor.address)) === 1 ? true : undefined), 3_000, 5);
    // Each valid against the balance when accepted; after the first is sealed the second is not.
    await send(late, await spend(1, parseEther('0.6')));
    await send(late, await spend(2, 1n));
    await late.controls.seal();
    await sleep((DELAY + 2) * FAST_FB); // past their flashblock: the second refused, the third held again
    expect(await anvilQueued(poor.address)).toEqual([]);
    expect(await pendingCount(late, poor.address)).toBe(1);
    const filler = await send(late, await spend(1, 1n)); // the gap filled: the third follows
    await waitFor('the filler and the third at "pending"', async () => ((await pendingCount(late, poor.address)) === 3 ? true : undefined), 3_000, 5);
    expect(first.hash).not.toBe(filler.hash);
  });

  test('evictQueued drops what is held ahead of a nonce gap, and only that', async () => {
    const nonce = await pendingCount(late);
    const { account } = clients(late);
    await send(late, await sign(late, nonce)); // held, then pre-confirmed: stays
    await send(late, await sign(late, nonce + 2)); // ahead of a gap: goes
    expect(await late.controls.evictQueued(account.address)).toBe(1);
    const filler = await send(late, await sign(late, nonce + 1));
    await visibleAfter(late, nonce + 1, filler.answeredAt);
    await sleep((DELAY + 2) * FAST_FB);
    expect(await pendingCount(late)).toBe(nonce + 2);
  });

  test('blockNumberMode building: eth_blockNumber reports the block being built once it has a flashblock', async () => {
    const building = await startReference({ blockTimeMs: 1000, flashblockMs: FAST_FB, blockNumberMode: 'building' });
    try {
      const url = building.rpcUrl;
      const seen: Array<{ head: number; reported: number }> = [];
      const deadline = Date.now() + 2_500;
      while (Date.now() < deadline) {
        const before = await rpc<Block>(url, 'eth_getBlockByNumber', ['latest', false]);
        const reported = Number(await rpc(url, 'eth_blockNumber'));
        const after = await rpc<Block>(url, 'eth_getBlockByNumber', ['latest', false]);
        if (before.hash === after.hash) seen.push({ head: Number(before.number), reported });
        await sleep(10);
      }
      console.log(`building mode: ${seen.length} stable reads, ${seen.filter((s) => s.reported === s.head + 1).length} reported head+1`);
      for (const s of seen) expect([s.head, s.head + 1]).toContain(s.reported);
      // 9 of 10 flashblock periods of a block have a flashblock: head+1 dominates.
      expect(seen.filter((s) => s.reported === s.head + 1).length).toBeGreaterThan(seen.length / 2);
      const reported = seen.map((s) => s.reported);
      for (let i = 1; i < reported.length; i++) expect(reported[i]).toBeGreaterThanOrEqual(reported[i - 1]);

      // It is the number the pre-confirmed block and its receipts carry.
      const nonce = await pendingCount(building);
      const { hash } = await send(building, await sign(building, nonce));
      const pre = await waitFor(
        'the pre-confirmed receipt',
        async () => (await rpc<Receipt | null>(url, 'eth_getTransactionReceipt', [hash])) ?? undefined,
        2 * FAST_FB + SLACK_MS,
        5,
      );
      const number = Number(await rpc(url, 'eth_blockNumber'));
      const stillPending = await rpc<Receipt>(url, 'eth_getTransactionReceipt', [hash]);
      if (stillPending.blockHash === ZERO_HASH) expect(hex(number)).toBe(pre.blockNumber);
    } finally {
      await building.stop();
    }
  });

  test('the default blockNumberMode reports the sealed head', async () => {
    let stable = 0;
    for (let i = 0; i < 40; i++) {
      const before = await rpc<Block>(ref.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
      const reported = Number(await rpc(ref.rpcUrl, 'eth_blockNumber'));
      const after = await rpc<Block>(ref.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
      if (before.hash !== after.hash) continue;
      stable++;
      expect(reported).toBe(Number(before.number));
      await sleep(20);
    }
    expect(stable).toBeGreaterThan(20);
  });
});
