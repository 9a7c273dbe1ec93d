/**
 * Plumbing shared by the JSON-RPC checks: the block-parameter table of spec 4.2, learning the
 * head block number, reading a block to compare receipts with, and turning an answer into a
 * result with a section-precise failure. The rules themselves live in the check files.
 */
import { blocked, fail, inconclusive, notGiven, skip } from './verdict';
import type { CheckContext } from './check';
import { show, isRecord } from './json';
import { isHexQuantity } from './formats';
import { toQuantity, type BlockTag } from './hex';
import { expectServed, resultOf, RPC_ENVELOPE_ROOT } from './expect';
import type { RpcAnswer } from './rpc';
import { blockErrorKind } from './block-errors';

export { blockErrorKind };

/**
 * What the chain helpers need of a check's context; `shared` where there is one (a check's, or
 * a shared observation's scope), so the blocks several scans read are asked once (recentBlocks).
 */
export type ChainContext = Pick<CheckContext<'rpc'>, 'rpc' | 'note' | 'signal' | 'settings'> & Partial<Pick<CheckContext, 'shared'>>;

/**
 * The block parameters of spec 4.2: the five tags, and a block number as a hex string. For the
 * number the checks use the current head (`head-number`), learned at run time.
 */
export type BlockParamKey = BlockTag | 'head-number';

/** A short phrase naming a block parameter in titles. */
export function describeParam(key: BlockParamKey): string {
  return key === 'head-number' ? 'the head block number as hex' : `"${key}"`;
}

/**
 * A head block number as a number to count from: beyond 2^64 (clients store block numbers in 64
 * bits) it is no block number of any chain, and scanning back from it would hold megabytes per
 * block; the check that needed it is not judged.
 */
function blockNumber(hex: string): bigint {
  if (hex.length > 2 + 16)
    inconclusive(`the head block number has ${hex.length - 2} hex digits, beyond 2^64: not a block number this suite can count from (${show(hex, 40)})`);
  return BigInt(hex);
}

/**
 * The head (latest sealed) block number. eth_blockNumber is not one of the four methods of the
 * spec but a standard one; when it fails, `eth_getBlockByNumber("latest")` is asked instead.
 * Neither method is judged here: when both fail the check could not observe what it needs, so it
 * is inconclusive (not a skip: the rule is in scope, it just was not judged).
 */
export async function headNumber(ctx: Pick<CheckContext<'rpc'>, 'rpc' | 'note'>): Promise<bigint> {
  const a = await ctx.rpc.call('eth_blockNumber', []);
  if (a.http.status === 200 && isHexQuantity(a.result)) return blockNumber(a.result as string);
  const b = await ctx.rpc.call('eth_getBlockByNumber', ['latest', false]);
  if (b.http.status === 200 && isRecord(b.result) && isHexQuantity(b.result.number)) {
    ctx.note(`eth_blockNumber gave no hex quantity (${show(a.json ?? a.http.status)}); head taken from eth_getBlockByNumber("latest")`);
    return blockNumber(b.result.number as string);
  }
  const why =
    'cannot learn the head block number: eth_blockNumber and eth_getBlockByNumber("latest") both gave no hex number (neither is a method of the spec)';
  // Neither answer is a JSON-RPC object at all: the envelope broken on every method explains it,
  // when its check failed; otherwise this is no evidence of its own (the methods are not the spec's).
  if (!isRecord(a.json) && !isRecord(b.json))
    blocked(
      b.http.status !== 200 ? RPC_ENVELOPE_ROOT.status : RPC_ENVELOPE_ROOT.body,
      `${why}: HTTP ${b.http.status}, not a JSON object`,
      { violated: ['4.2.1'] },
      { onlyIfRootFailed: true },
    );
  inconclusive(why);
}

/** The value to send for a block parameter key. */
export async function blockParam(ctx: Pick<CheckContext<'rpc'>, 'rpc' | 'note'>, key: BlockParamKey): Promise<string> {
  if (key !== 'head-number') return key;
  const n = await headNumber(ctx);
  ctx.note(`block number used: ${toQuantity(n)} (${n})`);
  return toQuantity(n);
}

/** 1.4.1: each of the four methods accepts "pending"; 4.2.2: so does the block parameter. Refusing it violates both. */
const PENDING_REFUSED = ['1.4.1', '4.2.2'] as const;

