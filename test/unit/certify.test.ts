import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { badgeOf, buildCertificate, renderBadge, sha256, verifyCertificate, VerifyError } from '../../src/cli/certify';
import type { RunDocument, ScopeFacts } from '../../src/cli/results';
import { writeReports } from '../../src/cli/run-document';
import { loadConfig } from '../../src/cli/config';
import type { CheckResult } from '../../src/harness/runner';
import { runDocument } from '../support/documents';

const result = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: `title of ${id}`,
  statements: id.startsWith('rest') ? ['2.1.1'] : ['4.5.1'],
  section: id.startsWith('rest') ? '2.1' : '4.5',
  level: 'required',
  needs: id.startsWith('rest') ? ['rest'] : id.startsWith('preconf') ? ['rpc', 'signer'] : ['rpc'],
  status,
  reason: status === 'passed' ? '' : `why ${id}`,
  durationMs: 3,
  exchanges: [],
  exchangeCount: 0,
  ...over,
});

const FULL: ScopeFacts = { only: ['rest', 'rpc', 'cross', 'preconf'], profile: 'dedicated', embedded: false, baseUrl: 'https://api.example', rpcUrl: 'https://rpc.example', signer: true, archive: false };
// What preconf.latency.about-200ms records (suites/preconf/latency.ts), without a timeline.
const LATENCY = {
  latency: { eth_getTransactionCount: { n: 10, p50: 40, p95: 110, max: 150 } },
  latencyJudged: { n: 13, min: 20, p50: 41.5, p95: 120, max: 150, specRefreshMs: 200, boundsMs: { p50: 523, p95: 829 } },
};

function doc(checks: CheckResult[], scope: ScopeFacts = FULL): RunDocument {
  return runDocument(checks, scope, { durationMs: 20_000 });
}

const passing = () => [result('rest.a', 'passed'), result('rest.b', 'skipped', { outOfScope: 'no --nav-max-age' }), result('rpc.c', 'passed'), result('rpc.d', 'passed'), result('preconf.latency', 'passed', { level: 'advisory', metrics: LATENCY })];

function certified(d: RunDocument): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
  writeReports(d, dir, { certify: true });
  return dir;
}

describe('certificate', () => {
  it('carries suite, spec, status, scope, target, date, counts per section, latency and the hash of results.json', () => {
    const dir = certified(doc(passing()));
    const cert = JSON.parse(readFileSync(path.join(dir, 'certificate.json'), 'utf8'));
    expect(cert).toMatchObject({
      suite: { name: 'tokenized-stocks-conformance', version: '0.1.0' },
      spec: { version: '1.0.0' },
      status: 'conformant',
      exitCode: 0,
      scope: { profile: 'dedicated', signer: true, archive: false, interfaces: ['rest', 'rpc'], full: true },
      target: { baseUrl: 'https://api.example', rpcUrl: 'https://rpc.example', embedded: false },
      date: '2026-01-01T00:00:20.000Z',
      totals: { passed: 4, failed: 0, inconclusive: 0, skipped: 1 },
      sections: { '2.1': { passed: 1, failed: 0, inconclusive: 0, skipped: 1 }, '4.5': { passed: 3, failed: 0, inconclusive: 0, skipped: 0 } },
      preconfLatencyMs: { n: 13, p50: 41.5, p95: 120 },
      badge: { message: 'conformant · dedicated · 4/4' },
    });
    expect(cert.results.sha256).toBe(sha256(readFileSync(path.join(dir, 'results.json'))));
  });

  it('--only rest with a key: the certificate names one interface and no pre-confirmed state, and round-trips', () => {
    const checks = passing().map((r): CheckResult => (r.id.startsWith('rest.') ? r : { ...r, status: 'skipped', reason: 'not selected (--only rest)', outOfScope: '--only rest', metrics: undefined }));
    const dir = certified(doc(checks, { ...FULL, only: ['rest'] }));
    const cert = JSON.parse(readFileSync(path.join(dir, 'certificate.json'), 'utf8'));
    expect(cert.scope).toMatchObject({ groups: ['rest'], interfaces: ['rest'], signer: false, full: false });
    expect(cert.preconfLatencyMs).toBeNull();
    expect(cert.badge.message).toBe('conformant · rest only · dedicated · 1/1');
    expect(verifyCertificate(dir).differences).toEqual([]);
  });

  it('round-trips: verify-certificate finds nothing altered', () => {
    expect(verifyCertificate(certified(doc(passing()))).differences).toEqual([]);
  });

  it('a tampered results.json is caught, with what differs', () => {
    const failing = [...passing().slice(0, 2), result('rpc.c', 'failed', { expected: '0x1', actual: '0x2' }), result('rpc.d', 'passed')];
    const dir = certified(doc(failing));
    const file = path.join(dir, 'results.json');
    const d = JSON.parse(readFileSync(file, 'utf8')) as RunDocument;
    // Turn the failure into a pass and claim the run was conformant.
    d.checks[2] = { ...d.checks[2], status: 'passed', reason: '' };
    d.status = 'conformant';
    writeFileSync(file, JSON.stringify(d, null, 2) + '\n');
    const diffs = verifyCertificate(dir).differences;
    expect(diffs[0]).toMatch(/^results\.json: SHA-256 is [0-9a-f]{64}, the certificate says [0-9a-f]{64} \(results\.json changed after it was certified\)$/);
    expect(diffs).toContain('results.json summary.passed: says 2, results.json gives 3');
    expect(diffs).toContain('certificate.json totals.passed: says 2, results.json gives 3');
    expect(diffs.some((l) => l.startsWith('badge.svg does not show what results.json gives'))).toBe(true);
  });

  it('a status that its own checks contradict is caught even when the hash is made to match', () => {
    const failing = [result('rest.a', 'passed'), result('rpc.c', 'failed'), result('preconf.x', 'passed')];
    const d = doc(failing);
    const forged = { ...d, status: 'conformant' as const, statusReasons: [], exitCode: 0 };
    const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
    writeReports(forged, dir, { certify: true });
    expect(verifyCertificate(dir).differences).toEqual([
      'results.json status: says "conformant", results.json gives "non-conformant"',
      'results.json statusReasons: says [], results.json gives ["1 required check failed"]',
      'results.json exitCode: says 0, results.json gives 1',
      'certificate.json status: says "conformant", results.json gives "non-conformant"',
      'certificate.json exitCode: says 0, results.json gives 1',
      'certificate.json badge.message: says "conformant · dedicated · 2/3", results.json gives "non-conformant · dedicated · 2/3"',
      'certificate.json badge.color: says "#2c9a48", results.json gives "#cf3a2b"',
      'badge.svg does not show what results.json gives ("non-conformant · dedicated · 2/3")',
    ]);
  });

  it('an edited certificate is caught', () => {
    const dir = certified(doc([result('rest.a', 'passed'), result('rpc.c', 'passed')], { ...FULL, signer: false }));
    const file = path.join(dir, 'certificate.json');
    const cert = JSON.parse(readFileSync(file, 'utf8'));
    cert.scope.signer = true;
    writeFileSync(file, JSON.stringify(cert));
    expect(verifyCertificate(dir).differences).toEqual(['certificate.json scope.signer: says true, results.json gives false']);
  });

  it('refuses a directory without a certificate', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
    writeReports(doc(passing()), dir);
    expect(() => verifyCertificate(dir)).toThrow(VerifyError);
    expect(() => verifyCertificate(dir)).toThrow(/certificate\.json not found/);
  });
});

