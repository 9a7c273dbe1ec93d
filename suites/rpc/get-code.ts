/** Spec 4.6 (eth_getCode) with every block parameter of 4.2, and the code of a real contract. */
import type { Hex } from 'viem';
import { viem } from '../../src/harness/viem';
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, inconclusive, skip } from '../../src/harness/verdict';
import { expectEqual, expectSchema } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { isEvmAddress, isHexQuantity } from '../../src/harness/formats';
import { randomAddress, toQuantity } from '../../src/harness/hex';
import { blockParam, describeParam, headNumber, recentBlocks, resultAt, skewPause, SKEW_PAUSES_MS, type BlockParamKey } from '../../src/harness/chain';

/** One check per block parameter of 4.2; "pending" also enforces 1.4. */
const CODE_AT: Array<[id: string, statements: string[], key: BlockParamKey]> = [
  ['rpc.getCode.block.latest', ['4.6.1', '4.2.2'], 'latest'],
  ['rpc.getCode.block.pending', ['4.6.1', '4.2.2', '1.4.1'], 'pending'],
  ['rpc.getCode.block.safe', ['4.6.1', '4.2.2'], 'safe'],
  ['rpc.getCode.block.finalized', ['4.6.1', '4.2.2'], 'finalized'],
  ['rpc.getCode.block.earliest', ['4.6.1', '4.2.2'], 'earliest'],
  ['rpc.getCode.block.head-number', ['4.6.1', '4.2.2'], 'head-number'],
];

/** A freshly generated address has no code at any block: the result is exactly "0x" (4.6). */
function codeAtBlock([id, statements, key]: (typeof CODE_AT)[number]): Check {
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rpc'],
      title: `eth_getCode of a fresh address at ${describeParam(key)} is exactly "0x"`,
    },
    async (ctx) => {
      const param = await blockParam(ctx, key);
      const code = await resultAt(ctx, 'eth_getCode', [randomAddress(), param], key);
      expectSchema('hexBytes', code, `eth_getCode at ${param}`, ['4.6.1']);
      expectEqual(code, '0x', `eth_getCode of a fresh address at ${param}`, ['4.6.1']);
    },
  );
}

/** Where to look for a contract: the latest blocks, then the first ones (a young chain's deployments). */
const RECENT_BLOCKS = 16;
const FIRST_BLOCKS = 8;
/** At most this many addresses are probed with eth_getCode. */
const MAX_PROBES = 16;

/**
 * A contract of the chain, found without any spec knowledge of it: the recipients of recent
 * transactions and the addresses created by recent deployments (sender + nonce), probed with
 * eth_getCode at `at` ("latest", or a block number) until one answers something other than "0x".
 * Returns that address and the code it answered (the observation the check judges).
 */
export async function findContract(ctx: CheckContext<'rpc'>, at = 'latest'): Promise<{ address: Hex; code: unknown } | undefined> {
  const probed = new Set<string>();
  for await (const block of recentBlocks(ctx, { recent: RECENT_BLOCKS, first: FIRST_BLOCKS })) {
    for (const tx of block.txs) {
      let candidate: string | undefined;
      if (isEvmAddress(tx.to)) candidate = tx.to!;
      else if ((tx.to === null || tx.to === undefined) && isEvmAddress(tx.from) && isHexQuantity(tx.nonce)) {
        candidate = viem().getContractAddress({ from: tx.from as Hex, nonce: BigInt(tx.nonce!) });
      }
      if (!candidate || probed.has(candidate.toLowerCase())) continue;
      if (probed.size >= MAX_PROBES) return undefined;
      probed.add(candidate.toLowerCase());
      const a = await ctx.rpc.call('eth_getCode', [candidate, at]);
      if (a.http.status === 200 && a.hasResult && a.result !== '0x' && a.result !== null) return { address: candidate as Hex, code: a.result };
    }
  }
  return undefined;
}

export const NO_CONTRACT = `no contract found among the recipients and deployments of the latest ${RECENT_BLOCKS} and first ${FIRST_BLOCKS} blocks (at most ${MAX_PROBES} addresses probed)`;

