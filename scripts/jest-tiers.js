#!/usr/bin/env node
// `npm test`'s jest: the main project on its workers (jest.config.ts), then the busy-core
// project (tests that keep a core busy, see jest.config.ts) one file at a time, beside nothing
// else. Arguments go to both runs (a path filter, -t, …); `--outputFile=<f>` with `--json` gets
// one document holding both runs' results, as a single jest run would write it. Exit 1 when
// either failed.
// Each tier is bounded in wall-clock time (scripts/bounded-jest.js): a tier that does not end
// fails with the test files still running named, well inside CI's own limit (5400 s), instead
// of holding CI until that limit with no log kept. JEST_TIER_LIMIT_S sets the bound of each tier.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { readFileSync, rmSync, writeFileSync } = require('node:fs');
const { availableParallelism, freemem } = require('node:os');
const path = require('node:path');
const { runBounded } = require('./bounded-jest');

// `--typecheck` (npm test gives it): the type check runs too. jest transpiles only (scripts/jest-transform.js), so
// tsc is what judges the types; it runs beside the main tier, whose tests spend most of their
// time waiting on block clocks, rather than before it (about 20 s of CPU from a clean clone).
const typecheck = process.argv.includes('--typecheck');
// `--dry-run`: each tier's jest command is printed, not run (the type check still runs): what this
// script decides, shown without the cost of two jests. A flag, never the environment: an exported
// variable would turn every `npm test` after it green with no test run.
const dryRun = process.argv.includes('--dry-run');
const args = process.argv.slice(2).filter((a) => a !== '--typecheck' && a !== '--dry-run');
const outputAt = args.findIndex((a) => a.startsWith('--outputFile'));
const output = outputAt < 0 ? undefined : args[outputAt].includes('=') ? args[outputAt].split('=')[1] : args[outputAt + 1];
const rest = outputAt < 0 ? args : args.filter((_, i) => i !== outputAt && !(i === outputAt + 1 && !args[outputAt].includes('=')));
const jest = require.resolve('jest/bin/jest');
/**
 * The environment of every jest this script starts. jest loads its .ts config through ts-node:
 * TS_NODE_TRANSPILE_ONLY, since the types are tsc's to judge (--typecheck). DISABLE_V8_COMPILE_CACHE:
 * ts-node loads the TypeScript compiler through v8-compile-cache, whose code cache is one pair of
 * files per jest checkout in the temporary folder, written by every jest at its exit without a
 * lock; a jest that read it while another wrote it crashed in V8 ("Fatal error ... unreachable
 * code" in the Deserializer: nodejs/node#51555), as a CI run did with the tests' own child jests
 * beside the main tier. Without the cache a jest starts about 0.1 s later.
 */
const JEST_ENV = { TS_NODE_TRANSPILE_ONLY: 'true', DISABLE_V8_COMPILE_CACHE: '1' };

// The bounds: several times what each tier takes on an idle 2-core machine (main about 170-200 s
// on four workers, 415 s on two in a clean clone; busy-core 60 s); the two together leave 600 s
// of .ci/run's 2700 s npm test stage for the build, so a stopped tier names its files before the
// stage's own bound.
const raw = process.env.JEST_TIER_LIMIT_S;
const limitS = raw === undefined || raw === '' ? undefined : Number(raw);
if (limitS !== undefined && !(Number.isFinite(limitS) && limitS > 0)) {
  console.error(`jest-tiers: JEST_TIER_LIMIT_S must be a positive number of seconds, not ${JSON.stringify(raw)}`);
  process.exit(2);
}
const ROOT = path.join(__dirname, '..');
// The project type-checked: the repository's, or JEST_TIERS_TSCONFIG's (the tests' own, to show
// a failed check failing the run); tsc's incremental state is kept beside it.
const tsconfig = process.env.JEST_TIERS_TSCONFIG || path.join(ROOT, 'tsconfig.json');
const TSC = [
  require.resolve('typescript/bin/tsc'),
  '--noEmit',
  '-p',
  tsconfig,
  '--incremental',
  '--tsBuildInfoFile',
  path.join(path.dirname(tsconfig), '.tsbuildinfo'),
];
/** The type check's bound: about ten times a full check from a clean clone. */
const TSC_LIMIT_MS = 300_000;