describe('badge', () => {
  const badge = (checks: CheckResult[], scope: ScopeFacts = FULL) => badgeOf(doc(checks, scope)).message;
  const rpcOnly = [result('rpc.c', 'passed'), result('preconf.x', 'passed')];
  // As results.json lists a run: the checks --only left out are there, skipped with outOfScope '--only …'.
  const leftOut = (r: CheckResult, flag: string): CheckResult => ({ ...r, status: 'skipped', reason: `not selected (${flag})`, outOfScope: flag, metrics: undefined });
  const onlyRest = passing().map((r) => (r.id.startsWith('rest.') ? r : leftOut(r, '--only rest')));
  const onlyRestRpc = passing().map((r) => (r.id.startsWith('preconf.') ? leftOut(r, '--only rest,rpc') : r));

  it.each<[string, () => string, string]>([
    ['complete, conformant, full scope', () => badge(passing()), 'conformant · dedicated · 4/4'],
    ['a failure', () => badge([result('rpc.c', 'failed'), result('rpc.d', 'passed')]), 'non-conformant · dedicated · 1/2'],
    ['not everything judged', () => badge([result('rpc.c', 'inconclusive'), result('rpc.d', 'passed')]), 'incomplete · dedicated · 1/2'],
    ['one interface', () => badge(rpcOnly, { ...FULL, baseUrl: undefined }), 'conformant · rpc only · dedicated · 2/2'],
    ['no signer', () => badge(passing(), { ...FULL, signer: false }), 'conformant · no signer · dedicated · 4/4'],
    ['--only', () => badge(passing(), { ...FULL, only: ['rest', 'rpc', 'preconf'] }), 'conformant · partial · dedicated · 4/4'],
    ['the embedded reference', () => badge(passing(), { ...FULL, embedded: true }), 'conformant · embedded reference · dedicated · 4/4'],
    ['--only rest, a key given: the checks left out do not count', () => badge(onlyRest, { ...FULL, only: ['rest'] }), 'conformant · rest only · dedicated · 1/1'],
    ['--only rest against the embedded reference says both', () => badge(onlyRest, { ...FULL, only: ['rest'], embedded: true }), 'conformant · rest only · embedded · dedicated · 1/1'],
    ['--only rest,rpc with a key: partial, not "no signer"', () => badge(onlyRestRpc, { ...FULL, only: ['rest', 'rpc'], embedded: true }), 'conformant · partial · embedded · dedicated · 3/3'],
    ['incomplete against the embedded reference', () => badge([result('rpc.c', 'inconclusive'), result('rpc.d', 'passed')], { ...FULL, embedded: true }), 'incomplete · embedded reference · dedicated · 1/2'],
    ['the public profile', () => badge(passing(), { ...FULL, profile: 'public' }), 'conformant · public · 4/4'],
  ])('%s', (_what, make, text) => {
    expect(make()).toBe(text);
  });

  it('is a small self-contained SVG that says the same', () => {
    const svg = renderBadge(buildCertificate(doc(passing()), '{}'));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="20"/);
    expect(svg).toContain('<title>tokenized-stocks conformance: conformant · dedicated · 4/4</title>');
    expect(svg).not.toMatch(/<script|href=|<image|@import|url\(http/);
    expect(svg.length).toBeLessThan(2000);
  });
});

describe('--certify', () => {
  it('is a flag with an environment variable, off by default', () => {
    expect(loadConfig([], {}).certify).toBe(false);
    expect(loadConfig(['--certify'], {}).certify).toBe(true);
    expect(loadConfig([], { CERTIFY: '1' }).certify).toBe(true);
    expect(loadConfig([], { CERTIFY: 'true' }).certify).toBe(true);
    expect(loadConfig([], { CERTIFY: '0' }).certify).toBe(false);
  });

  it('without it, no certificate or badge is written', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
    expect(writeReports(doc(passing()), dir).map((f) => path.basename(f))).toEqual(['results.json', 'junit.xml', 'summary.md', 'report.html']);
  });
});
