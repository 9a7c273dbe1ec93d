// The real CLI in a child process, as a user or a CI job runs it: a clean environment (no stray
// .env: a fresh working directory), no TTY, NO_COLOR, and a bounded time.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** `source` runs src/ through tsx, as `npm run conformance` does; `dist` runs the built bin, as the package does. */
  from?: 'source' | 'dist';
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  const { from = 'source', timeoutMs = 90_000 } = opts;
  const entry = from === 'dist' ? [path.join(ROOT, 'bin/conformance.js')] : [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/cli/run.ts')];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: opts.cwd ?? mkdtempSync(path.join(tmpdir(), 'cwd-')),
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', CI: 'true', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not finish within ${timeoutMs} ms\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`));
    }, timeoutMs);
    // 'close', not 'exit': the output is read to its end, a warning written last included.
    child.on('close', (code) => {
      clearTimeout(timer);
      // A warning of Node's own (a listener leak, a deprecation, coded or not) reaches the user's terminal: never part of a run.
      const warning = /\(node:\d+\) (\[\w+\] )?\w*Warning: .*/.exec(stderr);
      if (warning) reject(new Error(`the CLI printed a Node warning: ${warning[0]}\n${stderr.slice(-3000)}`));
      else resolve({ code, stdout, stderr });
    });
  });
}
