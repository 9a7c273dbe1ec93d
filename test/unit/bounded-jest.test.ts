// scripts/bounded-jest.js: a jest run that does not end is stopped, and says which test files were
// still running; one that reported its run complete and does not exit is stopped and blamed on an
// open handle; one that ends by itself passes its status through. The "jest" here is a small node
// script that writes the progress lines jest's reporter (scripts/jest-progress.js) would write.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { runBounded, readProgress } = require('../../scripts/bounded-jest') as {
  runBounded(o: { label: string; args: string[]; limitMs: number; exitGraceMs: number; cwd: string; env: NodeJS.ProcessEnv }): Promise<{
    status: number | null;
    signal: string | null;
    stopped?: string;
  }>;
  readProgress(file: string): { running: { test: string; at: number }[]; completeAt?: number };
};
const JestProgress = require('../../scripts/jest-progress') as new () => {
  onTestStart(t: { path: string }): void;
  onTestResult(t: { path: string }): void;
  onRunComplete(): void;
};

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'bounded-jest-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for jest: `body` runs with `note(what, test)` writing a progress line. */
function fakeJest(body: string): string {
  const file = path.join(dir, 'fake-jest.js');
  writeFileSync(
    file,
    `const fs = require('node:fs');
const note = (what, test = '') => fs.appendFileSync(process.env.JEST_PROGRESS_FILE, what + '\\t' + Date.now() + '\\t' + test + '\\n');
${body}`,
  );
  return file;
}

async function run(body: string, limitMs: number, exitGraceMs = 60_000) {
  const errors: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const r = await runBounded({ label: 'tier', args: [fakeJest(body)], limitMs, exitGraceMs, cwd: dir, env: process.env });
    return { ...r, said: errors.join('') };
  } finally {
    process.stderr.write = write;
  }
}

/** Whether process `pid` has ended within 5 s (polled every 100 ms). */
async function goneWithin5s(pid: number): Promise<boolean> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  return !alive();
}

it('passes the status of a run that ends by itself, and stops nothing', async () => {
  const r = await run(`note('start', ${JSON.stringify(path.join(os.tmpdir(), 'a.test.ts'))}); process.exit(3);`, 20_000);
  expect(r).toMatchObject({ status: 3, stopped: undefined });
});

it('stops a run past its bound, naming the test file still running, and its children with it', async () => {
  const pidFile = path.join(dir, 'child.pid');
  const body = `note('start', require('node:path').join(process.cwd(), 'done.test.ts'));
note('done', require('node:path').join(process.cwd(), 'done.test.ts'));
note('start', require('node:path').join(process.cwd(), 'stuck.test.ts'));
const child = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
fs.writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
for (;;) {}`;
  const began = Date.now();
  const r = await run(body, 1_500);
  expect(Date.now() - began).toBeLessThan(15_000);
  expect(r.stopped).toMatch(/not ended within 2 s; test files still running: stuck\.test\.ts \(for \d+ s\)/);
  expect(r.stopped).not.toMatch(/done\.test\.ts/);
  expect(r.said).toContain(r.stopped);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  expect(await goneWithin5s(pid)).toBe(true);
});

it('stops a run that reported itself complete and did not exit, blaming an open handle', async () => {
  const r = await run(`note('complete'); setInterval(() => {}, 1000);`, 60_000, 500);
  expect(r.stopped).toMatch(/reported its run complete \d+ s ago and has not exited: a test left a handle open/);
  expect(r.stopped).toContain('--detectOpenHandles');
});

it("jest's progress reporter writes what the bound reads", () => {
  const file = path.join(dir, 'progress.tsv');
  const saved = process.env.JEST_PROGRESS_FILE;
  process.env.JEST_PROGRESS_FILE = file;
  try {
    const reporter = new JestProgress();
    reporter.onTestStart({ path: '/x/a.test.ts' });
    reporter.onTestStart({ path: '/x/b.test.ts' });
    reporter.onTestResult({ path: '/x/a.test.ts' });
    expect(readProgress(file)).toEqual({ running: [{ test: '/x/b.test.ts', at: expect.any(Number) }], completeAt: undefined });
    reporter.onRunComplete();
    expect(readProgress(file).completeAt).toEqual(expect.any(Number));
  } finally {
    if (saved === undefined) delete process.env.JEST_PROGRESS_FILE;
    else process.env.JEST_PROGRESS_FILE = saved;
  }
  expect(existsSync(file)).toBe(true);
});

it('a watchdog stops the jest group when the process bounding it is killed outright (SIGKILL)', async () => {
  const pidFile = path.join(dir, 'jest.pid');
  const fake = fakeJest(`require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`);
  const parent = require('node:child_process').spawn(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(path.join(__dirname, '../../scripts/bounded-jest'))}).runBounded({ label: 'x', args: [${JSON.stringify(fake)}], limitMs: 60000, exitGraceMs: 60000, cwd: ${JSON.stringify(dir)}, env: process.env })`,
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
  const pid = Number(readFileSync(pidFile, 'utf8'));
  parent.kill('SIGKILL');
  expect(await goneWithin5s(pid)).toBe(true);
});
