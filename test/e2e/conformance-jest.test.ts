/**
 * The conformance suite through jest (jest.conformance.config.ts), run as a team's CI would: a
 * child `jest -c jest.conformance.config.ts --json` with its configuration in the environment.
 * Against the embedded reference (ONLY=rest) every check is a test named by its id, out-of-scope
 * checks are skipped, the reports are written; against a faulty --openapi document served over
 * HTTP, the required failure fails its test with section, expected/actual and a curl line, an
 * advisory failure passes with a warning, and jest exits 1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allChecks } from '../../suites';

const ROOT = path.resolve(__dirname, '../..');
const JEST = path.join(ROOT, 'node_modules/jest/bin/jest.js');
// jest loads its .ts config through ts-node, which would type-check it (2 s of CPU per child):
// `npm test` has type-checked it with tsc already. And without v8-compile-cache, whose unlocked
// code cache, shared by every jest of this checkout, crashed a child jest that read it while
// another wrote it (scripts/jest-tiers.js, JEST_ENV).
const TRANSPILE_CONFIG = { TS_NODE_TRANSPILE_ONLY: 'true', DISABLE_V8_COMPILE_CACHE: '1' };
/** How long a child jest run may take; each test waits that long and a little more, not jest's default 60 s. */
const CHILD_BOUND_MS = 120_000;
jest.setTimeout(CHILD_BOUND_MS + 30_000);
// Each test is a child jest of its own (its own working directory, reports and target); most of
// their time is the embedded reference's start-up and chain, so they run together.
const test = global.test.concurrent;

