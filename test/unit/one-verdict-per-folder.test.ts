// A report folder holds one run's verdict or none: a run refused at the door (exit 2: credentials
// refused, a web page where JSON-RPC should be) or one that crashed before its verdict leaves none
// of an earlier run's files standing, and says so in one line; an interrupted run certifies nothing.
import { readerDocument } from '../../src/verdict/reader';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { SUITE_FILES } from '../../src/cli/report-files';
import { loadSigningKey } from '../../src/cli/signing-keys';
import { writeReports } from '../../src/cli/write-reports';
import { verifyCertificate } from '../../src/cli/certificate/verify';
import { certificateFiles } from '../../src/cli/certificate/write';
import { EXIT_CODE } from '../../src/verdict/status';
import { startHostile, type HostileServer, type Reply } from '../support/hostile';
import { capture } from '../support/sink';
import { checkResult, runDocument, FULL_SCOPE } from '../support/documents';

// The module itself (not a namespace copy of it), so that a spy on one of its exports reaches its users.
const runner = jest.requireActual<typeof import('../../src/harness/runner')>('../../src/harness/runner');

/** A folder as an earlier, conformant run left it. */
function earlierFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'earlier-'));
  for (const f of SUITE_FILES) writeFileSync(path.join(dir, f), `${f} of an earlier run: conformant\n`);
  writeFileSync(path.join(dir, 'notes.txt'), 'the user’s own file\n');
  return dir;
}

let server: HostileServer | undefined;
afterEach(async () => {
  jest.restoreAllMocks();
  await server?.close();
  server = undefined;
});

let err = capture();
async function run(answer: (req: unknown) => Reply, dir: string): Promise<{ code: number; err: string }> {
  server = await startHostile(answer);
  const out = capture();
  err = capture();
  const code = await main(['--rpc-url', server.origin, '--report-dir', dir], {}, { out: out.stream, err: err.stream });
  return { code, err: err.text() };
}
const noVerdictLine = (dir: string) =>
  `conformance: ${dir} holds no verdict: this run ended before its own, and the earlier run's ${SUITE_FILES.join(', ')} were removed as it began (a folder holds one run's verdict or none)`;

describe('a run that ends without a verdict leaves no earlier one in its folder', () => {
  it.each<[string, Reply]>([
    ['HTTP 401 with a challenge at eth_chainId', { status: 401, headers: { 'www-authenticate': 'Bearer realm="node"' }, body: '{"error":"unauthorized"}' }],
    ['an HTML page at eth_chainId', { headers: { 'content-type': 'text/html' }, body: '<!doctype html><html><body>Welcome</body></html>' }],
  ])('refused at the door (%s): exit 2, the earlier verdict removed, said in one line', async (_what, reply) => {
    const dir = earlierFolder();
    const { code, err: said } = await run(() => reply, dir);
    expect(code).toBe(EXIT_CODE.config);
    expect(readdirSync(dir).sort()).toEqual(['notes.txt']);
    expect(said.split('\n').filter((l) => l.includes('holds no verdict'))).toEqual([noVerdictLine(dir)]);
  });

  it('a crash before the verdict: the earlier verdict is gone, said before the crash is', async () => {
    const dir = earlierFolder();
    jest.spyOn(runner, 'runChecks').mockRejectedValue(new TypeError('a defect of the suite'));
    const answer = () => ({ body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }) });
    await expect(run(answer, dir)).rejects.toThrow('a defect of the suite');
    expect(readdirSync(dir).sort()).toEqual(['notes.txt']);
    expect(
      err
        .text()
        .split('\n')
        .filter((l) => l.includes('holds no verdict')),
    ).toEqual([noVerdictLine(dir)]);
  });

  it('a folder without an earlier verdict: nothing is said', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'empty-'));
    const { code, err: said } = await run(() => ({ status: 401, headers: { 'www-authenticate': 'Basic' }, body: '' }), dir);
    expect(code).toBe(EXIT_CODE.config);
    expect(said).not.toContain('holds no verdict');
  });
});

