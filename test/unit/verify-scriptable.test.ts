// Verification a relying party can script: the certified status first, --require-status, a
// results.json that contradicts itself or names a member twice rejected before VERIFIED, --live's
// verdict sealed as a run's (exit 3 when certified checks cannot be judged now), --json, and files
// bounded by size and digest before they are parsed.
import { readerDocument } from '../../src/verdict/reader';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { liveVerdict } from '../../src/cli/certificate/live';
import { verifyCertificate } from '../../src/cli/certificate/verify';
import { certificateFiles } from '../../src/cli/certificate/write';
import { compareRuns } from '../../src/cli/compare';
import { main } from '../../src/cli/main';
import { loadSigningKey } from '../../src/cli/signing-keys';
import { writeReports } from '../../src/cli/write-reports';
import type { CheckResult } from '../../src/harness/runner';
import type { RunDocument } from '../../src/verdict/document';
import { checkResult, runDocument, FULL_SCOPE } from '../support/documents';
import { startHostile } from '../support/hostile';
import { capture } from '../support/sink';

// The module itself (not a namespace copy of it), so that a spy on one of its exports reaches its users.
const open = jest.requireActual<typeof import('../../src/cli/certificate/open')>('../../src/cli/certificate/open');

const SCOPE = { ...FULL_SCOPE, baseUrl: undefined, signer: false };
const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (k: KeyObject) => k.export({ type: k.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }).toString();
const signKey = loadSigningKey(pem(pair.privateKey), 'provider key');
const pub = path.join(mkdtempSync(path.join(tmpdir(), 'pub-')), 'provider.pub.pem');
writeFileSync(pub, pem(pair.publicKey));

const doc = (checks: CheckResult[], scope = SCOPE): RunDocument => runDocument(checks, scope);
const passing = () => [checkResult('rpc.envelope.http-200', 'passed'), checkResult('rpc.envelope.jsonrpc-version', 'passed')];
const failing = () => [checkResult('rpc.envelope.http-200', 'failed', { cause: 'violation' }), checkResult('rpc.envelope.jsonrpc-version', 'passed')];

function certified(d: RunDocument): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
  writeReports(d, dir, { certify: { signKey } });
  return dir;
}

/** results.json's text edited, and the certificate signed again over the very bytes: a signer's own forgery. */
function signedOver(dir: string, edit: (text: string) => string): string {
  const file = path.join(dir, 'results.json');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  const published = ['results.json', 'junit.xml', 'summary.md', 'report.html'].map((n) => [n, readFileSync(path.join(dir, n), 'utf8')] as [string, string]);
  const parsed = JSON.parse(published[0][1]) as RunDocument;
  for (const [name, body] of certificateFiles(readerDocument(parsed), published, { signKey })) writeFileSync(path.join(dir, name), body);
  return dir;
}