interface JestJson {
  numFailedTests: number;
  testResults: Array<{ assertionResults: Array<{ title: string; status: 'passed' | 'failed' | 'pending'; failureMessages: string[] }> }>;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** One child jest run in an empty working directory (no stray .env), bounded in time. */
function conformanceJest(
  env: Record<string, string>,
  timeoutMs = CHILD_BOUND_MS,
  args: string[] = [],
): Promise<{ code: number | null; stderr: string; json: JestJson; reportDir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'conformance-jest-'));
  dirs.push(dir);
  const out = path.join(dir, 'jest.json');
  const reportDir = path.join(dir, 'reports');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [JEST, '-c', path.join(ROOT, 'jest.conformance.config.ts'), '--json', '--outputFile', out, '--ci', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', REPORT_DIR: reportDir, ...TRANSPILE_CONFIG, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + String(d)).slice(-50_000)));
    child.stdout.resume();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`jest -c jest.conformance.config.ts did not finish within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!existsSync(out)) return reject(new Error(`no jest --json output (exit ${code})\n${stderr}`));
      resolve({ code, stderr, json: JSON.parse(readFileSync(out, 'utf8')) as JestJson, reportDir });
    });
  });
}

const byTitle = (json: JestJson) => new Map(json.testResults.flatMap((f) => f.assertionResults).map((a) => [a.title, a]));

describe('npx jest -c jest.conformance.config.ts', () => {
  test('ONLY=rest against the embedded reference: one test per rest check, named by id; out-of-scope ones skipped; reports written', async () => {
    const run = await conformanceJest({ ONLY: 'rest' });
    const tests = byTitle(run.json);
    const restIds = allChecks()
      .filter((c) => c.id.startsWith('rest.'))
      .map((c) => c.id);
    expect([...tests.keys()]).toEqual(restIds);
    expect(tests.get('rest.list.status-200')!.status).toBe('passed');
    expect(tests.get('rest.list.schema')!.status).toBe('passed');
    expect(tests.get('rest.openapi.token-fields')!.status).toBe('pending'); // no OPENAPI
    expect(tests.get('rest.token.nav-price-updated-at.max-age')!.status).toBe('pending'); // no NAV_MAX_AGE
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/target: the embedded reference target .*up in/);
    // The same run, the same reports: results.json agrees with jest test for test.
    const doc = JSON.parse(readFileSync(path.join(run.reportDir, 'results.json'), 'utf8')) as {
      target: { embedded: boolean };
      checks: Array<{ id: string; status: string; cause?: string }>;
    };
    expect(doc.target.embedded).toBe(true);
    // results.json also lists the checks ONLY left out (skipped, deselected); jest has a test per selected check.
    const selected = doc.checks.filter((c) => c.cause !== 'deselected');
    expect(selected.map((c) => c.id).sort()).toEqual([...tests.keys()].sort());
    for (const c of selected) expect(tests.get(c.id)!.status).toBe(c.status === 'skipped' ? 'pending' : 'passed');
    expect(existsSync(path.join(run.reportDir, 'junit.xml'))).toBe(true);
  });

  test("a configuration the run refuses: its one message and exit 2, never jest's words and a stack trace", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'conformance-jest-'));
    dirs.push(dir);
    const r = spawnSync(process.execPath, [JEST, '-c', path.join(ROOT, 'jest.conformance.config.ts'), '--ci'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...TRANSPILE_CONFIG, BASE_URL: '127.0.0.1:9' },
      encoding: 'utf8',
      timeout: CHILD_BOUND_MS,
    });
    expect({ code: r.status, stderr: r.stderr.trim() }).toEqual({
      code: 2,
      stderr: 'conformance: --base-url (or BASE_URL): the URL has no scheme (http:// or https://); did you mean --base-url http://127.0.0.1:9?',
    });
  });

  test("-t 'rest\\.openapi\\.' without OPENAPI judges nothing: every test skipped, yet jest exits 3 (incomplete), never 0", async () => {
    const run = await conformanceJest({}, CHILD_BOUND_MS, ['-t', 'rest\\.openapi\\.']);
    const statuses = [...byTitle(run.json).values()].filter((t) => t.title.startsWith('rest.openapi.')).map((t) => t.status);
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['pending']));
    const doc = JSON.parse(readFileSync(path.join(run.reportDir, 'results.json'), 'utf8')) as { status: string; exitCode: number; statusReasons: string[] };
    expect([doc.status, doc.exitCode]).toEqual(['incomplete', 3]);
    expect(doc.statusReasons.join('\n')).toMatch(/^nothing judged: /m);
    expect(run.code).toBe(3);
  });

  test('a faulty OpenAPI document by URL: the required failure fails with section, expected/actual and curl; the advisory one passes; jest exits 1', async () => {
    const body = readFileSync(path.join(ROOT, 'test/fixtures/openapi/missing-field.json'));
    const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`;
      const run = await conformanceJest({ OPENAPI: url, GREP: '^rest\\.openapi\\.' });
      const tests = byTitle(run.json);
      const failed = tests.get('rest.openapi.token-fields')!;
      expect(failed.status).toBe('failed');
      const message = failed.failureMessages.join('\n');
      expect(message).toMatch(/spec section: 2\.1/);
      expect(message).toMatch(/icon_url: missing from the document/);
      expect(message).toMatch(/expected: \{"icon_url"/);
      expect(message).toContain(`reproduce: curl`);
      expect(message).toContain('/openapi.json');
      expect(tests.get('rest.openapi.operation-id')!.status).toBe('passed'); // advisory failure: a warning
      expect(run.stderr).toMatch(/console\.warn[\s\S]*operationId is "TokenizedStocksService_ListTokenizedStocks"/);
      expect(tests.get('rest.openapi.live-list')!.status).toBe('pending'); // no BASE_URL: the document alone
      expect(tests.get('rest.openapi.valid')!.status).toBe('passed');
      // The one failing check, and the run's own test named for its status, so jest's summary says what the exit code says.
      const statusTests = [...tests.keys()].filter((t) => t.startsWith('conformance run: '));
      expect(statusTests).toEqual([expect.stringMatching(/^conformance run: non-conformant — /)]);
      expect(tests.get(statusTests[0])!.status).toBe('failed');
      expect(run.json.numFailedTests).toBe(2);
      expect(run.code).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

test("npm test's own jest config never collects the conformance adapter", async () => {
  const listed = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [JEST, '--listTests', '-c', path.join(ROOT, 'jest.config.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...TRANSPILE_CONFIG },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('jest --listTests did not finish within 60 s'))), 60_000);
    child.on('exit', () => (clearTimeout(timer), resolve(out)));
  });
  expect(listed).toContain('conformance-jest.test.ts'); // the listing is real
  expect(listed).not.toContain('checks.conformance.ts');
});
