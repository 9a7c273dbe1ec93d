// `conformance --json … | jq .status` with a reader slower than the suite: stdout through a pipe is
// asynchronous, and a process that exits before it drains leaves the reader the pipe's first 64 KiB
// of the document. The reader here, a shell pipeline as a user's, takes nothing until the run has
// said its last line, then reads.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { closeServer, listenLoopback } from '../support/loopback';

const ROOT = path.resolve(__dirname, '../..');

/** The CLI piped into a reader that starts `lateSec` after the run's last line (`exit N: …` on stderr). */
function runWithSlowReader(args: string[], lateSec: number): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'json-pipe-'));
  const cli = [process.execPath, path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/cli/run.ts'), ...args, '--report-dir', dir];
  const script = [
    'set -o pipefail',
    // The reader: waits (at most 90 s) for the run's exit line, then a while more, then reads.
    `"$@" 2> err.txt | (for i in $(seq 900); do grep -q '^exit [0-9]*: ' err.txt && break; sleep 0.1; done; sleep ${lateSec}; cat > out.json)`,
  ].join('\n');
  const child = spawn('bash', ['--noprofile', '--norc', '-c', script, 'bash', ...cli], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', CI: 'true' },
    stdio: 'ignore',
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('not done within 120 s'))), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout: readFileSync(path.join(dir, 'out.json'), 'utf8'), stderr: readFileSync(path.join(dir, 'err.txt'), 'utf8') });
    });
  });
}

describe('--json through a pipe whose reader is slow', () => {
  it('the reader gets the whole document (well over the 64 KiB a pipe holds), and the run its exit code', async () => {
    // An unreachable JSON-RPC target: a quick run whose document is about 90 KB.
    const r = await runWithSlowReader(['--json', '--rpc-url', 'http://127.0.0.1:9', '--timeout-ms', '2000'], 1);
    expect(r.stderr).toMatch(/^exit 1: /m);
    expect(Buffer.byteLength(r.stdout)).toBeGreaterThan(64 * 1024);
    const doc = JSON.parse(r.stdout) as { status: string; exitCode: number };
    expect(doc.status).toBe('non-conformant');
    expect(r.code).toBe(doc.exitCode);
  }, 150_000);
});

describe('a second Ctrl-C', () => {
  it('quits at once with 130, even while the run waits on a target that never answers', async () => {
    // A JSON-RPC target that takes every request and answers none.
    const held: http.ServerResponse[] = [];
    const server = http.createServer((_req, res) => void held.push(res));
    const url = await listenLoopback(server);
    const dir = mkdtempSync(path.join(tmpdir(), 'second-sigint-'));
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/cli/run.ts'), '--json', '--rpc-url', url, '--timeout-ms', '120000', '--report-dir', dir],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.resume();
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no request within 60 s')), 60_000);
        server.once('request', () => (clearTimeout(timer), resolve()));
      });
      // The second Ctrl-C once the first was taken (the run said it is stopping).
      const stopping = new Promise<void>((resolve, reject) => {
        let err = '';
        const timer = setTimeout(() => reject(new Error(`the first SIGINT was not taken within 30 s: ${err}`)), 30_000);
        child.stderr.on('data', (d) => {
          err += d;
          if (!/SIGINT received: stopping/.test(err)) return;
          clearTimeout(timer);
          resolve();
        });
      });
      child.kill('SIGINT');
      await stopping;
      const started = Date.now();
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      expect(code).toBe(130);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      child.kill('SIGKILL');
      await closeServer(server);
    }
  }, 120_000);
});
