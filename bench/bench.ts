/**
 * `npm run bench`: speed and memory targets, measured on this machine and compared with budgets.
 * Kept out of the unit tests on purpose: timing belongs here, not in assertions that flake.
 * Exit 1 when a budget is missed, so a CI job can opt in.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main';
import { validate } from '../src/harness/schemas';
import { startReference } from '../src/reference';

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

async function fullRun(): Promise<{ ms: number; checks: number; peakRssMb: number; exit: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-'));
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  const sink = new Writable({ write: (_c, _e, cb) => cb() }) as unknown as NodeJS.WriteStream;
  const t = performance.now();
  const exit = await main(['--report-dir', dir], {}, { out: sink, err: sink });
  const ms = performance.now() - t;
  clearInterval(sampler);
  const doc = require(path.join(dir, 'results.json')) as { checks: unknown[] };
  return { ms, checks: doc.checks.length, peakRssMb: peak / 2 ** 20, exit };
}

function schemaThroughput(records: number, ms: number): number {
  const token = { contract_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', symbol: 'AAPLx', name: 'Apple Inc.', decimals: 18, icon_url: 'https://icons.example/AAPL.svg', total_supply: 1234.5, isin: 'US0378331005', multiplier: 1.0237, paused_features: [0], nav_price: 189.12, nav_price_updated_at: '2026-11-20T20:00:00Z' };
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

async function run(): Promise<void> {
  const rows: Row[] = [];
  const starts = await referenceStartup(3);
  rows.push({ what: 'embedded reference start-up (median of 3)', measured: median(starts), unit: 'ms', budget: 1000 });
  rows.push({ what: 'CLI start-up to --list from dist/ (median of 3)', measured: median(cliStartup(3)), unit: 'ms', budget: 1500 });
  const full = await fullRun();
  rows.push({ what: `full run against the embedded target (${full.checks} checks, exit ${full.exit})`, measured: full.ms, unit: 'ms', budget: 60_000 });
  rows.push({ what: 'peak RSS during the full run (in-process)', measured: full.peakRssMb, unit: 'MiB', budget: 400 });
  rows.push({ what: 'token records validated per second (list schema)', measured: schemaThroughput(1000, 1000), unit: 'records/s', budget: 20_000, higherIsBetter: true });

  let missed = 0;
  process.stdout.write('| measure | value | budget | |\n|---|---|---|---|\n');
  for (const r of rows) {
    const ok = r.higherIsBetter ? r.measured >= r.budget : r.measured <= r.budget;
    if (!ok) missed++;
    process.stdout.write(`| ${r.what} | ${Math.round(r.measured)} ${r.unit} | ${r.higherIsBetter ? '>=' : '<='} ${r.budget} ${r.unit} | ${ok ? 'ok' : 'MISSED'} |\n`);
  }
  if (full.exit !== 0) missed++;
  process.exit(missed ? 1 : 0);
}

run().catch((err) => {
  process.stderr.write(`bench: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
