// An expectations file makes a listed failure known, which fails no run: a certificate made with
// one would state "conformant" (predicate PASSED, a green badge) for a target that failed required
// checks. --certify with --expectations is refused before anything runs, exit 2.
import { readerDocument } from '../../src/verdict/reader';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { buildStatement } from '../../src/cli/certificate/statement';
import { verifyCertificate } from '../../src/cli/certificate/verify';
import { writeReports } from '../../src/cli/write-reports';
import { judge } from '../../src/verdict/outcome';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';
import { capture } from '../support/sink';

describe('--certify with --expectations', () => {
  it('would have certified a target failing a required check as conformant (why it is refused)', () => {
    const known = judge(checkResult('rpc.x', 'failed', { violated: ['4.2.1'] }), { expectations: [{ id: 'rpc.x', reason: 'known' }] });
    const doc = runDocument([known, checkResult('rpc.y', 'passed')], FULL_SCOPE);
    expect([known.outcome, doc.status, buildStatement(readerDocument(doc), []).predicate.result]).toEqual(['known-failure', 'conformant', 'PASSED']);
  });

  it.each<[string, string[], Record<string, string>]>([
    ['flags', ['--certify'], {}],
    ['CERTIFY and EXPECTATIONS', [], { CERTIFY: '1' }],
  ])('%s: exit 2, one line saying why, and no report', async (_what, argv, env) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'certify-expectations-'));
    const file = path.join(dir, 'known.yml');
    writeFileSync(file, 'expectations:\n  - id: rpc.envelope.http-200\n    reason: known\n');
    const out = capture();
    const err = capture();
    const withFile = argv.length ? [...argv, '--expectations', file] : argv;
    const code = await main(
      [...withFile, '--rpc-url', 'http://127.0.0.1:9', '--report-dir', path.join(dir, 'out')],
      argv.length ? env : { ...env, EXPECTATIONS: file },
      {
        out: out.stream,
        err: err.stream,
      },
    );
    expect(code).toBe(2);
    expect(err.text()).toMatch(/^conformance: --certify with --expectations \(or EXPECTATIONS\): a certificate states what the target did/m);
    expect(existsSync(path.join(dir, 'out', 'results.json'))).toBe(false);
  });

  it('verify-certificate rejects a certified folder whose results.json counts a failure as known (made before, or by hand)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'certified-known-'));
    const known = judge(checkResult('rpc.x', 'failed', { violated: ['4.2.1'] }), { expectations: [{ id: 'rpc.x', reason: 'known' }] });
    writeReports(runDocument([known, checkResult('rpc.y', 'passed')], FULL_SCOPE), dir, { certify: true });
    const v = verifyCertificate(dir);
    expect(v.verdict).toBe('rejected');
    expect(v.differences).toContain('results.json checks[0] (rpc.x) carries an expectation: a certificate never counts a failure as known');
  });
});