async function verify(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const out = capture();
  const err = capture();
  const code = await main(['verify-certificate', ...argv], env, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

describe('authentic is not conformant', () => {
  it('a verified certificate of a non-conformant node: exit 0, the status said first; --require-status conformant exits 1', async () => {
    const dir = certified(doc(failing()));
    const r = await verify([dir, '--key', pub]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe(
      'certified status: non-conformant (verified means authentic, not conformant: --require-status conformant exits 1 for any other status)',
    );
    expect(r.out.split('\n')[1]).toMatch(/^certificate VERIFIED: signed by sha256:/);
    const required = await verify([dir, '--key', pub, '--require-status', 'conformant']);
    expect(required.code).toBe(1);
    expect(required.out).toContain('certificate NOT ACCEPTED: it certifies non-conformant, and --require-status asks for conformant\n');
    expect((await verify([certified(doc(passing())), '--key', pub, '--require-status', 'conformant'])).code).toBe(0);
    const typo = await verify([dir, '--key', pub, '--require-status', 'conformat']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('--require-status conformat: give one of conformant, non-conformant, incomplete (did you mean conformant?)');
    // In any case, as a run's --require is read.
    expect((await verify([certified(doc(passing())), '--key', pub, '--require-status', 'Conformant'])).code).toBe(0);
  });

  it.each(['127.0.0.1:8545', 'node.example', 'http//node.example'])(
    '--target %s (no scheme, or a mistyped one) is a usage mistake with the URL meant (exit 2), never a certificate rejected',
    async (target) => {
      const r = await verify([certified(doc(passing())), '--key', pub, '--target', target]);
      expect({ code: r.code, err: r.err }).toMatchObject({ code: 2, err: expect.stringMatching(/--target: .*did you mean --target https?:\/\//) });
      expect(r.out).not.toMatch(/REJECTED/);
    },
  );

  it('--json: one document on stdout, the certified status in it, the same exit code', async () => {
    const r = await verify([certified(doc(failing())), '--key', pub, '--require-status', 'conformant', '--json']);
    expect(r.code).toBe(1);
    const found = JSON.parse(r.out);
    expect(found).toMatchObject({ verdict: 'verified', certifiedStatus: 'non-conformant', requireStatus: { status: 'conformant', met: false }, exitCode: 1 });
  });
});

describe('a signed results.json that contradicts itself is rejected before VERIFIED', () => {
  it.each<[string, Partial<CheckResult>]>([
    [
      'a pass that keeps a violation, violated statements and 30 failed samples',
      {
        cause: 'violation',
        violated: ['4.5.1'],
        samples: { n: 30, judged: 30, failed: 30, notJudged: 0, shown: 0 },
      },
    ],
    ['a pass with a failed sample', { samples: { n: 30, judged: 30, failed: 1, notJudged: 0, shown: 0 } }],
    ['samples that do not add up', { samples: { n: 30, judged: 20, failed: 0, notJudged: 0, shown: 0 } }],
  ])('%s', (_what, over) => {
    const d = doc(passing());
    Object.assign(d.checks[0], over);
    const v = verifyCertificate(certified(d), { key: pair.publicKey });
    expect(v.verdict).toBe('rejected');
    expect(v.differences.join('\n')).toMatch(/results\.json (does not match its schema: \/checks\/0|checks\[0\] \(rpc\.envelope\.http-200\) samples: )/);
  });

  it('a failure whose samples say none failed', () => {
    const d = doc(failing());
    Object.assign(d.checks[0], { samples: { n: 30, judged: 30, failed: 0, notJudged: 0, shown: 0 } });
    expect(verifyCertificate(certified(d), { key: pair.publicKey }).verdict).toBe('rejected');
  });

  it('a failure whose samples say more failed than were judged', () => {
    const d = doc(failing());
    Object.assign(d.checks[0], { samples: { n: 30, judged: 10, failed: 20, notJudged: 20, shown: 0 } });
    expect(verifyCertificate(certified(d), { key: pair.publicKey }).differences).toContain(
      'results.json checks[0] (rpc.envelope.http-200) samples: 20 failed of 10 judged and 20 not judged, shown 0, do not add up to its 30 samples',
    );
  });

  it('counts that contradict the checks', () => {
    const d = doc(failing());
    d.counts = { ...d.counts, failed: 0, passed: d.counts.passed + 1 };
    const v = verifyCertificate(certified(d), { key: pair.publicKey });
    expect(v.differences).toContain('results.json counts.failed: says 0, results.json gives 1');
  });

  it('a member named twice (a first-wins reader would read "conformant"): results.json and the envelope alike', async () => {
    const dir = signedOver(certified(doc(failing())), (text) => text.replace(/^\{/, '{\n  "status": "conformant",'));
    expect(readFileSync(path.join(dir, 'results.json'), 'utf8')).toMatch(/"status": "conformant"[^]*"status": "non-conformant"/);
    const r = await verify([dir, '--key', pub]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('results.json names the member "status" twice in one object: readers would differ on which one counts, so it is not read');
    expect(r.out).not.toContain('VERIFIED');

    const envelope = certified(doc(passing()));
    const file = path.join(envelope, 'certificate.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^\{/, '{\n  "payload": "e30=",'));
    expect(verifyCertificate(envelope, { key: pair.publicKey }).differences).toEqual([
      'certificate.json names the member "payload" twice in one object: readers would differ on which one counts, so it is not read',
    ]);
  });
});

describe('bounded readers: size and digest before parsing', () => {
  it('a results.json over the cap is refused unread, by its size alone; compare refuses it too', () => {
    const dir = certified(doc(passing()));
    const file = path.join(dir, 'results.json');
    truncateSync(file, open.MAX_RESULTS_BYTES + 1); // sparse: nothing is written, nothing need be read
    const started = performance.now();
    const v = verifyCertificate(dir, { key: pair.publicKey });
    expect(v.differences).toContain(`${file} is 64 MiB, more than the 64 MiB it may have: not read`);
    expect(performance.now() - started).toBeLessThan(20_000); // generous: a bound on hanging, not a timing target (bench states those)
    expect(() => compareRuns([dir, dir])).toThrow(/more than the 64 MiB it may have: not read/);
  });

  it('a results.json whose digest fails is not parsed: no reason derived from its content', () => {
    const dir = certified(doc(passing()));
    writeFileSync(path.join(dir, 'results.json'), '{"not json at all');
    expect(verifyCertificate(dir, { key: pair.publicKey }).differences).toEqual([
      expect.stringMatching(/^results\.json: SHA-256 is [0-9a-f]{64}, the certificate says [0-9a-f]{64} \(results\.json changed after it was certified\)$/),
    ]);
  });

  it('compare refuses a results.json naming a member twice', () => {
    const a = mkdtempSync(path.join(tmpdir(), 'run-'));
    writeReports(doc(failing()), a);
    const file = path.join(a, 'results.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^\{/, '{\n  "status": "conformant",'));
    expect(() => compareRuns([a, a])).toThrow(/names the member "status" twice/);
  });

  it('--certify makes no certificate a verifier would refuse for its size: the reports are written, and that is said', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'large-'));
    jest.spyOn(open, 'MAX_RESULTS_BYTES', 'get').mockReturnValue(2048);
    try {
      expect(() => writeReports(doc(passing()), dir, { certify: { signKey } })).toThrow(
        /^results\.json is [\d.]+ MiB, more than the [\d.e-]+ MiB verify-certificate reads: the reports were written, but no certificate was made$/,
      );
    } finally {
      jest.restoreAllMocks();
    }
    expect(readFileSync(path.join(dir, 'results.json'), 'utf8')).toContain('"status"');
    expect(() => readFileSync(path.join(dir, 'certificate.json'))).toThrow(/ENOENT/);
  });
});

describe('--live: its verdict sealed as a run is, exit 3 when certified checks cannot be judged now', () => {
  const r = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}) => checkResult(id, status, over);

  it('a certified pass that finds nothing to judge now (a quiet chain) is not judged now: incomplete, exit 3, never a pass', () => {
    const live = liveVerdict([r('rpc.a', 'passed'), r('rpc.b', 'skipped', { cause: 'nothing-to-judge', reason: 'no active sender found' })], SCOPE);
    expect([live.status, live.exitCode, live.unjudged.map((c) => c.id)]).toEqual(['incomplete', 3, ['rpc.b']]);
    expect(live.headline).toMatch(/^incomplete — 1 required check not judged/);
    // Sealed with its scope: the scope is that of the re-check (no signer: nothing sent).
    expect(live.scope.signer).toBe(false);
    // Nothing failed: no root cause (a check not judged now is none), where a failure would name one.
    expect(live.rootCauses).toEqual([]);
  });

  it('nothing re-run (the target unreachable now): incomplete, exit 3', () => {
    expect(liveVerdict([], SCOPE)).toMatchObject({ status: 'incomplete', exitCode: 3 });
  });

  it('--live --json prints one JSON document with the re-check in it', async () => {
    const server = await startHostile(() => ({ status: 429, headers: { 'retry-after': '0' }, body: 'slow down' }));
    try {
      const dir = certified(doc(passing(), { ...SCOPE, rpcUrl: server.origin }));
      const res = await verify([dir, '--key', pub, '--live', '--json', '--timeout-ms', '2000']);
      expect(res.code).toBe(3);
      const found = JSON.parse(res.out);
      expect(found).toMatchObject({ verdict: 'verified', certifiedStatus: 'conformant', exitCode: 3, live: { status: 'incomplete', exitCode: 3, rerun: 2 } });
      expect(found.live.notJudged.map((c: { cause: string }) => c.cause)).toEqual(['throttled', 'throttled']);
    } finally {
      await server.close();
    }
  }, 60_000);
});
