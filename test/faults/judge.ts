// Fault injection: the suite's verdicts against broken and conformant variants of the
// reference target. One reference target per test file (a shard of the catalogue: REST, the
// JSON-RPC variants that need no seal, those that do, pre-confirmation, so jest's workers share
// the work; the first two on the replay tier, the reference held still behind ./replay.ts); per
// variant a loopback proxy (./proxy.ts) that applies the variant's rewrite, and one in-process run of the CLI against it.
//   faulty     -> exit 1, and a failed *required* check cites the variant's section
//   conformant -> exit 0 (or 3 where nothing could be judged: `incomplete`)
// A faulty variant with `gap` (no check catches it yet) is reported as a todo; one test
// keeps those markers honest. A table of all verdicts is printed at the end.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { DEFAULTS } from '../../src/cli/options';
import { EARLY_MS, SEND_MS } from '../../src/harness/preconf/timing';
import { violatedSection, violatedSections } from '../../src/harness/result';
import type { CheckResult } from '../../src/harness/runner';
import type { RunDocument } from '../../src/verdict/document';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { restOnly, SHARDS, VARIANTS, type Variant } from './catalogue';
import { startProxy } from './proxy';
import { startRestReplay, startRpcReplay, type Replay } from './replay';
import { SPARE_SIGNER_KEYS } from '../support/dev-keys';
import { sink } from '../support/sink';
import { startSelfTransfers } from '../support/traffic';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';

/**
 * The pass's shard's block time: the embedded target's own (1.2 s), which users' runs judge by
 * default. An aligned attempt then has SEND_MS (300 ms) for its sends, so that a look EARLY_MS
 * (900 ms) after their acceptance still comes before the seal and a miss can count; 1 s blocks
 * left it 100 ms, which a loaded runner's sends overran (a node that never shows the
 * transactions then went uncaught: not judged).
 */
const BLOCK_TIME_MS = DEFAULTS.blockTimeMs;
if (BLOCK_TIME_MS < EARLY_MS + SEND_MS) {
  throw new Error(`the catalogue's pass shard needs blocks of at least ${EARLY_MS + SEND_MS} ms for a miss to count, not ${BLOCK_TIME_MS} ms`);
}
/**
 * The live RPC shard's block time, Base's 2 s: another sender's deployment made right after a
 * seal is then pre-confirmed for about 1.7 s, time enough to read its code at "pending" past the
 * 600 ms skew bound on a loaded runner (rpc.getCode.pending-deployments); at 1 s it lived about
 * 800 ms, leaving a window of a few tens of ms. The pass's shard keeps shorter blocks (the pass
 * aligns its sends with seals, so every attempt would wait longer).
 */
const RPC_BLOCK_MS = 2000;
const TIMEOUT_MS = '3000';
/**
 * FAULTS_SAMPLES=<n> runs every variant that sets no --samples of its own at --samples n (30 is
 * what --certify uses): a per-answer false-alarm rate p becomes 1 - (1 - p)^n, so a conformant
 * variant that passes at n = 1 may not at 30. Unset: one answer per question.
 */
const SAMPLES = process.env.FAULTS_SAMPLES;
/**
 * Safety net: no single run may take longer (a run cut short is incomplete, exit 3, and reported
 * as such). At --samples n a run asks n times as much: a provider throttling every 5th call with
 * Retry-After: 1 then takes minutes, rightly.
 */
const DEADLINE_MS = SAMPLES ? 300_000 : 60_000;
/** Jest's limit for one variant: the run's deadline, and time to start and read it. */
const VARIANT_TIMEOUT_MS = DEADLINE_MS + 30_000;
/** The advisory latency check (preconf.latency.*) cannot change an exit code and alone takes ~10 s: left out. */
const DEFAULT_PRECONF_GREP = '^(?!preconf\\.latency\\.)';
/** Background traffic: anvil's second dev account (unlocked), so blocks hold transactions to judge. */
const TRAFFIC_FROM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TRAFFIC_EVERY_MS = 400;
/**
 * And contracts another sender deploys: anvil's third dev account, one tiny deployment right
 * after each seal, so the pending block holds other senders' deployments long enough to read their
 * code at "pending" past the skew bound. Its runtime (PUSH1 0 PUSH1 0 REVERT) reverts every call,
 * as the contracts the history checks look for do: a later creation that answered the probe call
 * would leave them nothing to tell history from the head by.
 */
const DEPLOYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const REVERTS_INIT = '0x6005600c60003960056000f360006000fd';
const DEPLOY_POLL_MS = 250;
/** FAULTS_ONLY=<regex> runs only the matching variants (development aid). */
const ONLY = process.env.FAULTS_ONLY ? new RegExp(process.env.FAULTS_ONLY) : undefined;

/** The shard this test file judges (judgeShard). */
let inShard: (v: Variant) => boolean = () => false;
const selected = (v: Variant) => inShard(v) && (!ONLY || ONLY.test(v.name));

interface Outcome {
  variant: Variant;
  exitCode: number;
  /** Set when the CLI threw instead of returning an exit code. */
  crash?: string;
  counts: string;
  failing: CheckResult[];
  /** Checks named by mustPass that did not pass (with their status), and mustBe's that are not as it says. */
  unjudged: string[];
  /** The failed required checks citing the expected section. */
  matching: CheckResult[];
  /** The root causes stored in results.json, by id (read, never recomputed); undefined without results.json. */
  roots?: string[];
  /** Checks not judged because a prerequisite failed or the interface was unreachable (cause blocked or unreachable). */
  blocked: CheckResult[];
  hits: number;
  exchanges: number;
  durationMs: number;
  console: string;
  /** What the reference logged while this variant ran (other variants may have run beside it). */
  referenceLog: string[];
  /**
   * The run judged nothing it was given but said why: its pass could not establish pre-confirmed
   * state (every attempt's sends too near a seal, on a loaded runner), and nothing failed.
   */
  unestablished: boolean;
}

let ref: ReferenceTarget;
/**
 * The shard's reference's log, stamped and bounded: a failed variant shows the lines of its time
 * (the reference says there when anvil disagreed with it: a dropped or already-known transaction).
 */
const referenceLog: Array<{ at: number; line: string }> = [];
const REFERENCE_LOG_KEPT = 2000;
function logReference(line: string): void {
  referenceLog.push({ at: performance.now(), line });
  if (referenceLog.length > REFERENCE_LOG_KEPT) referenceLog.splice(0, referenceLog.length - REFERENCE_LOG_KEPT);
}
/** The reference's REST answers, recorded once and replayed to every variant (./replay.ts). */
let replay: Replay;
/** The replay tier's JSON-RPC answers (shards rest and replay), the reference held still; holdStill took this long. */
let rpcReplay: Replay | undefined;
let stillMs = 0;
const outcomes: Outcome[] = [];
/** Runs started ahead of their test (REST-only variants and the replay shard's, run concurrently). */
const early = new Map<string, Promise<Outcome>>();
/**
 * How many run side by side: REST runs are light; JSON-RPC runs are heavier and share this
 * worker's event loop with their proxies, so more at once only queues them behind each other
 * (their answers late past --timeout-ms on a busy machine: a false failure). Three since the
 * proxies ask the record in process on kept connections (half the CPU a run): the replay shard
 * alone 30 -> 23 s, and passing beside a busy core.
 */
const REST_CONCURRENCY = 4;
const REPLAY_CONCURRENCY = 3;
/**
 * The pre-confirmation shard's variants mostly wait on the block clock (two of its blocks each: the
 * pass aligns its sends with a seal when the signer's last transactions are in the head block):
 * two run side by side, each signing as its own sender (two users of one chain), with the
 * reference's key and a spare dev account's.
 */
const PRECONF_SIGNERS = 2;

/** Signing keys lent one per run in flight: a key is never used by two runs at once (their nonces would collide). */
class Signers {
  private readonly waiting: Array<(key: string) => void> = [];
  constructor(private readonly free: string[]) {}

  get size(): number {
    return this.free.length;
  }

  take(): Promise<string> {
    const key = this.free.pop();
    return key !== undefined ? Promise.resolve(key) : new Promise((resolve) => this.waiting.push(resolve));
  }

  give(key: string): void {
    const next = this.waiting.shift();
    if (next) next(key);
    else this.free.push(key);
  }
}
/** The pre-confirmation shard's signers; the other shards sign with the reference's key alone. */
let signers: Signers | undefined;

