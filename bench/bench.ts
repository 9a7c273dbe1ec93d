/**
 * `npm run bench`: speed and memory targets, measured on this machine and compared with budgets.
 * Kept out of the unit tests on purpose: timing belongs here, not in assertions that flake.
 * Exit 1 when a budget is missed, so a CI job can opt in.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main';
import { DEFAULTS } from '../src/cli/options';
import { validate } from '../src/harness/schemas';
import { startReference } from '../src/reference';
import { startReferenceProcess } from '../src/cli/reference-process';
import { startLatencyProxy } from './latency-proxy';
import { stalledPass } from './stall';
import { percentiles } from '../src/harness/preconf/timing';
import { pendingCount, rpc, send, sign, visibleAfter } from '../test/reference/helpers';
import { largeListRuns, startLargeListServer } from './large-list';
import { boundedRun } from './bounded';
import { SHAPES } from './hostile-answers';
import { gateCost } from './gate';
import { readerCosts } from './readers';

interface Row {
  what: string;
  measured: number;
  unit: string;
  budget: number;
  higherIsBetter?: boolean;
}

const ROOT = path.resolve(__dirname, '..');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function referenceStartup(n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const ref = await startReference({ blockTimeMs: 2000 });
    times.push(performance.now() - t);
    await ref.stop();
  }
  return times;
}

function cliStartup(n: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/conformance.js'), '--list'], { encoding: 'utf8', timeout: 30_000 });
    if (r.status !== 0) throw new Error(`--list exited ${r.status}: ${r.stderr}`);
    times.push(performance.now() - t);
  }
  return times;
}

const sink = (): NodeJS.WriteStream => new Writable({ write: (_c, _e, cb) => cb() }) as unknown as NodeJS.WriteStream;

/** One full run of the CLI in-process (embedded target unless URLs are given). */
async function fullRun(args: string[] = []): Promise<{ ms: number; checks: number; peakRssMb: number; exit: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-'));
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  try {
    const t = performance.now();
    const exit = await main([...args, '--report-dir', dir], {}, { out: sink(), err: sink() });
    const ms = performance.now() - t;
    const doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as { checks: unknown[] };
    return { ms, checks: doc.checks.length, peakRssMb: peak / 2 ** 20, exit };
  } finally {
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true }); // a bench run leaves no report folder behind
  }
}

/**
 * CPU time (ms) of this process's children that have ended and been waited for, their own
 * descendants included as each was waited for in turn (Linux: /proc/self/stat cutime + cstime);
 * undefined elsewhere.
 */
function endedChildrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5), counted here from field 3 (state): clock ticks, 100 a second.
    return ((Number(f[13]) + Number(f[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/**
 * One full run of the built CLI (dist/) as a child process, as a user runs it: its wall time, its
 * own peak RSS (the in-process runs above also count the bench, its TypeScript loader and earlier
 * runs' garbage), the CPU of the suite's own process, and that of the whole tree (the embedded
 * reference's gateway and anvil are the rest: each process waits for its children, so their time
 * is counted).
 */
function childRun(args: string[] = []): { ms: number; peakRssMb: number; exit: number | null; suiteCpuMs: number; treeCpuMs?: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-child-'));
  const rssFile = path.join(dir, 'max-rss');
  const cpuFile = path.join(dir, 'cpu');
  const childrenBefore = endedChildrenCpuMs();
  const started = performance.now();
  const r = spawnSync(
    process.execPath,
    ['--require', path.join(__dirname, 'max-rss.js'), path.join(ROOT, 'bin/conformance.js'), ...args, '--report-dir', path.join(dir, 'reports')],
    { env: { ...process.env, MAX_RSS_FILE: rssFile, CPU_TIME_FILE: cpuFile }, stdio: 'ignore', timeout: 180_000 },
  );
  const ms = performance.now() - started;
  const childrenAfter = endedChildrenCpuMs();
  const read = (file: string) => (existsSync(file) ? Number(readFileSync(file, 'utf8')) : NaN);
  const peakRssMb = read(rssFile) / 1024;
  const suiteCpuMs = read(cpuFile) / 1000;
  rmSync(dir, { recursive: true, force: true });
  const treeCpuMs = childrenBefore === undefined || childrenAfter === undefined ? undefined : childrenAfter - childrenBefore;
  return { ms, peakRssMb, exit: r.status, suiteCpuMs, ...(treeCpuMs !== undefined ? { treeCpuMs } : {}) };
}

/** Where a child run's CPU went, in words: the suite's own process, and its reference's (gateway and anvil). */
function cpuSplit(c: ReturnType<typeof childRun>): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const rest = c.treeCpuMs === undefined ? '' : `, the embedded reference (gateway and anvil) ${s(c.treeCpuMs - c.suiteCpuMs)}`;
  return `CPU: the suite's process ${s(c.suiteCpuMs)} (${Math.round((100 * c.suiteCpuMs) / c.ms)} % of its wall time)${rest}`;
}

/** The delay the critical-path measurement adds to every JSON-RPC request. */
const ADDED_MS = 150;

/**
 * Sequential round trips on the run's critical path: the same full run against one embedded
 * target, directly (t0) and through a proxy that holds every JSON-RPC request 150 ms (t150);
 * (t150 - t0) / 150 ms. Pairs are run back to back and the median taken, because where a run
 * falls in the 2 s block interval shifts both by up to a block.
 */
async function criticalPath(pairs: number): Promise<{ roundTrips: number[]; t0: number[]; t150: number[] }> {
  const ref = await startReference({ blockTimeMs: 2000 });
  const proxy = await startLatencyProxy(ref.rpcUrl, ADDED_MS);
  const out = { roundTrips: [] as number[], t0: [] as number[], t150: [] as number[] };
  try {
    const args = (rpc: string) => ['--base-url', ref.baseUrl, '--rpc-url', rpc, '--signer-key', ref.signerKey];
    // Each run starts a block interval after the last: a run whose signer's transactions are in
    // the head block waits for the next seal before it sends (preconf/send.ts, align), and that
    // block, not the round trips, would be measured.
    const settle = () => new Promise((r) => setTimeout(r, BLOCK_MS + 100));
    for (let i = 0; i < pairs; i++) {
      await settle();
      const direct = await fullRun(args(ref.rpcUrl));
      await settle();
      const slow = await fullRun(args(proxy.url));
      if (direct.exit !== 0 || slow.exit !== 0) throw new Error(`critical-path runs exited ${direct.exit} and ${slow.exit}`);
      out.t0.push(direct.ms);
      out.t150.push(slow.ms);
      out.roundTrips.push((slow.ms - direct.ms) / ADDED_MS);
    }
  } finally {
    await proxy.close();
    await ref.stop();
  }
  return out;
}

/**
 * The embedded reference as a Flashblocks node: 20 sends at random phases against its 200 ms
 * ticks, each timed from the send's answer to the first "pending" read that shows it. A held
 * transaction shows at the next tick: p50 under one period, none later than a tick plus slack,
 * and spread over the period (an instant model would show almost all within a round trip).
 */
async function flashblockLatency(sends: number): Promise<{ p10: number; p50: number; p90: number; max: number; rttMs: number }> {
  const ref = await startReference();
  try {
    const rtts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await rpc(ref.rpcUrl, 'eth_chainId');
      rtts.push(performance.now() - t);
    }
    let nonce = await pendingCount(ref);
    const latencies: number[] = [];
    for (let i = 0; i < sends; i++, nonce++) {
      const raw = await sign(ref, nonce);
      await new Promise((r) => setTimeout(r, Math.random() * ref.flashblockMs));
      const { answeredAt } = await send(ref, raw);
      latencies.push(await visibleAfter(ref, nonce, answeredAt));
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    return { p10: at(0.1), p50: percentiles(latencies)!.p50, p90: at(0.9), max: percentiles(latencies)!.max, rttMs: median(rtts) };
  } finally {
    await ref.stop();
  }
}

/**
 * The instant model (flashblockMs 0, as test/reference/rpc.test.ts runs it): each send timed
 * from its answer to the first "pending" read that shows it. The test asserts that the first
 * read after the send shows it; how long that takes on this machine is measured here.
 */
async function instantVisibility(sends: number): Promise<number[]> {
  const ref = await startReference({ blockTimeMs: 1000, flashblockMs: 0 });
  try {
    let nonce = await pendingCount(ref);
    const latencies: number[] = [];
    for (let i = 0; i < sends; i++, nonce++) {
      const { answeredAt } = await send(ref, await sign(ref, nonce));
      latencies.push(await visibleAfter(ref, nonce, answeredAt));
    }
    return latencies;
  } finally {
    await ref.stop();
  }
}

/** The 2 s block interval of a reference started here (the library's default, Base's). */
const BLOCK_MS = 2000;
/** The embedded run's block interval (the CLI's default): a sampled run spreads its answers over two. */
const EMBEDDED_BLOCK_MS = DEFAULTS.blockTimeMs;

/**
 * What sampling costs, against the full runs at N = 1 already measured: the goals at N = 1
 * (time, memory), and one full run at --samples 30 (time added over the N = 1 median, which
 * should be about the window of two block intervals plus pipelined reads; memory).
 */
async function samplingCost(fulls: Array<Awaited<ReturnType<typeof fullRun>>>): Promise<Row[]> {
  const n1 = median(fulls.map((f) => f.ms));
  const n30 = await fullRun(['--samples', '30']);
  const children = [childRun(), childRun(), childRun()];
  const child30 = childRun(['--samples', '30']);
  // The same against a target already up in a process of its own, as a deployment is: the run
  // starts no reference, and its cost is the suite's alone (the target's CPU is on its own core).
  const target = await startReferenceProcess({ profile: 'dedicated' });
  let remote: { n1: number[]; n30: number; exit30: number };
  try {
    const args = ['--base-url', target.baseUrl, '--rpc-url', target.rpcUrl, '--signer-key', target.signerKey];
    const settle = () => new Promise((r) => setTimeout(r, BLOCK_MS + 100));
    const n1: number[] = [];
    for (let i = 0; i < 3; i++) {
      await settle();
      n1.push((await fullRun(args)).ms);
    }
    await settle();
    const run30 = await fullRun([...args, '--samples', '30']);
    remote = { n1, n30: run30.ms, exit30: run30.exit };
  } finally {
    await target.stop();
  }
  const childN1 = median(children.map((c) => c.ms));
  return [
    { what: 'goal at --samples 1: full embedded run (median of the 5 above)', measured: n1, unit: 'ms', budget: 3200 },
    // The run as a user starts it (`conformance`, dist/): the process's own start-up and module loading, the reference's, and its stop.
    {
      what: `goal at --samples 1: the conformance command, a child process from dist/, wall time (median of 3: ${children.map((c) => Math.round(c.ms)).join(', ')} ms; ${cpuSplit([...children].sort((a, b) => a.ms - b.ms)[1])})`,
      measured: childN1,
      unit: 'ms',
      budget: 2500,
    },
    {
      what: `goal at --samples 30: the conformance command, a child process from dist/, time added over --samples 1 (${Math.round(child30.ms)} ms, exit ${child30.exit}; ${cpuSplit(child30)})`,
      measured: child30.ms - childN1,
      unit: 'ms',
      budget: 3000,
    },
    {
      what: `goal at --samples 1: peak RSS of the conformance command, a child process from dist/ (max of 3, exit ${children.map((c) => c.exit).join('/')})`,
      measured: Math.max(...children.map((c) => c.peakRssMb)),
      unit: 'MiB',
      budget: 150,
    },
    {
      what: `--samples 30: full embedded run, time added over --samples 1 (${Math.round(n30.ms)} ms, exit ${n30.exit}; budget: 2 block intervals + 2 s of reads)`,
      measured: n30.ms - n1,
      unit: 'ms',
      budget: 2 * EMBEDDED_BLOCK_MS + 2000,
    },
    {
      what: `--samples 30: peak RSS of the conformance command, a child process from dist/ (exit ${child30.exit})`,
      measured: child30.peakRssMb,
      unit: 'MiB',
      budget: 250,
    },
    { what: '--samples 30: peak RSS during the full run (in-process, with the bench around it)', measured: n30.peakRssMb, unit: 'MiB', budget: 400 },
    {
      what: `--samples 30 against a target up in its own process (a deployment's case), time added over --samples 1 (${Math.round(remote.n30)} ms, exit ${remote.exit30}; --samples 1 median of 3: ${remote.n1.map(Math.round).join(', ')} ms)`,
      measured: remote.n30 - median(remote.n1),
      unit: 'ms',
      budget: 2 * BLOCK_MS + 2000,
    },
  ];
}

function schemaThroughput(records: number, ms: number): number {
  const token = {
    contract_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    symbol: 'AAPLx',
    name: 'Apple Inc.',
    decimals: 18,
    icon_url: 'https://icons.example/AAPL.svg',
    total_supply: 1234.5,
    isin: 'US0378331005',
    multiplier: 1.0237,
    paused_features: [0],
    nav_price: 189.12,
    nav_price_updated_at: '2026-11-20T20:00:00Z',
  };
  const list = { tokens: Array.from({ length: records }, () => token) };
  validate('list', list);
  let n = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    validate('list', list);
    n++;
  }
  return (n * records) / (ms / 1000);
}

/**
 * Hostile inputs, each one full in-process run: an --openapi document whose $refs double at each
 * of 30 levels (refused, rest.openapi.valid fails), and a REST target listing 50,000 records.
 */
async function hostileRuns(): Promise<{ bomb: Awaited<ReturnType<typeof fullRun>>; large: Awaited<ReturnType<typeof fullRun>> }> {
  const bombDoc = readFileSync(path.join(ROOT, 'test/fixtures/openapi/hostile-ref-bomb.json'), 'utf8');
  const target = await startLargeListServer(50_000, () => ({}), { '/openapi.json': bombDoc });
  try {
    const bomb = await fullRun(['--openapi', `${target.url}/openapi.json`, '--only', 'rest', '--grep', '^rest\\.openapi\\.']);
    const large = await fullRun(['--base-url', target.url, '--only', 'rest']);
    return { bomb, large };
  } finally {
    await target.close();
  }
}

/**
 * The measures, in groups; `npm run bench -- <word>…` runs only the groups whose name contains
 * one of the words (the machine may be shared: measure what a change concerns).
 */
const GROUPS: Record<string, (rows: Row[], exits: number[]) => Promise<void>> = {
  startup: async (rows) => {
    const starts = await referenceStartup(3);
    rows.push({ what: 'embedded reference start-up (median of 3)', measured: median(starts), unit: 'ms', budget: 1000 });
    rows.push({ what: 'CLI start-up to --list from dist/ (median of 3)', measured: median(cliStartup(3)), unit: 'ms', budget: 1500 });
  },
  'full-run': async (rows, exits) => {
    // The full embedded run: its default blocks and 200 ms flashblocks, signer checks included.
    const fulls = [];
    for (let i = 0; i < 5; i++) fulls.push(await fullRun());
    exits.push(...fulls.map((f) => f.exit));
    const full = fulls[0];
    const codes = [...new Set(fulls.map((f) => f.exit))].join('/');
    rows.push({
      what: `full embedded run, ${EMBEDDED_BLOCK_MS} ms blocks + ${DEFAULTS.flashblockMs} ms flashblocks (${full.checks} checks, exit ${codes}; median of 5: ${fulls.map((f) => Math.round(f.ms)).join(', ')} ms)`,
      measured: median(fulls.map((f) => f.ms)),
      unit: 'ms',
      budget: 6000,
    });
    rows.push({ what: 'peak RSS during a full run (in-process)', measured: Math.max(...fulls.map((f) => f.peakRssMb)), unit: 'MiB', budget: 400 });
    // The cost goals of sampling: N = 1 stays lean, N = 30 adds about the window plus pipelined reads.
    rows.push(...(await samplingCost(fulls)));
  },
  'critical-path': async (rows) => {
    const cp = await criticalPath(3);
    rows.push({
      what: `sequential round trips on the critical path, (t150 - t0) / ${ADDED_MS} ms (median of 3: ${cp.roundTrips.map((r) => r.toFixed(1)).join(', ')}; t0 ${cp.t0.map(Math.round).join(', ')} ms, t150 ${cp.t150.map(Math.round).join(', ')} ms)`,
      measured: median(cp.roundTrips),
      unit: 'round trips',
      budget: 25,
    });
    rows.push({
      what: 'goal at --samples 1: sequential round trips on the critical path (same measure)',
      measured: median(cp.roundTrips),
      unit: 'round trips',
      budget: 15,
    });
  },
  stall: async (rows) => {
    // A node that stops sealing ends the pre-confirmation pass with one cause, not a wait per check.
    for (const [midPass, what] of [
      [false, 'anvil --no-mining, never seals'],
      [true, 'anvil that stops sealing at the first send'],
    ] as const) {
      const stall = await stalledPass(midPass);
      rows.push({ what: `stalled node ends the pass in N s: ${what} (preconf checks: ${stall.verdicts})`, measured: stall.ms / 1000, unit: 's', budget: 30 });
    }
  },
  flashblocks: async (rows) => {
    const fb = await flashblockLatency(20);
    const fbWhat = `reference, 200 ms flashblocks, 20 sends: send -> visible at "pending" (p10 ${fb.p10.toFixed(0)}, p90 ${fb.p90.toFixed(0)} ms, round trip ${fb.rttMs.toFixed(1)} ms)`;
    rows.push({ what: `${fbWhat}, p50`, measured: fb.p50, unit: 'ms', budget: 200 });
    rows.push({ what: `${fbWhat}, max`, measured: fb.max, unit: 'ms', budget: 500 });
    rows.push({ what: `${fbWhat}, spread p90 - p10 (held to a tick, not instant)`, measured: fb.p90 - fb.p10, unit: 'ms', budget: 50, higherIsBetter: true });
  },
  instant: async (rows) => {
    const ms = await instantVisibility(10);
    rows.push({
      what: `reference, instant model (no flashblocks), 10 sends: send answered -> visible at "pending", max (median ${median(ms).toFixed(0)} ms)`,
      measured: Math.max(...ms),
      unit: 'ms',
      budget: 200,
    });
  },
  schema: async (rows) => {
    rows.push({
      what: 'token records validated per second (list schema)',
      measured: schemaThroughput(1000, 1000),
      unit: 'records/s',
      budget: 20_000,
      higherIsBetter: true,
    });
  },
  hostile: async (rows) => {
    const hostile = await hostileRuns();
    rows.push({
      what: `--openapi document with a doubling $ref bomb (30 levels): run to rest.openapi.valid failed (exit ${hostile.bomb.exit})`,
      measured: hostile.bomb.ms,
      unit: 'ms',
      budget: 10_000,
    });
    rows.push({
      what: `REST run against a list of 50,000 records (${hostile.large.checks} checks, exit ${hostile.large.exit})`,
      measured: hostile.large.ms,
      unit: 'ms',
      budget: 30_000,
    });
    rows.push({
      what: 'peak RSS during those two runs (in-process)',
      measured: Math.max(hostile.bomb.peakRssMb, hostile.large.peakRssMb),
      unit: 'MiB',
      budget: 600,
    });
  },
  'large-list': async (rows, exits) => {
    // A REST run of the built CLI against 50,000 conformant records, three times: the target is 3 s and 200 MiB.
    const runs = await largeListRuns(50_000, 3);
    exits.push(...runs.map((r) => r.exit ?? 1));
    const what = `REST run of the CLI against a list of 50,000 records (exit ${[...new Set(runs.map((r) => r.exit))].join('/')}; CPU ${runs.map((r) => (r.cpuMs / 1000).toFixed(1)).join(', ')} s)`;
    rows.push({
      what: `${what}: wall time, median of 3 (${runs.map((r) => (r.ms / 1000).toFixed(1)).join(', ')} s)`,
      measured: median(runs.map((r) => r.ms)) / 1000,
      unit: 's',
      budget: 3,
    });
    rows.push({ what: `${what}: peak RSS, most of 3`, measured: Math.max(...runs.map((r) => r.peakRssMb)), unit: 'MiB', budget: 200 });
  },
  gate: async (rows) => {
    // The egress gate masks everything from outside in one literal pass: no shape may cost much more than plain text.
    // The least CPU time of 5 masks per shape: on a shared machine, the neighbours only ever add to it.
    const costs = gateCost(5);
    const plain = costs.find((g) => g.shape === 'plain')!;
    for (const g of costs) {
      rows.push({
        what: `egress gate: mask 16 MiB of ${g.shape}, CPU time against plain text's (${g.all.map(Math.round).join(', ')} ms; plain ${Math.round(plain.ms)} ms)`,
        measured: (g.ms / plain.ms) * 100,
        unit: '%',
        budget: 150,
      });
      rows.push({ what: `egress gate: mask 16 MiB of ${g.shape}, peak RSS of the process`, measured: g.peakRssMb, unit: 'MiB', budget: 300 });
    }
  },
  readers: async (rows, exits) => {
    // verify-certificate and compare read size and digest before they parse, and nothing past MAX_RESULTS_BYTES.
    // CPU time, not wall time: a loaded machine stretches the latter several-fold.
    const costs = readerCosts();
    const [verified, altered, huge, compared, hugeCompared] = costs;
    exits.push(verified.exit === 0 && altered.exit === 1 && huge.exit === 1 && compared.exit === 0 && hugeCompared.exit === 2 ? 0 : 1);
    const budgets = [
      [verified, 15, 700],
      [altered, 3, 300],
      [huge, 3, 250],
      [compared, 10, 600],
      [hugeCompared, 3, 250],
    ] as const;
    for (const [c, cpuS, rssMb] of budgets) {
      rows.push({ what: `${c.what} (exit ${c.exit}; wall ${(c.ms / 1000).toFixed(1)} s): CPU time`, measured: c.cpuMs / 1000, unit: 's', budget: cpuS });
      rows.push({ what: `${c.what}: peak RSS`, measured: c.peakRssMb, unit: 'MiB', budget: rssMb });
    }
  },
  bounded: async (rows, exits) => {
    // Every answer of the target (the REST list and each JSON-RPC result) has the shape, near the 16 MiB cap.
    // BOUNDED_SHAPES=near-cap,long-string narrows the group to those shapes; BOUNDED_ARGS='--concurrency 2' adds flags to its runs.
    const only = process.env.BOUNDED_SHAPES?.split(',');
    for (const shape of SHAPES.filter((s) => !only || only.includes(s))) {
      const r = await boundedRun(shape);
      // A verdict and all four reports: exit 0, 1 or 3 (2 is a usage error, a signal or a crash is no verdict).
      const ended = r.reports === 4 && (r.exit === 0 || r.exit === 1 || r.exit === 3);
      exits.push(ended ? 0 : 1);
      const what = `every answer ${shape}, ${(r.listBytes / 2 ** 20).toFixed(1)} MiB (exit ${r.exit}, ${r.reports}/4 reports, ${r.checks} checks)`;
      rows.push({ what: `${what}: wall time`, measured: r.ms / 1000, unit: 's', budget: 60 });
      rows.push({ what: `${what}: peak RSS`, measured: r.peakRssMb, unit: 'MiB', budget: 400 });
    }
  },
};

async function run(): Promise<void> {
  const rows: Row[] = [];
  const exits: number[] = [];
  const loadBefore = loadavg();
  const words = process.argv.slice(2);
  for (const [name, group] of Object.entries(GROUPS)) if (words.length === 0 || words.some((w) => name.includes(w))) await group(rows, exits);

  let missed = 0;
  process.stdout.write('| measure | value | budget | |\n|---|---|---|---|\n');
  for (const r of rows) {
    // NaN (not measured: the run crashed before it could say) misses its budget.
    const ok = r.higherIsBetter ? r.measured >= r.budget : r.measured <= r.budget;
    if (!ok) missed++;
    process.stdout.write(
      `| ${r.what} | ${Math.round(r.measured)} ${r.unit} | ${r.higherIsBetter ? '>=' : '<='} ${r.budget} ${r.unit} | ${ok ? 'ok' : 'MISSED'} |\n`,
    );
  }
  if (exits.some((e) => e !== 0)) missed++;
  // The machine may be shared: absolute times mean little without its load.
  const loadAfter = loadavg();
  process.stdout.write(
    `\nload average (1/5/15 min) before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}\n`,
  );
  process.exit(missed ? 1 : 0);
}

run().catch((err) => {
  process.stderr.write(`bench: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
