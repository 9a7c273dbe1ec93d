/**
 * The built CLI, as a child process with a 400 MiB heap, against loopback targets whose answers
 * are far past the suite's bounds on work: a REST list of 350,000 empty records, and JSON-RPC
 * results that are arrays of half a million elements (1 MiB answers: the bounds are 100,000
 * records and elements, whatever the size). Each run ends with a verdict and all four reports:
 * the records read are judged (they break 2.1, so the run fails), the answers past the suite's
 * bounds are inconclusive with cause `limit`. Answers at the 16 MiB cap, with their time and
 * memory, are measured in `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { shapeBodies, startHostileAnswerServer, type HostileAnswerServer, type Shape } from '../../bench/hostile-answers';

const ROOT = path.resolve(__dirname, '../..');
const BYTES = 1 << 20;
/** How many records or elements an answer of the shape holds. */
const length = (shape: Shape) => (JSON.parse(shapeBodies(shape, BYTES).result) as unknown[]).length;

interface Doc {
  checks: Array<{ id: string; status: string; outcome: string; cause?: string; blockedBy?: string; reason: string; notes?: string[] }>;
}

async function run(shape: Shape, args: (url: string) => string[]): Promise<{ code: number | null; dir: string; doc: Doc }> {
  const server: HostileAnswerServer = await startHostileAnswerServer(shape, BYTES);
  const dir = mkdtempSync(path.join(tmpdir(), `bounded-${shape}-`));
  try {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--max-old-space-size=400', path.join(ROOT, 'bin/conformance.js'), ...args(server.url), '--report-dir', dir], {
        stdio: 'ignore',
      });
      child.on('exit', (c) => resolve(c));
    });
    const doc = existsSync(path.join(dir, 'results.json')) ? (JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as Doc) : { checks: [] };
    return { code, dir, doc };
  } finally {
    await server.close();
  }
}

const reports = (dir: string) => ['results.json', 'junit.xml', 'summary.md', 'report.html'].filter((f) => existsSync(path.join(dir, f)));

describe('answers past the bounds on work end with a verdict and every report', () => {
  test('a REST list of 350,000 empty records: a sample is judged, stated, and fails the rules it breaks', async () => {
    const { code, dir, doc } = await run('wide-list', (url) => ['--base-url', url, '--only', 'rest', '--timeout-ms', '60000']);
    expect(reports(dir)).toHaveLength(4);
    expect(code).toBe(1);
    const by = Object.fromEntries(doc.checks.map((c) => [c.id, c]));
    // The records break the field rules: the field checks own that failure, the schema check names it as its cause.
    expect(by['rest.list.schema']).toMatchObject({ outcome: 'blocked', blockedBy: expect.stringMatching(/^rest\.token\.field\./) });
    expect(by[by['rest.list.schema']!.blockedBy!]).toMatchObject({ outcome: 'failed' });
    expect(by['rest.list.tokens-array']).toMatchObject({ status: 'passed' });
    expect(length('wide-list')).toBeGreaterThan(300_000);
    expect(by['rest.list.tokens-array']!.notes?.join(' ')).toContain(`${length('wide-list')} record(s) listed`);
    expect(by['rest.list.schema']!.notes?.join(' ')).toMatch(/a sample of 100000, spread evenly/);
    expect(by['rest.token.field.isin']!.reason).toMatch(/^100000 of 100000 judged records break the rule/);
  }, 600_000);

  test('JSON-RPC results that are arrays of half a million elements are a limit of the suite, not a failure', async () => {
    const { code, dir, doc } = await run('huge-array', (url) => [
      '--rpc-url',
      `${url}/rpc`,
      '--only',
      'rpc',
      '--grep',
      '^rpc\\.(envelope|getCode)\\.',
      '--timeout-ms',
      '60000',
    ]);
    expect(reports(dir)).toHaveLength(4);
    expect(code).toBe(3);
    const judged = doc.checks.filter((c) => c.status !== 'skipped');
    expect(judged.length).toBeGreaterThan(0);
    for (const c of judged) expect(c).toMatchObject({ status: 'inconclusive', cause: 'limit' });
    expect(length('huge-array')).toBeGreaterThan(500_000);
    expect(judged[0]!.reason).toContain(`an array of ${length('huge-array').toLocaleString('en-US')} elements (this suite reads at most 100,000)`);
  }, 600_000);
});