// ---- load-balancer skew and pruned history -------------------------------------------------
//
// Behind one address, consecutive requests may reach backends a block or more apart: the head
// read from one may be unknown to the next ("header not found", null), "latest" may be one
// behind. Full nodes keep state (some, history) for recent blocks only: older reads answer
// "missing trie node" and the like. Neither is a violation on first sight: a block near the head
// is re-read after a pause (head re-read first), then inconclusive (two or more below the sealed
// head read before, it fails: answerAt); pruned is out of scope unless --archive (then 4.2).

export const SKEW_WINDOW = 4n; // backends behind one address may be this many blocks apart
/** A block this far or more below the sealed head read before a call is on every backend within a block of it: unknown there is no skew. */
export const UNKNOWN_BELOW_SEALED = 2n;
/** Pauses before the re-reads of a block that skew made unknown (a lagging backend catches up). */
export const SKEW_PAUSES_MS: readonly number[] = [250, 500, 1000];

/** Why a pruned-history read is skipped, and what the user's scope left out. */
export const PRUNED_REASON = 'node keeps no state this old (run with --archive to require it)';
export const NO_ARCHIVE = notGiven('--archive');

/** Where each method of the spec takes its block parameter. */
const BLOCK_POSITION: Record<string, number> = { eth_getBlockReceipts: 0, eth_estimateGas: 1, eth_getTransactionCount: 1, eth_getCode: 1 };

/**
 * Whether an answer at `block` is pruned history, load-balancer skew, or neither (then the
 * check judges it). Unknown-block texts mean skew near the head (re-read now) and expired
 * history far below it; pruned-state texts mean pruning below the head or at "earliest",
 * "safe", "finalized". Null for a number near the head is skew too (eth_getBlockReceipts of a
 * block the backend has not imported), and eth_getBlockReceipts' null far below it is pruned
 * history, as an unknown-block text is.
 */
async function troubleAt(
  ctx: ChainContext,
  method: string,
  answer: RpcAnswer,
  block: unknown,
): Promise<{ kind: 'pruned' | 'skew'; head?: bigint } | undefined> {
  const kind = blockErrorKind(answer);
  const isNull = !answer.hasError && answer.hasResult && answer.result === null;
  if ((!kind && !isNull) || typeof block !== 'string' || block === 'pending') return undefined;
  if (block === 'earliest') return kind ? { kind: 'pruned' } : undefined;
  if (block === 'safe' || block === 'finalized') return kind === 'pruned' ? { kind: 'pruned' } : undefined;
  if (block === 'latest') return kind === 'unknown-block' ? { kind: 'skew' } : undefined;
  if (!isHexQuantity(block)) return undefined;
  const n = BigInt(block);
  const head = await headNumber(ctx);
  if (kind === 'pruned') return n < head ? { kind: 'pruned', head } : undefined;
  if (n > head + SKEW_WINDOW) return undefined;
  if (n + SKEW_WINDOW >= head) return { kind: 'skew', head };
  // Far below the head, eth_getBlockReceipts' null is the "header not found" of the other methods:
  // a reth full node keeps bodies but prunes receipts older than 10064 blocks, and answers null.
  return kind === 'unknown-block' || (isNull && method === 'eth_getBlockReceipts') ? { kind: 'pruned', head } : undefined;
}

/** The pause before the `retry`-th re-read (0-based) of something skew made ambiguous; ends early when the check is stopped. */
export function skewPause(ctx: Pick<CheckContext, 'signal'>, retry: number): Promise<void> {
  return pause(SKEW_PAUSES_MS[Math.min(retry, SKEW_PAUSES_MS.length - 1)], ctx.signal);
}

/** Waits `ms` (bounded by the caller); ends early when the check is stopped. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => (clearTimeout(timer), signal.removeEventListener('abort', done), resolve());
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A read the node answered as pruned: out of the run's scope without --archive (skipped, with
 * outOfScope), a failure of 4.2 with it (the block parameter accepts any number and "earliest").
 */
export function prunedHistory(ctx: Pick<CheckContext, 'settings' | 'note'>, what: string, error: unknown): never {
  if (!ctx.settings.archive) {
    ctx.note(`${what} answered ${show(error)}: pruned state or history`);
    skip(PRUNED_REASON, { outOfScope: NO_ARCHIVE });
  }
  fail(
    `${what} answered ${show(error)}: the node keeps no state or history at that block, and --archive requires it (the block parameter accepts any block number and "earliest")`,
    {
      violated: ['4.2.2'],
      expected: 'a result: the state or history at that block (--archive)',
      actual: error,
    },
  );
}