const cited = (r: CheckResult) => violatedSections(r);

async function run(v: Variant): Promise<Outcome> {
  // The pool as it was when the key was taken: the key goes back where it came from.
  const pool = signers;
  const signerKey = pool ? await pool.take() : ref.signerKey;
  try {
    return await runSigned(v, signerKey);
  } finally {
    // A run whose sends were lost (or refused) midway leaves later nonces queued behind the gap, as
    // a mempool keeps them: the next run with this key would meet them ("replacement underpriced").
    // Whatever the eviction meets, the key goes back (a key never given back would stall the shard).
    await ref.controls
      .evictQueued(privateKeyToAccount(signerKey as Hex).address)
      .catch((err: Error) => logReference(`judge: evictQueued failed: ${err.message}`))
      .finally(() => pool?.give(signerKey));
  }
}

async function runSigned(v: Variant, signerKey: string): Promise<Outcome> {
  const proxy = await startProxy({ restUpstream: replay, rpcUpstream: rpcReplay ?? ref.rpcUrl, rest: v.rest, rpc: v.rpc, latencyMs: v.latencyMs });
  const dir = mkdtempSync(path.join(tmpdir(), 'faults-'));
  const out = sink();
  const started = performance.now();
  try {
    const grep = v.grep ?? (v.only.includes('preconf') ? DEFAULT_PRECONF_GREP : undefined);
    const argv = [
      '--base-url',
      proxy.restUrl,
      '--rpc-url',
      proxy.rpcUrl,
      '--signer-key',
      signerKey,
      '--only',
      v.only.join(','),
      ...(grep ? ['--grep', grep] : []),
      '--report-dir',
      dir,
      '--timeout-ms',
      TIMEOUT_MS,
      '--deadline-ms',
      String(DEADLINE_MS),
      ...(SAMPLES && !v.args?.includes('--samples') ? ['--samples', SAMPLES] : []),
      ...(v.args ?? []),
    ];
    let exitCode = -1;
    let crash: string | undefined;
    try {
      exitCode = await main(argv, {}, { out: out.stream, err: out.stream });
    } catch (err) {
      crash = String((err as Error)?.stack ?? err);
    }
    const durationMs = Math.round(performance.now() - started);
    let doc: RunDocument | undefined;
    try {
      doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunDocument;
    } catch {
      doc = undefined;
    }
    const failing = (doc?.checks ?? []).filter((c) => c.status === 'failed');
    const matching = failing.filter((c) => c.level === 'required' && v.section !== undefined && cited(c).includes(v.section));
    const n = (st: string) => (doc?.checks ?? []).filter((c) => c.status === st).length;
    const counts = doc ? `${n('passed')}p ${n('failed')}f ${n('skipped')}s ${n('inconclusive')}i` : 'no results.json';
    const must = v.mustPass ? new RegExp(v.mustPass) : undefined;
    const named = must ? (doc?.checks ?? []).filter((c) => must.test(c.id)) : [];
    const unjudged = must
      ? named.length
        ? named.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.reason.slice(0, 200)}`)
        : [`no check matches ${v.mustPass}`]
      : [];
    for (const [ids, status, cause, flag] of v.mustBe ?? []) {
      // Checks the variant's --only/--grep left out are listed too (skipped, deselected): not these.
      const these = (doc?.checks ?? []).filter((c) => new RegExp(ids).test(c.id) && c.cause !== 'deselected');
      if (these.length === 0) unjudged.push(`no check matches ${ids} (mustBe ${status})`);
      for (const c of these) {
        if (c.status !== status || c.cause !== cause || c.outOfScope?.flag !== flag)
          unjudged.push(
            `${c.id}: ${c.status} (${c.cause}${c.outOfScope ? `, ${c.outOfScope.flag}` : ''}) ${c.reason.slice(0, 200)} (mustBe ${status} (${cause}${flag ? `, ${flag}` : ''}))`,
          );
      }
    }
    const blocked = (doc?.checks ?? []).filter((c) => c.status === 'inconclusive' && (c.cause === 'blocked' || c.cause === 'unreachable'));
    const inconclusive = (doc?.checks ?? []).filter((c) => c.status === 'inconclusive');
    const unestablished =
      failing.length === 0 && inconclusive.length > 0 && inconclusive.every((c) => c.reason.startsWith('pre-confirmed state was not established'));
    const o: Outcome = {
      roots: doc?.rootCauses.map((r) => r.id),
      variant: v,
      exitCode,
      crash,
      counts,
      unjudged,
      failing,
      matching,
      blocked,
      hits: proxy.hits,
      exchanges: proxy.exchanges,
      durationMs,
      console: out.text(),
      referenceLog: referenceLog.filter((l) => l.at >= started).map((l) => l.line),
      unestablished,
    };
    outcomes.push(o);
    return o;
  } finally {
    await proxy.stop();
    if (process.env.FAULTS_KEEP) process.stderr.write(`${v.name}: reports kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A conformant variant exits 0; one where nothing required could be judged (`incomplete`, e.g.
 * throttled for good) exits 3 once the run status lands (src/verdict/status.ts), 0 until then.
 */
const exitAsExpected = (o: Outcome): boolean =>
  o.variant.refusedAtOpen ? o.exitCode === 2 && o.variant.refusedAtOpen.test(o.console) : o.variant.incomplete === true ? o.exitCode === 3 : o.exitCode === 0;

/** A variant naming its number of root causes states exactly that many. */
const rootsAsExpected = (o: Outcome): boolean => o.variant.roots === undefined || o.roots?.length === o.variant.roots;

/** The outcome of a variant: the early run's if there was one, else a run now. */
const outcomeOf = (v: Variant): Promise<Outcome> => early.get(v.name) ?? run(v);

/** Starts these variants' runs, `concurrency` at a time in this order; each test awaits its own. */
function runAhead(vs: Variant[], concurrency: number): void {
  let running = 0;
  const waiting: Array<() => void> = [];
  const slot = async () => {
    if (running >= concurrency) await new Promise<void>((r) => waiting.push(r));
    running++;
  };
  const free = () => {
    running--;
    waiting.shift()?.();
  };
  for (const v of vs)
    early.set(
      v.name,
      slot().then(() => run(v).finally(free)),
    );
}

/** `o`, or the run of `v` again, at most twice, while `judgedNothing` says a run showed nothing of the variant's behaviour. */
async function againWhile(v: Variant, o: Outcome, judgedNothing: (o: Outcome) => boolean): Promise<Outcome> {
  for (let again = 0; again < 2 && judgedNothing(o); again++) o = await run(v);
  return o;
}

function explain(o: Outcome): string {
  const lines = o.failing.map((c) => `  ${c.level} ${c.id} [${violatedSection(c)}] ${c.reason.slice(0, 300)}`);
  lines.push(...o.unjudged.map((u) => `  not judged as required (mustPass/mustBe): ${u}`));
  return `${o.variant.kind} variant ${o.variant.name} (${o.variant.what}): exit ${o.exitCode}${o.crash ? ` (CLI threw: ${o.crash})` : ''}, checks ${o.counts}, proxy hits ${o.hits}/${o.exchanges}\n${lines.join('\n') || '  (no failed check)'}\n--- console tail ---\n${o.console.slice(-3000)}${
    o.referenceLog.length ? `\n--- the reference's log meanwhile (last 40 of ${o.referenceLog.length}) ---\n${o.referenceLog.slice(-40).join('\n')}` : ''
  }`;
}

function table(): string {
  const order = new Map(VARIANTS.map((v, i) => [v.name, i]));
  const rows = [...outcomes]
    .sort((a, b) => order.get(a.variant.name)! - order.get(b.variant.name)!)
    .map((o) => {
      const v = o.variant;
      const verdict = o.crash
        ? 'CLI CRASHED'
        : v.kind === 'faulty'
          ? o.matching.length > 0 && o.exitCode === 1
            ? 'caught'
            : v.gap
              ? 'GAP'
              : 'MISSED'
          : !exitAsExpected(o)
            ? 'FALSE FAIL'
            : o.unjudged.length
              ? 'passed, NOT JUDGED'
              : 'passed';
      const ids = o.failing
        .filter((c) => c.level === 'required')
        .map((c) => `${c.id} [${violatedSection(c)}]`)
        .slice(0, 4);
      const more = o.failing.filter((c) => c.level === 'required').length - ids.length;
      return `| ${v.name} | ${v.kind} | ${v.section ?? ''} | ${verdict} (exit ${o.exitCode}) | ${o.counts} | ${o.durationMs} ms | ${ids.join(', ')}${more > 0 ? `, +${more} more` : ''} |`;
    });
  const faulty = outcomes.filter((o) => o.variant.kind === 'faulty').length;
  return [
    '',
    `fault catalogue: ${VARIANTS.filter((v) => v.kind === 'faulty').length} faulty, ${VARIANTS.filter((v) => v.kind === 'conformant').length} conformant variants (${VARIANTS.filter((v) => v.record).length} of them records); ran ${outcomes.length} (${faulty} faulty)`,
    '| variant | kind | section | verdict | checks | time | failed required checks [cited section] |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

let traffic: NodeJS.Timeout | undefined;
let deployments: NodeJS.Timeout | undefined;

/** One JSON-RPC call straight to the reference (not through a proxy); its answer is not needed. */
function post(url: string, method: string, params: unknown[]): Promise<unknown> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5000),
  }).then(
    (r) => r.text(),
    () => undefined,
  );
}

/** Blocks the chain should have before the RPC variants run (history checks look at least 2 below the head). */
const MIN_HEAD = 6n;
/** One JSON-RPC read straight from the reference (not through a proxy): its result, undefined when unanswered. */
async function resultOf<T>(url: string, method: string, params: unknown[]): Promise<T | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(5000),
    });
    return ((await res.json()) as { result?: T }).result;
  } catch {
    return undefined;
  }
}

async function headNumberOf(url: string): Promise<bigint> {
  // An unanswered read (a busy machine) is "not yet": the wait below is bounded.
  const head = await resultOf<string>(url, 'eth_blockNumber', []);
  return typeof head === 'string' && /^0x[0-9a-f]+$/i.test(head) ? BigInt(head) : 0n;
}

/** The replay tier's reference seals only when told to (an hour-long block): held still (holdStill). */
const STILL_BLOCK_MS = 3_600_000;
/**
 * Sealed blocks, each with a transfer and a deployment by other senders, as the live shards'
 * traffic leaves them: enough that "safe" and "finalized" (anvil: 32 and 64 blocks below the
 * head) name blocks with receipts, as they do once a live shard has run a minute.
 */
const STILL_HISTORY_BLOCKS = 70;

/** The pending block (transaction hashes only), straight from the reference; undefined when unanswered. */
const pendingBlockOf = (url: string) => resultOf<{ number?: string; transactions?: string[] }>(url, 'eth_getBlockByNumber', ['pending', false]);

/** What a reference held still must keep showing: its head and its pending block. */
async function stillState(url: string): Promise<string> {
  const pending = await pendingBlockOf(url);
  return JSON.stringify({ head: String(await headNumberOf(url)), pending: [pending?.number, pending?.transactions] });
}
/** The replay tier's reference as it was held still. */
let stillAt: string | undefined;

/** A transfer and a deployment by other senders, as the live shards' traffic makes. */
const othersSend = (target: ReferenceTarget) =>
  Promise.all([
    post(target.rpcUrl, 'eth_sendTransaction', [{ from: TRAFFIC_FROM, to: TRAFFIC_FROM, value: '0x0' }]),
    post(target.rpcUrl, 'eth_sendTransaction', [{ from: DEPLOYER, data: REVERTS_INIT }]),
  ]);

/** Seals `blocks` blocks now, each holding a transfer and a deployment by other senders. */
async function sealWithOthers(target: ReferenceTarget, blocks: number | bigint): Promise<void> {
  for (let i = 0; i < Number(blocks); i++) {
    await othersSend(target);
    await target.controls.seal();
  }
}

/**
 * Holds the reference (an hour-long block) still for the replay tier: `blocks` sealed blocks,
 * each holding a transfer and a deployment by other senders (as the live shards' traffic makes),
 * then, with any, one more of each pre-confirmed in the pending block, which is never sealed.
 * Still once the block being built has its flashblock (before it "pending" answers as "latest"):
 * from then on nothing is sent and nothing sealed, so every read answers the same all run long,
 * and an answer recorded once may be replayed to every variant (./replay.ts).
 */
async function holdStill(target: ReferenceTarget, blocks: number): Promise<void> {
  await sealWithOthers(target, blocks);
  if (blocks > 0) await othersSend(target);
  const built = async () => {
    const [pending, head] = await Promise.all([pendingBlockOf(target.rpcUrl), headNumberOf(target.rpcUrl)]);
    return pending?.number === `0x${(head + 1n).toString(16)}` && (pending.transactions?.length ?? 0) >= (blocks > 0 ? 2 : 0);
  };
  // The next flashblock or two (bounded wait).
  for (let i = 0; i < 100 && !(await built()); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await built())) throw new Error('the reference held still shows no block being built with pre-confirmed transactions of other senders');
}

/** Judges the variants of one shard of the catalogue (the test file's whole content). */
export function judgeShard(shard: keyof typeof SHARDS): void {
  inShard = SHARDS[shard];
  // The replay tier: the REST variants and the JSON-RPC variants that need no seal have no use
  // for a chain in motion. The REST and cross checks read only the token contracts, there from
  // the start; the JSON-RPC ones need history and a pending block (holdStill).
  const still = shard === 'rest' || shard === 'replay';
  beforeAll(async () => {
    ref = await startReference({
      profile: 'dedicated',
      log: logReference,
      blockTimeMs: still ? STILL_BLOCK_MS : shard === 'rpc' ? RPC_BLOCK_MS : BLOCK_TIME_MS,
    });
    replay = await startRestReplay(ref.baseUrl);
    if (still) {
      const started = performance.now();
      await holdStill(ref, shard === 'replay' ? STILL_HISTORY_BLOCKS : 0);
      stillMs = Math.round(performance.now() - started);
      stillAt = await stillState(ref.rpcUrl);
      rpcReplay = await startRpcReplay(ref.rpcUrl);
    }
    // Started here, not awaited: each variant's test waits for its own run, under its own timeout.
    const ahead = VARIANTS.filter((v) => selected(v) && (still || restOnly(v)));
    runAhead(ahead, shard === 'replay' ? REPLAY_CONCURRENCY : REST_CONCURRENCY);
    if (ahead.length === VARIANTS.filter(selected).length) return;
    // Other users of the chain (test/support/traffic.ts), so sealed blocks hold receipts for the
    // checks to judge, as on a live network.
    traffic = startSelfTransfers(ref.rpcUrl, TRAFFIC_FROM, TRAFFIC_EVERY_MS);
    let lastHead = -1n;
    deployments = setInterval(() => {
      void headNumberOf(ref.rpcUrl).then((head) => {
        if (head === lastHead) return;
        lastHead = head;
        void post(ref.rpcUrl, 'eth_sendTransaction', [{ from: DEPLOYER, data: REVERTS_INIT }]);
      });
    }, DEPLOY_POLL_MS);
    // The history checks read blocks below the head: a chain just started has too few. Sealed now,
    // as the traffic would fill them, rather than waited for (three 2 s blocks on the RPC shard).
    await sealWithOthers(ref, MIN_HEAD - (await headNumberOf(ref.rpcUrl)));
    if (shard === 'preconf') {
      signers = new Signers([ref.signerKey, ...SPARE_SIGNER_KEYS].slice(0, PRECONF_SIGNERS));
      runAhead(
        VARIANTS.filter((v) => selected(v) && !early.has(v.name)),
        signers.size,
      );
    }
  }, 180_000);

  afterAll(async () => {
    clearInterval(traffic);
    clearInterval(deployments);
    await replay?.stop();
    await rpcReplay?.stop();
    await ref?.stop();
    if (replay) process.stdout.write(`\nREST answers: ${replay.recorded} recorded from the reference, ${replay.replayed} replayed\n`);
    if (rpcReplay)
      process.stdout.write(
        `JSON-RPC answers: ${rpcReplay.recorded} recorded from the reference held still (in ${stillMs} ms), ${rpcReplay.replayed} replayed\n`,
      );
    if (outcomes.length > 0) process.stdout.write(table());
  });

  describe('faulty variants: exit 1 with a failed required check citing the expected section', () => {
    for (const v of VARIANTS.filter((x) => x.kind === 'faulty' && selected(x))) {
      if (v.gap) {
        it.todo(`${v.name} [${v.section}] GAP: ${v.gap}`);
        continue;
      }
      it(
        `${v.name} [${v.section}]`,
        async () => {
          // A run whose pass could not establish pre-confirmed state judged nothing of the fault
          // (inconclusive, exit 3, on a loaded runner). A run that passed the fault, or judged
          // anything, is judged as it is.
          const o = await againWhile(v, await outcomeOf(v), (x) => x.unestablished);
          const saying = v.saying ? new RegExp(v.saying) : undefined;
          if (
            o.crash ||
            o.exitCode !== 1 ||
            o.matching.length === 0 ||
            (saying && !o.matching.some((c) => saying.test(c.reason))) ||
            o.unjudged.length > 0 ||
            (v.rest || v.rpc ? o.hits === 0 : false)
          )
            throw new Error(`${explain(o)}${saying ? `\nthe catching check must say: ${v.saying}` : ''}`);
          // violated ⊆ statements: a failure cites only what its check declares (a stand-in for a root not in the run states the root's rule).
          expect(
            o.failing
              .filter((c) => !/\(stated here: /.test(c.reason))
              .flatMap((c) => (c.violated ?? []).filter((s) => !c.statements.includes(s)).map((s) => `${c.id}: ${s}`)),
          ).toEqual([]);
          if (v.oneRoot) {
            // One root cause, one failure: the root fails, what needed it says it was blocked.
            const by = v.oneRoot.blockedBy;
            const blockedByRoot = o.blocked.filter((c) => (typeof by === 'string' ? c.blockedBy === by : c.unreachable === by.unreachable)).length;
            expect({ failed: o.failing.map((c) => c.id).sort(), blockedByRoot: Math.min(blockedByRoot, v.oneRoot.blockedAtLeast) }).toEqual({
              failed: v.oneRoot.failed,
              blockedByRoot: v.oneRoot.blockedAtLeast,
            });
          }
        },
        VARIANT_TIMEOUT_MS,
      );
    }
  });

  describe('conformant variants: exit 0', () => {
    for (const v of VARIANTS.filter((x) => x.kind === 'conformant' && selected(x))) {
      it(
        v.name,
        async () => {
          const passed = (o: Outcome) => !o.crash && exitAsExpected(o) && rootsAsExpected(o) && o.unjudged.length === 0;
          // A run that ended incomplete only because its pass could not establish pre-confirmed
          // state (exit 3, no crash, nothing failed, and every check not judged says so: on a
          // loaded runner the reference's flashblocks fell behind a variant's late
          // pre-confirmations) judged nothing of that behaviour, as a faulty variant's.
          const unestablishedOnly = (x: Outcome) => !x.crash && x.exitCode === 3 && x.unestablished && !passed(x);
          let o = await againWhile(v, await outcomeOf(v), unestablishedOnly);
          // Nor did a run that passed without the behaviour ever meeting a call (hits 0: a backend
          // lagging each new block, in a run that ended before the next seal, on a loaded runner).
          // A run that failed a check, crashed or exited otherwise is never run again (no false alarm hidden).
          o = await againWhile(v, o, (x) => Boolean(v.rest || v.rpc) && passed(x) && x.hits === 0);
          if (!passed(o) || (v.rest || v.rpc ? o.hits === 0 : false))
            throw new Error(`${explain(o)}\nroot causes: ${o.roots?.join(', ') ?? 'no results.json'}`);
        },
        VARIANT_TIMEOUT_MS,
      );
    }
  });

  if (still)
    it('the reference held still sealed no block and took no transaction: every answer replayed is still its answer', async () => {
      await Promise.allSettled(early.values());
      expect(await stillState(ref.rpcUrl)).toBe(stillAt);
    });

  const gaps = VARIANTS.filter((v) => v.gap && selected(v));
  if (gaps.length)
    it('gap markers are current: no check catches a variant marked as a gap (remove the marker when one does)', async () => {
      const closed: string[] = [];
      for (const v of gaps) {
        const o = await outcomeOf(v);
        if (o.exitCode === 1 && o.matching.length > 0) closed.push(`${v.name}: now caught by ${o.matching.map((c) => c.id).join(', ')}`);
      }
      expect(closed).toEqual([]);
    }, 300_000);
}