const contractCodeLatest = check(
  {
    id: 'rpc.getCode.contract.latest',
    statements: ['4.6.1'],
    level: 'required',
    needs: ['rpc'],
    title: 'eth_getCode of a contract of the chain at "latest" is its bytecode',
  },
  async (ctx) => {
    const found = await findContract(ctx);
    if (!found) skip(NO_CONTRACT);
    ctx.note(`contract ${found.address}`);
    expectSchema('hexBytes', found.code, `eth_getCode(${found.address}, "latest")`);
  },
);

/** An EIP-7702 delegation (0xef0100 + an address): an account's code a later transaction may clear, unlike a contract's. */
export const isDelegation = (code: unknown) => typeof code === 'string' && /^0xef0100[0-9a-f]{40}$/i.test(code);

const contractCodePending = check(
  {
    id: 'rpc.getCode.contract.pending',
    statements: ['4.6.1', '1.4.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: 'eth_getCode of a contract of the chain at "pending" is its code, not "0x"',
  },
  async (ctx) => {
    const found = await findContract(ctx);
    if (!found) skip(NO_CONTRACT);
    ctx.note(`contract ${found.address}`);
    const at = `eth_getCode(${found.address}, "pending")`;
    const code = await resultAt(ctx, 'eth_getCode', [found.address, 'pending'], 'pending');
    expectSchema('hexBytes', code, at, ['4.6.1']);
    if (code !== '0x' || isDelegation(found.code)) {
      if (code !== found.code) ctx.note(`code at "pending" differs from "latest" (${show(code, 40)} vs ${show(found.code, 40)})`);
      return;
    }
    // The pre-confirmed state is the sealed one plus what was accepted since (1.4): a contract's
    // sealed code is there (since Cancun no transaction removes it), and "0x" says there is none
    // (4.6). Code two blocks below the head is on every backend within the skew bound (a block):
    // "0x" is then a violation as read, which no later answer takes back (a fleet's bad backend is
    // met on some reads only). Younger code may not have reached a backend a block behind: that
    // "0x" is read again; cleared, the read is not judged, and only "0x" on every read fails.
    const head = await headNumber(ctx);
    const below = head >= 2n ? toQuantity(head - 2n) : undefined;
    const settled = below ? await ctx.rpc.call('eth_getCode', [found.address, below]) : undefined;
    const settledCode = settled?.hasResult && typeof settled.result === 'string' && settled.result !== '0x' ? settled.result : undefined;
    const violation = (words: string, code: string) =>
      fail(`${at} answered "0x" ${words}: the pre-confirmed state is the sealed state plus the transactions accepted since, and "0x" means no code`, {
        violated: ['1.4.1', '4.6.1'],
        expected: `its code (${show(code, 40)})`,
        actual: '0x',
      });
    if (settledCode) violation(`for a contract that had code at block ${below}, two below the head ${toQuantity(head)}`, settledCode);
    for (let attempt = 1; attempt <= SKEW_PAUSES_MS.length; attempt++) {
      ctx.note(`attempt ${attempt}: "pending" answered "0x" for a contract younger than two blocks; re-reading (a backend a block behind?)`);
      await skewPause(ctx, attempt - 1);
      const again = await resultAt(ctx, 'eth_getCode', [found.address, 'pending'], 'pending');
      expectSchema('hexBytes', again, at, ['4.6.1']);
      if (again !== '0x')
        inconclusive(`${at} answered "0x" for a contract younger than two blocks, then its code: a backend a block behind, or one without it? not judged`);
    }
    const latest = await resultAt(ctx, 'eth_getCode', [found.address, 'latest'], 'latest');
    if (latest === '0x' || typeof latest !== 'string')
      inconclusive(`"latest" no longer gives ${found.address} code (${show(latest, 40)}): a reorg? not judged`);
    violation(
      `in each of ${SKEW_PAUSES_MS.length + 1} reads over ${SKEW_PAUSES_MS.reduce((a, b) => a + b, 0)} ms, for a contract whose sealed code "latest" gives (read after)`,
      latest,
    );
  },
);

export const codeChecks: Check[] = [...CODE_AT.map(codeAtBlock), contractCodeLatest, contractCodePending];