/** The lane of the sealed head read before calls that bound by it, shared by the checks that make them. */
export const SEALED_HEAD_LANE = 'sealed-head';

/**
 * The latest sealed block's number from eth_getBlockByNumber("latest") (eth_blockNumber may name the
 * block being built), or undefined (not judged). Read once per run (per wave under --samples) where
 * observations are shared, by the first call that needs it: an older head only lowers the bound.
 */
export async function sealedHead(ctx: ChainContext): Promise<bigint | undefined> {
  const read = async (rpc: ChainContext['rpc']) => {
    const a = await rpc.call('eth_getBlockByNumber', ['latest', false]);
    const n = a.http.status === 200 && isRecord(a.result) ? a.result.number : undefined;
    return isHexQuantity(n) && (n as string).length <= 2 + 16 ? BigInt(n as string) : undefined;
  };
  return ctx.shared
    ? ctx.shared('chain.sealed-head', [SEALED_HEAD_LANE], (s) => read(s.rpc(SEALED_HEAD_LANE)), { keepIf: (n) => n !== undefined })
    : read(ctx.rpc);
}

/**
 * Call a method with a block parameter and return the answer, once it is neither skew nor pruned
 * history: a block near the head that the node did not know is re-read (head re-read first, at
 * most SKEW_PAUSES_MS.length times) and then inconclusive; pruned history goes to prunedHistory.
 * A block number (`number`) UNKNOWN_BELOW_SEALED or more below the sealed head read before the call
 * is on every backend within a block of it: called unknown, it fails as read (no skew explains it).
 */
export async function answerAt(ctx: ChainContext, method: string, params: unknown[], key: BlockParamKey | 'omitted' | 'number'): Promise<RpcAnswer> {
  const block = key === 'omitted' ? 'latest' : params[BLOCK_POSITION[method] ?? params.length - 1];
  const sealed = key === 'number' && isHexQuantity(block) ? await sealedHead(ctx) : undefined;
  for (let retry = 0; ; retry++) {
    const answer = await ctx.rpc.call(method, params);
    const trouble = await troubleAt(ctx, method, answer, block);
    if (!trouble) return answer;
    const said = answer.hasError ? (answer.error ?? (answer.json as Record<string, unknown>).error) : answer.result;
    if (trouble.kind === 'pruned') prunedHistory(ctx, `${method} at ${show(block)}`, said);
    const n = BigInt(block as string); // at or below the head read after: not a chain rewound past it (an unsafe-head reset)
    if (sealed !== undefined && n + UNKNOWN_BELOW_SEALED <= sealed && trouble.head !== undefined && n <= trouble.head) {
      fail(
        `${method} at ${show(block)} answered ${show(said)}${retry > 0 ? ` (attempt ${retry + 1})` : ''}, but block ${n} is ${sealed - n} below the sealed head ${toQuantity(sealed)} read before the call with eth_getBlockByNumber("latest") (the head read after: ${toQuantity(trouble.head)}): every backend within a block of that head has it, so no skew explains it; the block parameter accepts a block number the chain has`,
        {
          violated: ['4.2.2'],
          expected: `a result at block ${block as string} (sealed; the head read before was ${toQuantity(sealed)})`,
          actual: said,
        },
      );
    }
    const seen = `${method} at ${show(block)} answered ${show(said)}${trouble.head !== undefined ? ` while the head read just after was ${toQuantity(trouble.head)}` : ''}`;
    if (retry >= SKEW_PAUSES_MS.length) {
      inconclusive(
        `${seen}, in each of ${retry + 1} attempts: a block at or near the observed head stayed unknown (load-balanced backends a block or more apart?)`,
      );
    }
    ctx.note(`attempt ${retry + 1}: ${seen}; re-reading after ${SKEW_PAUSES_MS[retry]} ms (backends a block apart?)`);
    await pause(SKEW_PAUSES_MS[retry], ctx.signal);
  }
}

/**
 * Call a method with a block parameter and return its result (after answerAt's handling of skew
 * and pruned history); a refusal (an error, or no JSON-RPC result) fails on the statements
 * that parameter breaks (see PENDING_REFUSED).
 */