describe('an interrupted run writes and signs no certificate', () => {
  const signKey = loadSigningKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'k');
  const interrupted = () =>
    runDocument([checkResult('rpc.a', 'passed'), checkResult('rpc.b', 'skipped', { cause: 'stopped', reason: 'not run: interrupted by SIGINT' })], FULL_SCOPE, {
      facts: { interrupted: 'interrupted by SIGINT', stoppedBy: 'signal' },
    });

  it('--certify on an interrupted run: the reports of what was measured, no certificate, predicate or badge (an earlier one removed)', () => {
    const dir = earlierFolder();
    const doc = interrupted();
    expect(doc.exitCode).toBe(EXIT_CODE.interrupted);
    writeReports(doc, dir, { certify: { signKey } });
    expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'notes.txt', 'report.html', 'results.json', 'summary.md']);
  });

  it('verify-certificate rejects a certificate made of an interrupted run anyway (by hand, or by an older version)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'forged-'));
    const doc = interrupted();
    writeReports(doc, dir);
    const published = ['results.json', 'junit.xml', 'summary.md', 'report.html'].map((n): [string, string] => [n, readFileSync(path.join(dir, n), 'utf8')]);
    for (const [name, body] of certificateFiles(readerDocument(doc), published, { signKey })) writeFileSync(path.join(dir, name), body);
    const v = verifyCertificate(dir);
    expect(v.verdict).toBe('rejected');
    expect(v.differences).toContain(
      'results.json: the run was interrupted by a signal (exit 130) before its verdict: a certificate is made only of a run that reached its verdict',
    );
    expect(existsSync(path.join(dir, 'certificate.json'))).toBe(true);
  });
});

describe('a disk that fills while the reports are written', () => {
  // The module itself, so that a spy on its writeSync reaches report-files.ts.
  const fs = jest.requireActual<typeof import('node:fs')>('node:fs');

  it.each([
    ['then throws ENOSPC', () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), /ENOSPC/],
    ['then takes nothing', undefined, /no space left to write \(\d+ of \d+ bytes written\)/],
  ])(
    'never leaves a file cut short under its name, nor its temporary copy: a disk that takes half a write %s fails the write (the run then exits 2, saying why)',
    (_, thrown, said) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'full-'));
      const real = fs.writeSync;
      let calls = 0;
      const spy = jest.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buffer: Buffer, offset?: number | null, length?: number | null) => {
        if (calls++ === 0) return real(fd, buffer, offset ?? 0, Math.floor((length ?? buffer.length) / 2));
        if (thrown) throw thrown();
        return 0;
      }) as typeof fs.writeSync);
      try {
        expect(() => writeReports(runDocument([checkResult('rest.list.status-200', 'passed')], FULL_SCOPE), dir)).toThrow(said);
      } finally {
        spy.mockRestore();
      }
      expect(readdirSync(dir).filter((f) => f === 'results.json' || f.endsWith('.tmp'))).toEqual([]);
    },
  );

  it('that fills after results.json was written: none of the run’s files is left stating the exit code the run no longer ends with', () => {
    const dir = earlierFolder();
    const real = fs.writeSync;
    let calls = 0;
    // results.json, junit.xml and summary.md are written whole; report.html finds the disk full.
    const spy = jest.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buffer: Buffer, offset?: number | null, length?: number | null) => {
      if (++calls <= 3) return real(fd, buffer, offset ?? 0, length ?? buffer.length);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }) as typeof fs.writeSync);
    const conformant = runDocument([checkResult('rpc.a', 'passed')], FULL_SCOPE);
    expect(conformant.exitCode).toBe(EXIT_CODE.conformant);
    try {
      expect(() => writeReports(conformant, dir)).toThrow(/ENOSPC/);
    } finally {
      spy.mockRestore();
    }
    expect(calls).toBe(4);
    // The run exits 2 (runExitCode): a results.json saying exit 0, conformant, would speak for it.
    expect(readdirSync(dir).sort()).toEqual(['notes.txt']);
  });
});
