/**
 * --openapi documents written to harm the run, through the real CLI (a child process, so its
 * /proc/self/environ holds a planted value): references to local files must read nothing, a
 * reference bomb must fail rest.openapi.valid and still let the run write its reports, and a
 * URL that serves no document, or a file that holds none, is a configuration error (exit 2) that
 * quotes nothing of what it read. Timing is in bench/bench.ts.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { runCli } from '../support/cli';
import { capture } from '../support/sink';

const ROOT = path.resolve(__dirname, '../..');
const fixture = (name: string) => path.join(ROOT, 'test/fixtures/openapi', name);
const PLANTED = 'planted-7f3c9e1b-environ-value';

interface Run {
  code: number | null;
  out: string;
  reportDir: string;
}

/** The CLI in a process of its own whose environment holds PLANTED (what /proc/self/environ would show). */
async function cli(args: string[]): Promise<Run> {
  const reportDir = mkdtempSync(path.join(tmpdir(), 'openapi-hostile-'));
  const r = await runCli([...args, '--report-dir', reportDir], { cwd: reportDir, env: { CONFORMANCE_PLANTED: PLANTED } });
  return { code: r.code, out: r.stdout + r.stderr, reportDir };
}

/** The CLI's main in this process, where the document is the only way PLANTED can reach the output. */
async function inProcess(args: string[]): Promise<Run> {
  const reportDir = mkdtempSync(path.join(tmpdir(), 'openapi-hostile-'));
  const out = capture();
  const code = await main([...args, '--report-dir', reportDir], { NO_COLOR: '1' }, { out: out.stream, err: out.stream });
  return { code, out: out.text(), reportDir };
}

/** Everything the run wrote: console output and every report file. */
function everything(run: Run): string {
  return [run.out, ...readdirSync(run.reportDir).map((f) => readFileSync(path.join(run.reportDir, f), 'utf8'))].join('\n');
}
const resultOf = (run: Run, id: string) =>
  (JSON.parse(readFileSync(path.join(run.reportDir, 'results.json'), 'utf8')).checks as Array<{ id: string; status: string; reason: string }>).find(
    (c) => c.id === id,
  )!;

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    if (!/^hostile-[a-z-]+\.json$/.test(name))
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"not found","details":[]}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(readFileSync(fixture(name)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const ONLY_OPENAPI = ['--only', 'rest', '--grep', '^rest\\.openapi\\.'];

describe('--openapi reads nothing but the document', () => {
  test('a served document referring to file:///proc/self/environ fails rest.openapi.valid; the environment appears in no output', async () => {
    const run = await cli(['--openapi', `${base}/hostile-ref-environ.json`, ...ONLY_OPENAPI]);
    expect(run.code).toBe(1);
    expect(resultOf(run, 'rest.openapi.valid')).toMatchObject({ status: 'failed' });
    expect(resultOf(run, 'rest.openapi.valid').reason).toMatch(
      /refers outside itself \("\$ref": "file:\/\/\/proc\/self\/environ".*only references inside the document/,
    );
    expect(resultOf(run, 'rest.openapi.token-fields')).toMatchObject({ status: 'inconclusive' });
    for (const f of ['results.json', 'report.html', 'junit.xml']) expect(existsSync(path.join(run.reportDir, f))).toBe(true);
    expect(everything(run)).not.toContain(PLANTED);
  });

  test('a local document referring to /etc/passwd is refused the same way; no line of the file appears', async () => {
    const run = await inProcess(['--openapi', fixture('hostile-ref-passwd.json'), ...ONLY_OPENAPI]);
    expect(resultOf(run, 'rest.openapi.valid')).toMatchObject({ status: 'failed' });
    expect(resultOf(run, 'rest.openapi.valid').reason).toMatch(/refers outside itself \("\$ref": "\/etc\/passwd"/);
    const all = everything(run);
    for (const line of readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .filter((l) => l.includes(':x:'))
      .slice(0, 5))
      expect(all).not.toContain(line);
  });
});

test('a document whose $refs double at each of 30 levels fails rest.openapi.valid, and the run writes its reports', async () => {
  const run = await inProcess(['--openapi', `${base}/hostile-ref-bomb.json`, ...ONLY_OPENAPI]);
  expect(run.code).toBe(1);
  const valid = resultOf(run, 'rest.openapi.valid');
  expect(valid.status).toBe('failed');
  expect(valid.reason).toMatch(/its \$refs expand it past 1,000,000 nodes .*it was not expanded/);
  expect(resultOf(run, 'rest.openapi.list-operation')).toMatchObject({ status: 'inconclusive' });
  for (const f of ['results.json', 'report.html', 'junit.xml']) expect(existsSync(path.join(run.reportDir, f))).toBe(true);
});

test('a document URL answering 404 is a configuration error: exit 2, no check run', async () => {
  const run = await inProcess(['--openapi', `${base}/openapi.json`, ...ONLY_OPENAPI]);
  expect(run.code).toBe(2);
  expect(run.out).toMatch(/--openapi \(or OPENAPI\): http:\/\/127\.0\.0\.1:\d+\/openapi\.json: GET answered HTTP 404/);
  expect(existsSync(path.join(run.reportDir, 'results.json'))).toBe(false);
});

test.each([
  ['a .env file (YAML reads it as one string)', `AWS_SECRET=${PLANTED}\n`, /the file .*secret\.env is not an object \(a string of \d+ characters\)/],
  ['a file that is not JSON or YAML', `{ "openapi": "3.0.3", "x": ${PLANTED} `, /the file .*secret\.env is not JSON or YAML \(\d+ characters/],
  ['a YAML file that does not parse', `openapi: [3.0.3\n  key: ${PLANTED}: : {`, /the file .*secret\.env is not JSON or YAML \(\d+ characters/],
])('%s named by --openapi is a configuration error (exit 2) naming the file, quoting none of it', async (_what, content, why) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'openapi-file-')), 'secret.env');
  writeFileSync(file, content);
  const run = await inProcess(['--openapi', file, ...ONLY_OPENAPI]);
  expect(run.code).toBe(2);
  expect(run.out).toMatch(/--openapi \(or OPENAPI\): /);
  expect(run.out).toMatch(why);
  expect(existsSync(path.join(run.reportDir, 'results.json'))).toBe(false);
  expect(everything(run)).not.toContain(PLANTED);
  expect(everything(run)).not.toContain(PLANTED.slice(0, 12));
});
