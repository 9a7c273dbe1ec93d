import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, type CliRun } from '../support/cli';
import { validateRef } from '../../src/harness/schemas';

/** The built CLI, as the package runs it. */
const cli = (args: string[], timeoutMs = 90_000) => runCli(args, { from: 'dist', timeoutMs });

const dir = () => mkdtempSync(path.join(tmpdir(), 'reports-'));

describe('certify, verify-certificate and compare on real runs of the embedded reference', () => {
  const publicDir = dir();
  const fullDir = dir();
  const restDir = dir();
  let runs: CliRun[] = [];

  beforeAll(async () => {
    // One after the other: each starts its own anvil, and the machine has two cores. The dedicated
    // profile is the full run's (a partial scope is the public and the --only rest runs').
    runs = [
      await cli(['--embedded', '--profile', 'public', '--only', 'rest,rpc', '--certify', '--samples', '2', '--report-dir', publicDir]),
      await cli(['--embedded', '--certify', '--samples', '2', '--report-dir', fullDir]),
      await cli(['--embedded', '--only', 'rest', '--certify', '--samples', '2', '--report-dir', restDir]),
    ];
  }, 300_000);

  it('a partial run (--only rest,rpc, public) exits 0, says what its scope left out, and writes a certificate and badge that verify', async () => {
    const [r, d] = [runs[0], publicDir];
    if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout.slice(-4000)}\n${r.stderr}`);
    const doc = JSON.parse(readFileSync(path.join(d, 'results.json'), 'utf8'));
    expect(validateRef('results.json', doc).errors).toEqual([]);
    expect(doc.status).toBe('conformant');
    // The embedded target comes with a key, but --only rest,rpc selected no check that sends transactions.
    expect(doc.scope).toMatchObject({ groups: ['rest', 'rpc'], interfaces: ['rest', 'rpc'], full: false, target: 'embedded', signer: false });
    const tail = r.stdout.trimEnd().split('\n').slice(-2);
    expect(tail[0]).toBe(`status: conformant — cross-interface, pre-confirmation checks not run (--only rest,rpc) (profile public, embedded reference target)`);
    expect(tail[1]).toBe('exit 0: conformant — every required check in scope was judged and none failed');
    const cert = JSON.parse(readFileSync(path.join(d, 'certificate.json'), 'utf8')).predicate.tokenizedStocksConformance;
    expect(cert.scope).toMatchObject({ interfaces: ['rest', 'rpc'], signer: false });
    expect(cert.badge.message).toMatch(new RegExp(`^conformant · partial · embedded · public · \\d+/\\d+ · ${doc.finishedAt.slice(0, 10)}$`));
    expect(readFileSync(path.join(d, 'badge.svg'), 'utf8')).toContain(cert.badge.message);
    const v = await cli(['verify-certificate', d, '--allow-self-reported']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(
      /^certified status: conformant\ncertificate SELF-REPORTED, not verified \(accepted with --allow-self-reported\): not signed, .*\(results\.json [0-9a-f]{64}\)/,
    );
  });

  it('a full run: the reports show the latency the real latency check recorded and judged, the badge names the embedded reference', async () => {
    const r = runs[1];
    if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout.slice(-4000)}\n${r.stderr}`);
    const doc = JSON.parse(readFileSync(path.join(fullDir, 'results.json'), 'utf8'));
    expect(doc.scope).toMatchObject({ interfaces: ['rest', 'rpc'], signer: true, full: true, target: 'embedded' });
    const judged = doc.checks.find((c: { id: string }) => c.id === 'preconf.latency.about-200ms').metrics.latencyJudged;
    expect(judged).toMatchObject({
      n: expect.any(Number),
      p50: expect.any(Number),
      p95: expect.any(Number),
      boundsMs: { p50: expect.any(Number), p95: expect.any(Number) },
    });
    const cert = JSON.parse(readFileSync(path.join(fullDir, 'certificate.json'), 'utf8')).predicate.tokenizedStocksConformance;
    expect(cert.preconfLatencyMs).toEqual({ n: judged.n, p50: judged.p50, p95: judged.p95 });
    expect(cert.badge.message).toBe(`conformant · embedded reference · dedicated · ${doc.counts.passed}/${doc.counts.passed} · ${doc.finishedAt.slice(0, 10)}`);
    const html = readFileSync(path.join(fullDir, 'report.html'), 'utf8');
    expect(html).toContain('aria-label="pre-confirmation timeline"');
    expect(html).toContain('aria-label="pre-confirmation latency distribution"');
    expect(html).toContain(
      `p50 <b>${judged.p50} ms</b>, p95 <b>${judged.p95} ms</b>, max ${judged.max} ms over ${judged.n} (judged against p50 ≤ ${judged.boundsMs.p50} ms, p95 ≤ ${judged.boundsMs.p95} ms)`,
    );
    expect(html).toContain('<dt>pre-confirmed state</dt><dd>in scope: a signer key was given and checks that send transactions selected</dd>');
    expect(html).toMatch(
      /<dt>judged per interface<\/dt><dd>REST: (all|\d+ of) \d+ required checks judged.*<br>JSON-RPC: .*<br>pre-confirmed state: all \d+ required checks judged<\/dd>/,
    );
    expect(readFileSync(path.join(fullDir, 'summary.md'), 'utf8')).toContain(`| all | ${judged.n} | ${judged.p50} | ${judged.p95} | ${judged.max} |`);
    expect((await cli(['verify-certificate', fullDir, '--allow-self-reported'])).code).toBe(0);
  });

  it('--only rest: one interface judged, no pre-confirmed state, and the badge says "rest only · embedded"', async () => {
    const r = runs[2];
    if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout.slice(-4000)}\n${r.stderr}`);
    const cert = JSON.parse(readFileSync(path.join(restDir, 'certificate.json'), 'utf8')).predicate.tokenizedStocksConformance;
    expect(cert.scope).toMatchObject({ groups: ['rest'], interfaces: ['rest'], signer: false, full: false });
    expect(cert.preconfLatencyMs).toBeNull();
    expect(cert.badge.message).toMatch(/^conformant · rest only · embedded · dedicated · \d+\/\d+ · \d{4}-\d{2}-\d{2}$/);
    const html = readFileSync(path.join(restDir, 'report.html'), 'utf8');
    expect(html).toContain('<dt>interfaces in scope</dt><dd>rest</dd>');
    expect(html).toContain('<dt>pre-confirmed state</dt><dd>not in scope: no check that sends transactions was selected</dd>');
    expect((await cli(['verify-certificate', restDir, '--allow-self-reported'])).code).toBe(0);
  });

  it('verify-certificate exits 1 naming what differs when results.json is altered, and does not read the altered file further', async () => {
    const copy = dir();
    for (const f of ['results.json', 'certificate.json', 'badge.svg']) writeFileSync(path.join(copy, f), readFileSync(path.join(fullDir, f)));
    const doc = JSON.parse(readFileSync(path.join(copy, 'results.json'), 'utf8'));
    const victim = doc.checks.findIndex((c: { status: string; level: string }) => c.status === 'passed' && c.level === 'required');
    // A failed check names what it violated, and its outcome and effect agree with its status (the schema requires both): the edit is a valid document, caught by what it says.
    Object.assign(doc.checks[victim], { status: 'failed', outcome: 'failed', effect: 'fails-run', violated: [...doc.checks[victim].statements] });
    writeFileSync(path.join(copy, 'results.json'), JSON.stringify(doc, null, 2));
    const v = await cli(['verify-certificate', copy]);
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/^certificate REJECTED \(self-reported: not signed\): \d+ reasons?\n/);
    expect(v.stdout).toContain('results.json: SHA-256 is');
    // Size and digest before parsing: a results.json that is not the one certified is rejected unread.
    expect(v.stdout).not.toContain('results.json status:');
  });

  it('compare puts the two profiles side by side, the profile-specific checks listed (--all) as differences of scope only', async () => {
    const out = dir();
    const r = await cli(['compare', publicDir, fullDir, '--report-dir', out, '--all']);
    if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    const md = readFileSync(path.join(out, 'compare.md'), 'utf8');
    expect(md).toMatch(/^# Conformance compared: 2 targets, \d+ differences?/);
    expect(md).toContain('| | **embedded reference (public)** | **embedded reference (dedicated)** |');
    const diffs = md.slice(md.indexOf('## Scope only'), md.indexOf('## Same verdict everywhere'));
    // The 403 checks apply to the public profile only; the receipts checks to the dedicated one.
    expect(diffs).toContain('| ` rpc.getBlockReceipts.public-403 ` | 4.3 | ✅ passed | ⏭️ out of scope |');
    expect(diffs).toMatch(/\| ` rpc\.getBlockReceipts\.block\.latest ` \| 4\.3 \| ⏭️ out of scope \| ✅ passed \|/);
    expect(readFileSync(path.join(out, 'compare.html'), 'utf8')).toContain('<th>embedded reference (public)</th><th>embedded reference (dedicated)</th>');
    expect(r.stdout).toMatch(/\d+ checks, \d+ with different verdicts, \d+ differing in scope only\nreports: .*compare\.md, .*compare\.html/);
  });

  it('compare refuses results of another suite version', async () => {
    const other = dir();
    const doc = JSON.parse(readFileSync(path.join(publicDir, 'results.json'), 'utf8'));
    writeFileSync(path.join(other, 'results.json'), JSON.stringify({ ...doc, suite: { ...doc.suite, version: '9.9.9' } }));
    const r = await cli(['compare', publicDir, other, '--report-dir', dir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/different suite versions cannot be compared/);
  });
});
