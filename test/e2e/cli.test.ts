import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { validateRef } from '../../src/harness/schemas';

const ROOT = path.resolve(__dirname, '../..');
const DEV_KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the real CLI as a user would, with a clean environment and a bounded time. */
function cli(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number; onStdout?: (s: string, child: ReturnType<typeof spawn>) => void } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    // The source, as `npm run conformance` runs it (the built dist/ is tested by scripts/pack-check.sh).
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/cli/run.ts'), ...args], {
      cwd: mkdtempSync(path.join(tmpdir(), 'cwd-')), // no stray .env is read
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      opts.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not finish within ${opts.timeoutMs ?? 60_000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const reportDir = () => mkdtempSync(path.join(tmpdir(), 'reports-'));
const results = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));

describe('CLI', () => {
  it('--help lists every flag with its environment variable and the exit codes', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const s of ['--base-url', '[BASE_URL]', '--rpc-url', '--profile', '--signer-key', '--only', '--grep', '--timeout-ms', '--header', '--nav-max-age', '--expectations', 'exit codes']) expect(r.stdout).toContain(s);
  });

  it.each([
    [['--profile', 'private'], {}, /--profile \(or RPC_PROFILE\)/],
    [[], { RPC_URL: 'ftp://127.0.0.1/' }, /--rpc-url \(or RPC_URL\)/],
    [['--only', 'nothing'], {}, /--only/],
    [['--expectations', '/nonexistent/file.yml'], {}, /--expectations.*cannot read/],
    [['--grep', 'no-such-check-id-at-all'], {}, /selected no check/],
  ])('bad invocation %j exits 2 naming the flag or variable', async (args, env, message) => {
    const r = await cli(args as string[], { env: env as Record<string, string> });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('an unreachable target exits 1, still writes the reports, and says why', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const dir = reportDir();
    const r = await cli(['--rpc-url', `http://127.0.0.1:${port}`, '--only', 'rpc', '--report-dir', dir, '--timeout-ms', '2000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/rpc target unreachable/);
    const doc = results(dir);
    expect(doc.checks.length).toBeGreaterThan(0);
    expect(doc.checks.filter((c: { status: string }) => c.status === 'failed').every((c: { reason: string }) => /target unreachable/.test(c.reason))).toBe(true);
    for (const f of ['junit.xml', 'summary.md', 'report.html']) expect(existsSync(path.join(dir, f))).toBe(true);
  });

  it('with no URL, runs everything against the embedded reference target and exits 0 with all four reports', async () => {
    const dir = reportDir();
    const r = await cli(['--report-dir', dir, '--block-time', '1000'], { timeoutMs: 240_000 });
    if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout.slice(-6000)}\n${r.stderr}`);
    const doc = results(dir);
    const verdict = validateRef('results.json', doc);
    expect(verdict.errors).toEqual([]);
    expect(doc.target.embedded).toBe(true);
    expect(doc.checks.length).toBeGreaterThanOrEqual(40);
    expect(doc.summary.requiredFailed).toBe(0);
    // Signer checks ran with the reference's dev key: none may be skipped for want of a key.
    expect(doc.checks.filter((c: { reason: string }) => /needs --signer-key/.test(c.reason))).toEqual([]);
    const sections = new Set(doc.checks.filter((c: { status: string }) => c.status === 'passed').flatMap((c: { section: string }) => c.section.split(', ')));
    for (const s of ['2.1', '2.2', '2.3', '4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '5.1']) expect(sections).toContain(s);
    for (const f of ['results.json', 'junit.xml', 'summary.md', 'report.html']) {
      const body = readFileSync(path.join(dir, f), 'utf8');
      expect(body).not.toContain(DEV_KEY); // the signer key never appears in output
    }
    expect(r.stdout + r.stderr).not.toContain(DEV_KEY);
    expect(r.stdout).toMatch(/verdict: no required check failed \(exit 0\)/);
  }, 300_000);

  it('SIGINT stops the run, keeps what was measured, and exits 130', async () => {
    const dir = reportDir();
    let sent = false;
    const r = await cli(['--report-dir', dir, '--block-time', '1000', '--concurrency', '1'], {
      timeoutMs: 120_000,
      onStdout: (out, child) => {
        if (!sent && /\[\s*3\//.test(out)) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    const doc = results(dir);
    expect(doc.interrupted).toMatch(/interrupted by SIGINT/);
    expect(doc.summary.passed).toBeGreaterThanOrEqual(3);
    expect(doc.checks.some((c: { reason: string }) => /not run: interrupted/.test(c.reason))).toBe(true);
  }, 150_000);
});