// Watching, listing or help are not runs to bound: jest as it is, in this process group (keys reach it).
if (rest.some((a) => /^--(watch|watchAll|listTests|help|showConfig)(=|$)/.test(a))) {
  if (typecheck) {
    const t = spawnSync(process.execPath, TSC, { stdio: 'inherit', cwd: ROOT, timeout: TSC_LIMIT_MS });
    if (t.status !== 0) {
      const why = t.error ? `did not end within ${TSC_LIMIT_MS / 1000} s: stopped` : t.signal ? `ended by ${t.signal}` : `exit ${t.status}`;
      console.error(`jest-tiers: the type check (tsc) failed: ${why}`);
      process.exit(1);
    }
  }
  const r = spawnSync(process.execPath, [jest, ...rest], {
    stdio: 'inherit',
    cwd: ROOT,
    env: { ...JEST_ENV, ...process.env },
  });
  process.exit(r.status ?? 1);
}
/**
 * How many of the machine's cores no other process is using: /proc/stat's idle share over `ms`,
 * times the cores (Linux); undefined where it cannot be read.
 */
async function idleCores(ms) {
  const sample = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: f[3] + (f[4] || 0), total: f.reduce((a, b) => a + b, 0) };
  };
  try {
    const a = sample();
    await new Promise((r) => setTimeout(r, ms));
    const b = sample();
    return b.total > a.total ? (availableParallelism() * (b.idle - a.idle)) / (b.total - a.total) : undefined;
  } catch {
    return undefined;
  }
}

const WORKER_FLAG = /^(-w|--maxWorkers|--max-workers|-i|--runInBand|--run-in-band)(=|$)|^-w\d/;
/** The arguments without a worker count: the busy-core tier runs one file at a time whatever the user asked. */
const withoutWorkers = (list) => list.filter((a, i) => !WORKER_FLAG.test(a) && !(i > 0 && /^(-w|--maxWorkers|--max-workers)$/.test(list[i - 1])));

/**
 * Memory one main-tier worker may take with its children (references, anvils, command-line runs):
 * four took 2.1 GB at their peak on the idle 2-core machine, about half of this each.
 */
const WORKER_MEMORY_BYTES = 2 ** 30;

/**
 * The main tier's workers: one per core, one more for every two cores idle at the start (one and
 * a half count as two), and another for every two that are wholly idle (within a tenth of a
 * core). Its tests spend most of their time waiting on block clocks: an idle 2-core machine ran
 * the main tier in 237 s on two workers, 173 s on three (1.56 cores busy) and 150 s on four. Four
 * first failed timing-sensitive tests for load alone in three of eight runs; two of those
 * failures were the suite's and the reference's own (a miss counted too early, a flashblock that
 * fell behind skipped: both fixed), and since then it passed every run (bench/HISTORY.md).
 * Beside other work a third worker's load broke timing-sensitive tests (two failed with one core
 * kept busy) that pass on two: a machine with one core idle gets no extra worker, and one whose
 * background takes up to half a core (never measured at four) gets three. An extra worker also needs
 * memory: it is given only while the workers' total stays within WORKER_MEMORY_BYTES each of the
 * memory available (a container's limit counts), never fewer than one per core. A worker count
 * the user gives (WORKER_FLAG) is theirs.
 */
async function mainWorkers() {
  if (rest.some((a) => WORKER_FLAG.test(a))) return { args: [] };
  const cores = availableParallelism();
  const idle = await idleCores(500);
  // Half a core's slack for the first extra worker, a tenth for the second.
  const extra = Math.floor(((idle ?? 0) + 0.5) / 2) + Math.floor(((idle ?? 0) + 0.1) / 2);
  // process.availableMemory (Node 20.13) honours a container's memory limit; os.freemem does not.
  const available = typeof process.availableMemory === 'function' ? process.availableMemory() : freemem();
  const workers = cores + Math.max(0, Math.min(extra, Math.floor(available / WORKER_MEMORY_BYTES) - cores));
  const said = idle === undefined ? 'idle share unknown' : `${idle.toFixed(1)} idle`;
  const gb = (available / 2 ** 30).toFixed(1);
  return { args: [`--maxWorkers=${workers}`], said: `jest-tiers: the main tier on ${workers} workers (${cores} cores, ${said}, ${gb} GiB available)\n` };
}

