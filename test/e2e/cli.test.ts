import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { validateRef } from '../../src/harness/schemas';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { descendants, gone, running } from '../support/processes';
import { capture } from '../support/sink';

const ROOT = path.resolve(__dirname, '../..');
const DEV_KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the real CLI as a user would, with a clean environment and a bounded time. */
function cli(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; onStdout?: (s: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<Run> {
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

/**
 * The CLI's main in this process, for what its words and exit code say (no process of its own:
 * the tests below that need one, for exit codes, signals and output as a script sees them, spawn it).
 */
async function inProcess(args: string[], env: Record<string, string> = {}): Promise<Omit<Run, 'signal'>> {
  const [out, err] = [capture(), capture()];
  const code = await main(args, { NO_COLOR: '1', ...env }, { out: out.stream, err: err.stream });
  return { code, stdout: out.text(), stderr: err.text() };
}

const reportDir = () => mkdtempSync(path.join(tmpdir(), 'reports-'));
const results = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));

// One reference target for the file's remote runs (each embedded run starts its own: the one below
// that proves the embedded target, and those through npm run).
let ref: ReferenceTarget;
beforeAll(async () => {
  ref = await startReference({ blockTimeMs: 1000 });
}, 60_000);
afterAll(() => ref?.stop());

describe('CLI', () => {
  it.each([['--help'], ['-h']])('%s lists every flag with its environment variable and the exit codes, exit 0', async (flag) => {
    const r = await inProcess([flag]);
    expect(r.code).toBe(0);
    for (const s of [
      '--base-url',
      '[BASE_URL]',
      '--rpc-url',
      '--profile',
      '--signer-key',
      '--only',
      '--grep',
      '--timeout-ms',
      '--header',
      '[HEADERS]',
      '--secret',
      '[SECRETS]',
      '--nav-max-age',
      '--expectations',
      'exit codes',
    ])
      expect(r.stdout).toContain(s);
  });

  it('--list with a selection of nothing answers like a run with it: exit 2, the same message', async () => {
    const [list, run] = [await inProcess(['--list', '--grep', 'no-such-check-id-at-all']), await inProcess(['--grep', 'no-such-check-id-at-all'])];
    expect([list.code, run.code]).toEqual([2, 2]);
    expect(list.stderr).toMatch(/selected no check/);
    expect(list.stderr).toBe(run.stderr);
    expect(list.stdout).toBe('');
  });

  it('--list | head -1 prints one line and no EPIPE stack', () => {
    const command = `"${process.execPath}" "${path.join(ROOT, 'bin/run-ts.js')}" "${path.join(ROOT, 'src/cli/run.ts')}" --list | head -1; echo "exit \${PIPESTATUS[0]}" >&2`;
    // stdin not a socket: Debian's bash reads ~/.bashrc when stdin is one (its rsh detection).
    const r = spawnSync('bash', ['-c', command], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/^rest\./);
    expect(r.stderr.trim()).toBe('exit 0');
  });

  it.each([
    [['--profile', 'private'], {}, /--profile \(or RPC_PROFILE\)/],
    [[], { RPC_URL: 'ftp://127.0.0.1/' }, /--rpc-url \(or RPC_URL\)/],
    [['--only', 'nothing'], {}, /--only/],
    [['--expectations', '/nonexistent/file.yml'], {}, /--expectations.*cannot read/],
    [['--grep', 'no-such-check-id-at-all'], {}, /selected no check/],
    [[], { BASE_URL: '' }, /^conformance: BASE_URL is set but empty/],
    [[], { RPC_URL: '' }, /^conformance: RPC_URL is set but empty/],
    [['--rpc-url', ''], {}, /^conformance: --rpc-url is empty/],
    [['--secret', 'ab'], {}, /--secret \(or SECRETS\)/],
  ])('bad invocation %j exits 2 naming the flag or variable', async (args, env, message) => {
    const r = await inProcess(args as string[], env as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('a bad invocation is exit 2 and its message on stderr as a script sees them, nothing on stdout', async () => {
    const r = await cli([], { env: { RPC_URL: '' } });
    expect([r.code, r.signal]).toEqual([2, null]);
    expect(r.stderr).toMatch(/^conformance: RPC_URL is set but empty/);
    expect(r.stdout).toBe('');
  });

  it('an unreachable target exits 1, still writes the reports, and says why', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const dir = reportDir();
    const r = await inProcess(['--rpc-url', `http://127.0.0.1:${port}`, '--only', 'rpc', '--report-dir', dir, '--timeout-ms', '2000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/rpc target unreachable/);
    const doc = results(dir);
    expect(doc.checks.length).toBeGreaterThan(0);
    const failed = doc.checks.filter((c: { status: string }) => c.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((c: { cause: string; unreachable: string }) => c.cause === 'unreachable' && c.unreachable === 'rpc')).toBe(true);
    for (const f of ['junit.xml', 'summary.md', 'report.html']) expect(existsSync(path.join(dir, f))).toBe(true);
  });

  it('a run whose reports cannot be written is never exit 0: the verdict in the console, then exit 2', async () => {
    const dir = reportDir();
    mkdirSync(path.join(dir, 'results.json')); // a folder where the file must go: the write fails
    const r = await inProcess(['--base-url', ref.baseUrl, '--report-dir', dir]);
    expect(r.stdout).toMatch(/^status: conformant/m);
    expect(r.stderr).toMatch(/could not write reports to /);
    expect(r.code).toBe(2);
  });

  it('with no URL, runs everything against the embedded reference target and exits 0 with all four reports', async () => {
    const dir = reportDir();
    const r = await cli(['--report-dir', dir, '--block-time', '1000'], { timeoutMs: 240_000 });
    if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout.slice(-6000)}\n${r.stderr}`);
    const doc = results(dir);
    const verdict = validateRef('results.json', doc);
    expect(verdict.errors).toEqual([]);
    expect(doc.target.embedded).toBe(true);
    expect(r.stdout.split('\n')[0]).toMatch(/^target: the embedded reference target \(no BASE_URL or RPC_URL given\)/);
    expect(doc.checks.length).toBeGreaterThanOrEqual(40);
    expect(doc.counts.failed).toBe(0);
    // Signer checks ran with the reference's dev key: none may be skipped for want of a key.
    expect(doc.checks.filter((c: { outOfScope?: { flag: string } }) => c.outOfScope?.flag === '--signer-key')).toEqual([]);
    const sections = new Set(doc.checks.filter((c: { status: string }) => c.status === 'passed').flatMap((c: { section: string }) => c.section.split(', ')));
    for (const s of ['2.1', '2.2', '2.3', '4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '5.1']) expect(sections).toContain(s);
    // The embedded chain has history and a signer: the history and pre-confirmation checks are judged, not skipped.
    const notPassed = (prefix: string) =>
      doc.checks
        .filter((c: { id: string; status: string }) => c.id.startsWith(prefix) && c.status !== 'passed')
        .map((c: { id: string; status: string; reason: string }) => `${c.id}: ${c.status} ${c.reason}`);
    expect(notPassed('rpc.history.')).toEqual([]);
    // The advisory latency check may rightly say "not judged" when the runner is busy (a CI
    // runner with both jest workers packed measured 583 ms against the reference's 200 ms
    // flashblocks, 390 ms of it the suite's own event-loop delay); it must never fail.
    const LATENCY = 'preconf.latency.about-200ms';
    expect(notPassed('preconf.').filter((line: string) => !line.startsWith(`${LATENCY}: inconclusive `))).toEqual([]);
    for (const f of ['results.json', 'junit.xml', 'summary.md', 'report.html']) {
      const body = readFileSync(path.join(dir, f), 'utf8');
      expect(body).not.toContain(DEV_KEY); // the signer key never appears in output
    }
    expect(r.stdout + r.stderr).not.toContain(DEV_KEY);
    // Never "full scope" beside what was left out: the OpenAPI document (no --openapi) is named.
    expect(r.stdout).toMatch(
      /status: conformant — both interfaces and the pre-confirmed state; .*published OpenAPI document not judged \(no --openapi\).* \(profile dedicated, embedded reference target\)\nexit 0: conformant — every required check in scope was judged and none failed\n$/,
    );
  }, 300_000);

  it('SIGINT stops the run, keeps what was measured, and exits 130', async () => {
    const dir = reportDir();
    let sent = false;
    // With a signer the run lasts at least the pre-confirmation pass (seconds): the signal lands mid-run.
    const args = ['--base-url', ref.baseUrl, '--rpc-url', ref.rpcUrl, '--signer-key', ref.signerKey, '--report-dir', dir, '--concurrency', '1'];
    const r = await cli(args, {
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
    expect(doc.counts.passed).toBeGreaterThanOrEqual(3);
    expect(doc.checks.some((c: { status: string; cause: string }) => c.status === 'skipped' && c.cause === 'stopped')).toBe(true);
  }, 150_000);
});

/**
 * A gate in front of the reference target, as a provider puts one in front of a node: every
 * request needs the API key header and a short key as the first path segment (short enough
 * that only --secret can tell it is one), and the answer echoes the key back in a header. It
 * also accepts DELETE, which the read-only REST endpoint must refuse (4.1 rule 1): a failure
 * whose exchange carries the key header.
 */
async function startGate(upstream: string, pathKey: string, apiKey: string) {
  const server = http.createServer((req, res) => {
    const prefix = `/${pathKey}`;
    if (req.headers['x-api-key'] !== apiKey || !req.url?.startsWith(prefix)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 16, message: `key required (path ${req.url})`, details: [] }));
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo-key': apiKey }).end('{}');
      return;
    }
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', async () => {
      try {
        const up = await fetch(upstream + (req.url!.slice(prefix.length) || '/'), {
          method: req.method,
          headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(body),
          signal: AbortSignal.timeout(10_000),
        });
        const text = await up.text();
        res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json', 'x-echo-key': apiKey }).end(text);
      } catch (err) {
        res.writeHead(502).end(String(err));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${pathKey}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('secrets in a remote run', () => {
  it('never appear in any report or console line; curl lines name the variables instead', async () => {
    const PATH_KEY = 'pk7Q2x';
    const API_KEY = 'gate-api-key-9f8e7d';
    const [rest, rpc] = [await startGate(ref.baseUrl, PATH_KEY, API_KEY), await startGate(ref.rpcUrl, PATH_KEY, API_KEY)];
    try {
      const dir = reportDir();
      const r = await cli(
        ['--report-dir', dir, '--only', 'rest,rpc,cross', '--header', `X-Api-Key: ${API_KEY}`, '--secret', PATH_KEY, '--signer-key', `0x${DEV_KEY}`],
        {
          env: { BASE_URL: rest.url, RPC_URL: rpc.url },
          timeoutMs: 120_000,
        },
      );
      expect(r.stdout.split('\n')[0]).toMatch(
        /^target: REST http:\/\/127\.0\.0\.1:\d+\/\*\*\*, JSON-RPC http:\/\/127\.0\.0\.1:\d+\/\*\*\* \(profile dedicated\)$/,
      );
      const doc = results(dir);
      expect(doc.target.embedded).toBe(false);
      // The gate refuses a request without the key, so 5.1 (no API key needed) fails: a failure with exchanges.
      const noCredentials = doc.checks.find((c: { id: string }) => c.id === 'rest.list.no-credentials');
      expect(noCredentials.status).toBe('failed');
      const curls: string[] = doc.checks.flatMap((c: { exchanges?: Array<{ curl: string }> }) => (c.exchanges ?? []).map((e) => e.curl));
      expect(curls.length).toBeGreaterThan(0);
      expect(curls.every((c) => c.includes('"${BASE_URL:?export BASE_URL') || c.includes('"${RPC_URL:?export RPC_URL'))).toBe(true);
      const del = doc.checks.find((c: { id: string }) => c.id === 'rest.readonly.delete');
      expect(del.status).toBe('failed');
      expect(del.exchanges[0].curl).toContain('-H "${REST_HEADER_1:?export REST_HEADER_1: your X-Api-Key header line, Name: value}"');
      // And the line works: with the two variables exported, curl gets the gate's answer again.
      // (Asynchronously: the gate answers from this very process.)
      const replay = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
        const sh = spawn('bash', ['-c', del.exchanges[0].curl], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { PATH: process.env.PATH ?? '', BASE_URL: rest.url, REST_HEADER_1: `X-Api-Key: ${API_KEY}` },
        });
        let [stdout, stderr] = ['', ''];
        sh.stdout.on('data', (d) => (stdout += d));
        sh.stderr.on('data', (d) => (stderr += d));
        const timer = setTimeout(() => (sh.kill('SIGKILL'), reject(new Error('curl did not finish within 20 s'))), 20_000);
        sh.on('exit', () => (clearTimeout(timer), resolve({ stdout, stderr })));
      });
      expect(replay.stderr).toBe('');
      expect(replay.stdout).toMatch(/^HTTP\/1\.1 200/);
      for (const f of readdirSync(dir)) {
        const body = readFileSync(path.join(dir, f), 'utf8');
        for (const secret of [PATH_KEY, API_KEY, DEV_KEY]) expect({ file: f, leaks: body.includes(secret) }).toEqual({ file: f, leaks: false });
      }
      for (const secret of [PATH_KEY, API_KEY, DEV_KEY]) expect(r.stdout + r.stderr).not.toContain(secret);
    } finally {
      await rest.close();
      await rpc.close();
    }
  }, 150_000);
});

// ---- signals through npm run -------------------------------------------------------------

/**
 * `npm run <script>` in its own process group; once `ready` matches stdout, SIGTERM goes to npm
 * alone (as a CI runner or a supervisor sends it), and every process the run started must be
 * gone within a bounded wait.
 */
async function sigtermThroughNpm(script: string[], ready: RegExp): Promise<{ stdout: string; before: number[]; left: number[] }> {
  const npm = spawn('npm', ['run', '-s', ...script], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  let before: number[] = [];
  npm.stderr.on('data', (d) => (stderr += d));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready within 60 s\n${stdout}\n${stderr}`)), 60_000);
      npm.stdout.on('data', (d) => {
        stdout += d;
        if (ready.test(stdout)) {
          clearTimeout(timer);
          resolve();
        }
      });
      npm.once('exit', (code) => (clearTimeout(timer), reject(new Error(`npm exited ${code} early\n${stdout}\n${stderr}`))));
    });
    before = descendants(npm.pid!);
    npm.kill('SIGTERM');
    return { stdout, before, left: await gone(before, 15_000) };
  } finally {
    // Whatever the outcome, nothing of this run outlives the test (an orphan is no longer below npm).
    for (const pid of [...descendants(npm.pid!), ...before.filter(running), npm.pid!]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}

describe('signals through npm run', () => {
  it('SIGTERM to `npm run reference` stops node and anvil', async () => {
    const { before, left } = await sigtermThroughNpm(['reference', '--', '--json'], /"rpcUrl"/);
    expect(before.length).toBeGreaterThanOrEqual(2); // node, and anvil's guard with anvil under it
    expect(left).toEqual([]);
  }, 90_000);

  it('SIGTERM to `npm run conformance` stops the run (reports written) and the embedded target', async () => {
    const dir = reportDir();
    const { before, left } = await sigtermThroughNpm(['conformance', '--', '--embedded', '--report-dir', dir, '--concurrency', '1'], /\[\s*2\//);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(left).toEqual([]);
    expect(results(dir).interrupted).toMatch(/interrupted by SIGTERM/);
  }, 90_000);
});
