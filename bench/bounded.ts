/**
 * Bounded work on any answer up to the 16 MiB cap: one CLI run (the built dist/, a child
 * process, so its peak RSS is its own) against a loopback target whose every answer has one
 * hostile shape, timed and measured. A run must end with a verdict and all reports.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startHostileAnswerServer, type Shape } from './hostile-answers';

const ROOT = path.resolve(__dirname, '..');
/** Where a run that never ends is stopped: well past the 60 s budget, so the row says MISSED. */
const KILL_AFTER_MS = 180_000;
const REPORTS = ['results.json', 'junit.xml', 'summary.md', 'report.html'];

export interface BoundedRun {
  shape: Shape;
  listBytes: number;
  exit: number | string;
  ms: number;
  peakRssMb: number;
  /** The reports the run wrote, of the four it must write. */
  reports: number;
  checks: number;
}

export async function boundedRun(shape: Shape): Promise<BoundedRun> {
  const server = await startHostileAnswerServer(shape);
  const dir = mkdtempSync(path.join(tmpdir(), `bench-${shape}-`));
  const rssFile = path.join(dir, 'max-rss');
  const reportDir = path.join(dir, 'reports');
  try {
    const started = performance.now();
    const exit = await new Promise<number | string>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--require',
          path.join(__dirname, 'max-rss.js'),
          path.join(ROOT, 'bin/conformance.js'),
          '--base-url',
          server.url,
          '--rpc-url',
          `${server.url}/rpc`,
          '--report-dir',
          reportDir,
          ...(process.env.BOUNDED_ARGS ? process.env.BOUNDED_ARGS.split(' ') : []),
        ],
        { env: { ...process.env, MAX_RSS_FILE: rssFile }, stdio: 'ignore' },
      );
      const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve(code ?? signal ?? 'unknown');
      });
    });
    const ms = performance.now() - started;
    const peakRssMb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) / 1024 : NaN;
    const reports = REPORTS.filter((f) => existsSync(path.join(reportDir, f))).length;
    let checks = 0;
    try {
      checks = (JSON.parse(readFileSync(path.join(reportDir, 'results.json'), 'utf8')) as { checks: unknown[] }).checks.length;
    } catch {
      checks = 0;
    }
    return { shape, listBytes: server.listBytes, exit, ms, peakRssMb, reports, checks };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