const tiers = [
  { name: 'main', args: ['--selectProjects', 'main'], limitS: limitS ?? 1500 },
  { name: 'busy-core', args: ['--selectProjects', 'busy-core', '--runInBand'], limitS: limitS ?? 600 },
];

/** The background type check, stopped when this process stops on a signal (it would outlive it). */
let typecheckChild;
/**
 * tsc in the background, its output held until the caller prints it (not mixed into jest's):
 * resolves to whether the types check, and what tsc said. Bounded; a Ctrl-C at the terminal
 * reaches it too (same process group).
 */
function startTypecheck() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, TSC, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    typecheckChild = child;
    const chunks = [];
    let held = 0;
    const keep = (c) => {
      // A type check's output is bounded by the code's size; this bound is for a tsc gone wrong.
      if (held < 4 << 20) chunks.push(c);
      held += c.length;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), TSC_LIMIT_MS);
    child.on('error', (err) => chunks.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      const said = Buffer.concat(chunks).toString('utf8');
      if (status === 0) return resolve({ ok: true, said });
      const why = signal === 'SIGKILL' ? `did not end within ${TSC_LIMIT_MS / 1000} s: stopped` : signal ? `ended by ${signal}` : `exit ${status}`;
      resolve({ ok: false, said: `${said}jest-tiers: the type check (tsc) failed: ${why}\n` });
    });
  });
}

async function main() {
  const docs = [];
  let failed = false;
  // Measured before the type check starts: the load it adds is this run's own.
  const workers = await mainWorkers();
  if (workers.said) process.stdout.write(workers.said);
  const typechecked = typecheck ? startTypecheck() : undefined;
  for (const [i, tier] of tiers.entries()) {
    if (i === 1 && typechecked) {
      // Said before the busy-core tier starts, so that tier runs beside nothing.
      const t = await typechecked;
      if (t.said) process.stdout.write(t.said);
      if (!t.ok) failed = true;
    }
    const file = output && `${output}.${i}`;
    const args = [
      ...tier.args,
      ...(i === 0 ? workers.args : []),
      '--passWithNoTests',
      ...(i === 0 ? rest : withoutWorkers(rest)),
      ...(file ? [`--outputFile=${file}`] : []),
    ];
    if (dryRun) {
      process.stdout.write(`jest-tiers: the ${tier.name} tier would run: jest ${JSON.stringify(args)}\n`);
      continue;
    }
    const r = await runBounded({
      label: `jest-tiers: the ${tier.name} tier`,
      args: [jest, ...args],
      limitMs: tier.limitS * 1000,
      exitGraceMs: 30_000,
      cwd: ROOT,
      env: { ...JEST_ENV, ...process.env },
    });
    if (r.status !== 0 || r.stopped) failed = true;
    if (file) {
      try {
        docs.push(JSON.parse(readFileSync(file, 'utf8')));
      } catch {
        failed = true;
      }
      rmSync(file, { force: true });
    }
    if ((r.interrupted || (r.signal && !r.stopped)) && typecheckChild && typecheckChild.exitCode === null) typecheckChild.kill('SIGTERM');
    if (r.interrupted) process.kill(process.pid, r.interrupted); // no later tier after a Ctrl-C
    if (r.signal && !r.stopped) process.kill(process.pid, r.signal);
  }
  return { docs, failed };
}

void main().then(({ docs, failed }) => {
  if (output && docs.length) {
    // A failed type check fails the document too, not only the exit code.
    const merged = { ...docs[0], testResults: docs.flatMap((d) => d.testResults), success: docs.every((d) => d.success) && !failed };
    for (const key of Object.keys(docs[0]))
      if (key.startsWith('num') && typeof docs[0][key] === 'number') merged[key] = docs.reduce((n, d) => n + (d[key] ?? 0), 0);
    merged.startTime = Math.min(...docs.map((d) => d.startTime));
    writeFileSync(output, JSON.stringify(merged));
  }
  process.exit(failed ? 1 : 0);
});
