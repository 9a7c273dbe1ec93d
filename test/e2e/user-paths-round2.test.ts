// A user's day, round 2, through the CLI: a report folder that cannot be written or that another
// run is writing, files where the user ran the command, and --json for scripts. Targets are on
// loopback (a closed port stands for one that is down: each run is short and needs no chain).
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/cli/config';
import { main } from '../../src/cli/main';
import { LOCK_FILE } from '../../src/cli/report-lock';
import { exitWords } from '../../src/verdict/status';
import { closeServer, listenLoopback } from '../support/loopback';
import { capture, sink } from '../support/sink';

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A run against a REST target that is down: short, and it writes its reports. */
const DOWN = ['--base-url', 'http://127.0.0.1:9', '--only', 'rest', '--timeout-ms', '1000', '--deadline-ms', '60000'];

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out = capture();
  const err = capture();
  const code = await main(argv, env, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text(), all: out.text() + err.text() };
}

const lastLines = (text: string, n: number) => text.trimEnd().split('\n').slice(-n);

describe('a report folder that cannot be written', () => {
  it('is found before the run: exit 2 at once, with the path and why, nothing judged', async () => {
    // /sys refuses new files even to root, as a read-only folder refuses them to a user.
    const r = await run([...DOWN, '--report-dir', '/sys/kernel']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^conformance: --report-dir \(or REPORT_DIR\): cannot write in \/sys\/kernel: permission denied/m);
    expect(r.out).not.toContain('target:');
    expect(r.all).not.toMatch(/^status: /m);
  });

  it('when the reports still cannot be written at the end, the last two lines are the status and the real exit code', async () => {
    const dir = tempDir('unwritable-');
    mkdirSync(path.join(dir, 'results.json')); // a folder where the file must go
    // An API that answers, judged on nothing (no --openapi): incomplete, exit 3, which a missing report turns into 2.
    const api = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"tokens":[]}'));
    const baseUrl = await listenLoopback(api);
    const both = sink();
    const code = await main(['--base-url', baseUrl, '--grep', '^rest\\.openapi\\.', '--report-dir', dir], {}, { out: both.stream, err: both.stream }).finally(
      () => closeServer(api),
    );
    expect(code).toBe(2);
    const [status, exit] = lastLines(both.text(), 2);
    expect(status).toMatch(/^status: .* but the reports were not written$/);
    expect(exit).toBe(exitWords(2));
  }, 60_000);
});

describe('two runs into one folder', () => {
  it('the second is refused while the first runs, naming it; the first writes its reports and leaves no lock', async () => {
    const dir = tempDir('two-runs-');
    const [first, second] = await Promise.all([run([...DOWN, '--report-dir', dir]), run([...DOWN, '--report-dir', dir])]);
    expect(second.code).toBe(2);
    expect(second.err).toMatch(
      new RegExp(
        `^conformance: --report-dir \\(or REPORT_DIR\\): another run \\(pid ${process.pid}, since .*\\) is writing its reports to ${dir}: wait for it to end`,
        'm',
      ),
    );
    expect(second.out).not.toContain('target:');
    expect(first.code).not.toBe(2);
    expect(existsSync(path.join(dir, 'results.json'))).toBe(true);
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  }, 60_000);

  it('a lock left by a run that is no longer running is taken over, and said', async () => {
    const dir = tempDir('stale-lock-');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const pid = Number(gone.stdout);
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }));
    const r = await run([...DOWN, '--report-dir', dir]);
    expect(r.err).toContain(
      `conformance: note: ${dir}: took over the lock of an earlier run (pid ${pid}, since 2026-01-01T00:00:00.000Z) that is no longer running`,
    );
    expect(r.code).not.toBe(2);
    expect(JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')).checks.length).toBeGreaterThan(0);
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  }, 60_000);

  it('a lock whose process id was reused since (a CI container restarted: this very process, or one started after it) is taken over', async () => {
    const dir = tempDir('reused-pid-');
    const before = '2026-01-01T00:00:00.000Z';
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: before }));
    const mine = await run([...DOWN, '--report-dir', dir]);
    expect(mine.err).toContain(`took over the lock of an earlier run (pid ${process.pid}, since ${before}) that is no longer running`);
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, host: hostname(), startedAt: before }));
      const other = await run([...DOWN, '--report-dir', dir]);
      expect(other.err).toContain(`took over the lock of an earlier run (pid ${sleeper.pid}, since ${before})`);
      expect(other.code).not.toBe(2);
      // The same process holding a lock written after it started (it was spawned before the run
      // above, which has ended since): a run going on in another process, refused.
      const now = new Date().toISOString();
      writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, host: hostname(), startedAt: now }));
      const refused = await run([...DOWN, '--report-dir', dir]);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(`another run (pid ${sleeper.pid}, since ${now}) is writing its reports to ${dir}`);
    } finally {
      sleeper.kill();
    }
  }, 60_000);

  it("a lock of another machine's run (a shared folder) is refused with the file to remove", async () => {
    const dir = tempDir('other-host-');
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: 'build-7', startedAt: '2026-01-01T00:00:00.000Z' }));
    const r = await run([...DOWN, '--report-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`another run (pid 1 on build-7, since 2026-01-01T00:00:00.000Z) is writing its reports to ${dir}`);
    expect(r.err).toContain(`if no run is going there, remove ${path.join(dir, LOCK_FILE)}`);
  });
});