export async function resultAt<T = unknown>(
  ctx: ChainContext,
  method: string,
  params: unknown[],
  key: BlockParamKey | 'omitted' | 'number',
  refused403?: () => never,
): Promise<T> {
  return resultFrom<T>(method, await answerAt(ctx, method, params, key), key, refused403);
}

/** What resultAt judges of an answer answerAt gave: a refused block parameter, then resultOf. */
export function resultFrom<T = unknown>(method: string, answer: RpcAnswer, key: BlockParamKey | 'omitted' | 'number', refused403?: () => never): T {
  // A method the node does not serve is its root's to state, whatever the block parameter.
  expectServed(method, answer, method);
  if (key === 'pending' && answer.hasError && !(answer.http.status === 403 && refused403)) {
    fail(`${method} refused the block parameter "${key}": error ${show(answer.error ?? (answer.json as Record<string, unknown>).error)}`, {
      violated: PENDING_REFUSED,
      expected: 'a result (each of the four methods accepts "pending")',
      actual: (answer.json as Record<string, unknown>).error,
    });
  }
  const where = key === 'omitted' ? 'without a block parameter' : key === 'number' ? 'at a block number' : `at ${describeParam(key)}`;
  return resultOf<T>(method, answer, refused403, where);
}

/** What a check needs of a block to compare receipts with (eth_getBlockByNumber, hashes only). */
export interface BlockView {
  number?: bigint;
  hash?: string;
  /** Transaction hashes, lower-cased. */
  txs: string[];
  /** The block's gasUsed, when it is a hex quantity (what its receipts' gasUsed add up to, 4.3). */
  gasUsed?: bigint;
}

/**
 * Read a block with eth_getBlockByNumber(param, false). That method is not one of the spec's
 * four, so an answer that is not a usable block object is "not offered" (undefined), never a
 * verdict. A block without a number or hash (as some nodes show "pending") keeps them undefined.
 * A block number at or near the head that reads as nothing is re-read (skew, see resultAt).
 */
export async function readBlock(ctx: Pick<CheckContext<'rpc'>, 'rpc' | 'note' | 'signal'>, param: string): Promise<BlockView | undefined> {
  for (let retry = 0; ; retry++) {
    const a = await ctx.rpc.call('eth_getBlockByNumber', [param, false]);
    const b = a.http.status === 200 ? a.result : undefined;
    if (isRecord(b) && Array.isArray(b.transactions)) return blockView(b);
    if (!isHexQuantity(param) || retry >= SKEW_PAUSES_MS.length || ctx.signal.aborted) return undefined;
    const head = await headNumber(ctx);
    if (BigInt(param) + SKEW_WINDOW < head || BigInt(param) > head + SKEW_WINDOW) return undefined;
    ctx.note(
      `eth_getBlockByNumber(${show(param)}) answered ${show(a.json ?? a.http.status, 80)} with the head at ${toQuantity(head)}; re-reading after ${SKEW_PAUSES_MS[retry]} ms (backends a block apart?)`,
    );
    await pause(SKEW_PAUSES_MS[retry], ctx.signal);
  }
}

function blockView(b: Record<string, unknown>): BlockView | undefined {
  const txs: string[] = [];
  for (const t of b.transactions as unknown[]) {
    if (typeof t === 'string') txs.push(t.toLowerCase());
    else if (isRecord(t) && typeof t.hash === 'string') txs.push(t.hash.toLowerCase());
    else return undefined;
  }
  return {
    number: isHexQuantity(b.number) ? BigInt(b.number as string) : undefined,
    hash: typeof b.hash === 'string' ? b.hash.toLowerCase() : undefined,
    txs,
    ...(isHexQuantity(b.gasUsed) ? { gasUsed: BigInt(b.gasUsed as string) } : {}),
  };
}

/** A transaction object of eth_getBlockByNumber(n, true), as far as the checks read it. */
export interface TxView {
  from?: string;
  to?: string | null;
  nonce?: string;
  hash?: string;
  /** "0x7e" for OP-stack deposits, "0x4" for EIP-7702 transactions. */
  type?: string;
}

/** Blocks a scan reads at once, concurrently: a batch costs about one round trip instead of four (under --max-rps the limiter still spaces them). */
export const BLOCK_READS_AT_ONCE = 4;