/** A REST API on loopback that answers every GET with an empty list: enough to judge the list's checks. */
async function emptyApi(): Promise<{ url: string; close(): Promise<void> }> {
  const api = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"tokens":[]}'));
  const url = await listenLoopback(api);
  return { url, close: () => closeServer(api) };
}

describe('files where the user is (npm run runs the command in the package root; INIT_CWD is where it was typed)', () => {
  const ROOT = path.resolve(__dirname, '../..');

  it('relative --report-dir, --openapi and --sign-key are taken from INIT_CWD', () => {
    const user = tempDir('user-dir-');
    writeFileSync(path.join(user, 'api.json'), '{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(path.join(user, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const cfg = loadConfig(['--report-dir', 'out', '--openapi', 'api.json', '--certify', '--sign-key', 'key.pem'], { INIT_CWD: user });
    expect(cfg.reportDir).toBe(path.join(user, 'out'));
    expect(cfg.openapi).toBe(path.join(user, 'api.json'));
    expect(cfg.signKey).toBeDefined();
    // Without INIT_CWD (the command run directly), the working directory as before.
    expect(loadConfig(['--report-dir', 'out'], {}).reportDir).toBe('out');
    // A script that changed directory itself (`cd api && conformance`): the directory it chose, not npm's INIT_CWD.
    expect(loadConfig(['--report-dir', 'out'], { INIT_CWD: user, npm_package_json: path.join(user, 'package.json') }).reportDir).toBe('out');
    expect(loadConfig(['--report-dir', 'out'], { INIT_CWD: user, npm_package_json: path.join(process.cwd(), 'package.json') }).reportDir).toBe(
      path.join(user, 'out'),
    );
  });

  it('a relative --expectations file is read from INIT_CWD, and the report paths printed work from there', async () => {
    const user = tempDir('user-dir-');
    writeFileSync(path.join(user, 'known.yml'), 'expectations:\n  - id: rest.list.schema\n    reason: a known failure, for the test\n');
    const api = await emptyApi();
    const r = await run(['--base-url', api.url, '--grep', '^rest\\.list\\.', '--report-dir', 'out', '--expectations', 'known.yml'], { INIT_CWD: user }).finally(
      () => api.close(),
    );
    expect(r.err).not.toContain('--expectations');
    expect(existsSync(path.join(user, 'out', 'results.json'))).toBe(true);
    expect(r.out).toMatch(/^reports: out\/results\.json, out\/junit\.xml, /m);

    // The subcommands take their paths from there too: the report folder and the public key.
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(path.join(user, 'key.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    const verified = await run(['verify-certificate', 'out', '--key', 'key.pub.pem'], { INIT_CWD: user });
    expect(verified.err).not.toContain('cannot read');
    expect(verified.err).toContain(path.join(user, 'out'));
  }, 60_000);

  it('`npm run conformance` from another directory: its .env is read (and said), its --report-dir is there, the paths printed work from there', async () => {
    const user = tempDir('npm-user-');
    const api = await emptyApi();
    writeFileSync(path.join(user, '.env'), `BASE_URL=${api.url}\n`);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CI|GITHUB_ACTIONS|BASE_URL|RPC_URL|REPORT_DIR|INIT_CWD|npm_.*)$/.test(k)),
    ) as Record<string, string>;
    const npm = spawn('npm', ['--prefix', ROOT, 'run', '-s', 'conformance', '--', '--only', 'rest', '--grep', '^rest\\.list\\.', '--report-dir', 'out'], {
      cwd: user,
      env: { ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    npm.stdout.on('data', (d) => (stdout += d));
    npm.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => npm.on('exit', resolve)).finally(() => api.close());
    expect(stderr).toContain(`conformance: read ${path.join(user, '.env')} (variables already set win over it)`);
    expect(stdout).toContain(`target: REST ${api.url}`);
    expect(existsSync(path.join(user, 'out', 'results.json'))).toBe(true);
    expect(existsSync(path.join(ROOT, 'out'))).toBe(false);
    expect(stdout).toMatch(/^reports: out\/results\.json, /m);
    expect(code).not.toBe(2);
  }, 120_000);
});

describe('--json, for scripts', () => {
  it("puts the run's document alone on stdout (results.json's very bytes), the human lines on stderr, through the gate", async () => {
    const dir = tempDir('json-');
    const api = await emptyApi();
    // A --secret the document would otherwise carry (in the --grep pattern it records).
    const r = await run([
      '--base-url',
      api.url,
      '--grep',
      '^rest\\.list\\.|zqx-private-term',
      '--secret',
      'zqx-private-term',
      '--json',
      '--report-dir',
      dir,
    ]).finally(() => api.close());
    const doc = JSON.parse(r.out) as { status: string; exitCode: number; checks: unknown[] };
    expect(r.out).toBe(readFileSync(path.join(dir, 'results.json'), 'utf8'));
    expect(doc.checks.length).toBeGreaterThan(0);
    expect(doc.exitCode).toBe(r.code);
    expect(r.out).not.toContain('zqx-private-term');
    expect(r.err).toMatch(/^target: REST /m);
    const [status, exit] = lastLines(r.err, 2);
    expect(status).toMatch(/^status: /);
    expect(exit).toBe(exitWords(r.code));
  }, 60_000);

  it('a configuration mistake leaves stdout empty: the message on stderr, exit 2', async () => {
    const r = await run(['--json', '--base-url', 'localhost:1']);
    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.err).toMatch(/^conformance: --base-url .*no scheme/m);
  });
});

describe('an unsupported Node.js', () => {
  const ROOT = path.resolve(__dirname, '../..');
  /** A preload that makes this Node say it is 18.20.4, as the oldest Node people still have would. */
  const oldNode = () => {
    const file = path.join(tempDir('old-node-'), 'old-node.js');
    writeFileSync(file, "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '18.20.4' } });\n");
    return file;
  };

  it.each([
    ['conformance', ['bin/conformance.js', '--version'], {}],
    ['conformance (npm run conformance)', ['bin/run-ts.js', 'src/cli/run.ts', '--version'], { npm_lifecycle_event: 'conformance' }],
    ['reference', ['bin/reference.js', '--help'], {}],
  ])('%s: one line naming the version needed and the one found, exit 2, before anything loads', (name, args, env) => {
    const r = spawnSync(process.execPath, ['--require', oldNode(), ...args.map((a, i) => (i === 0 || a.startsWith('src/') ? path.join(ROOT, a) : a))], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `${name.split(' ')[0]}: Node.js 20.3 or later is needed, and this is Node.js 18.20.4 (${process.execPath}): install a current LTS release (e.g. \`nvm install --lts\`) and run it again\n`,
    );
  });

  it('the supported one runs', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/cli/run.ts'), '--version'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect([r.status, r.stdout.trim()]).toEqual([0, (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version]);
  });
});