/** The lane of the blocks read whole by recentBlocks, shared by the scans that read them. */
export const BLOCKS_LANE = 'blocks';
/**
 * Blocks this close to the head are read by each scan itself, never shared: the copy one scan
 * got may be of a block a short reorg replaced, or one a backend behind did not have yet, and
 * another scan reading later must see the chain as it is then (the history checks look at
 * least this far below the head for the same reason).
 */
export const SHARED_BELOW_HEAD = 2n;

/** Whether a block read gave a block: only such an answer is shared (a refusal is asked again). */
const gaveBlock = (a: RpcAnswer): boolean => a.http.status === 200 && isRecord(a.result) && Array.isArray(a.result.transactions);

/**
 * Blocks to look at for chain activity, newest first: the pre-confirmed block, the `recent`
 * latest sealed blocks, then the `first` blocks after genesis (where a young chain, such as a
 * dev chain, holds its deployments). Bounded: at most 1 + recent + first block reads, made
 * BLOCK_READS_AT_ONCE at a time and yielded in order (a consumer that stops early has had at
 * most BLOCK_READS_AT_ONCE - 1 blocks read for nothing).
 * A block SHARED_BELOW_HEAD or more below the head is read whole once per run (once per wave
 * under --samples) when the context shares observations: the scans of four checks and of three
 * shared searches read the same blocks, and a block with its transactions is the largest answer
 * a run asks for (121 KB for the embedded chain's deployments; megabytes on a busy chain). Its
 * exchange is shown with every check that looked at it (BLOCKS_LANE). Only a block given is
 * shared: a refusal, an error or no answer is asked again by the next scan, as before. The
 * pending block and those near the head change: each scan asks them.
 */
export async function* recentBlocks(
  ctx: Pick<ChainContext, 'rpc' | 'note' | 'signal' | 'shared'>,
  opts: { recent: number; first?: number; pending?: boolean; unread?: (param: string, answer: RpcAnswer) => void },
): AsyncGenerator<{ param: string; number?: bigint; hash?: string; txs: TxView[] }> {
  /** `head`: the head read before a numbered block (none for the pending block). */
  const ask = (param: string, head?: bigint): Promise<RpcAnswer> =>
    ctx.shared && head !== undefined && BigInt(param) + SHARED_BELOW_HEAD <= head
      ? ctx.shared(`chain.block.${param}.whole`, [BLOCKS_LANE], (scope) => scope.rpc(BLOCKS_LANE).call('eth_getBlockByNumber', [param, true]), {
          keepIf: gaveBlock,
        })
      : ctx.rpc.call('eth_getBlockByNumber', [param, true]);
  const read = async (param: string, head?: bigint) => {
    const a = await ask(param, head);
    const b = a.http.status === 200 ? a.result : undefined;
    if (!isRecord(b) || !Array.isArray(b.transactions)) {
      // A block asked for and not given (expired history, null, an error): the caller may say so.
      opts.unread?.(param, a);
      return undefined;
    }
    return {
      param,
      number: isHexQuantity(b.number) ? BigInt(b.number as string) : undefined,
      hash: typeof b.hash === 'string' ? b.hash.toLowerCase() : undefined,
      txs: b.transactions.filter(isRecord) as TxView[],
    };
  };
  if (opts.pending) {
    const p = await read('pending');
    if (p) yield p;
  }
  const head = await headNumber(ctx);
  const numbers: bigint[] = [];
  const oldest = head >= BigInt(opts.recent) ? head - BigInt(opts.recent) + 1n : 0n;
  for (let n = head; n >= oldest; n--) numbers.push(n);
  for (let n = 1n; n <= BigInt(opts.first ?? 0) && n <= head; n++) if (n < oldest) numbers.push(n);
  for (let i = 0; i < numbers.length; i += BLOCK_READS_AT_ONCE) {
    // Stopped part-way is not "nothing found": a shared scan's result would be kept for the run.
    if (ctx.signal.aborted) inconclusive(`the block scan was stopped after ${i} of ${numbers.length} blocks (${String(ctx.signal.reason ?? 'run stopped')})`);
    // Every read of the batch settled before one that failed ends the scan: its exchanges are
    // then all recorded, and every asker of a shared scan shows the same ones.
    const batch = await Promise.allSettled(numbers.slice(i, i + BLOCK_READS_AT_ONCE).map((n) => read(toQuantity(n), head)));
    for (const b of batch) if (b.status === 'rejected') throw b.reason;
    for (const b of batch) if (b.status === 'fulfilled' && b.value) yield b.value;
  }
}
