/**
 * Credentials of any length up to 64 KiB: an 8 KB bearer JWT made the masking pattern overflow the
 * stack, and the run printed the pattern (the secret, one character at a time) on stderr. Here a
 * 64 KiB bearer token and a 64 KiB --secret run end to end against the embedded reference target:
 * the run judges, writes its reports, and no output holds any 16 characters of either.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli';

const KiB = 1024;

describe('a 64 KiB bearer token and a 64 KiB --secret', () => {
  it('a run against the embedded target judges, writes every report, and prints neither', async () => {
    const bearer = randomBytes(48 * KiB).toString('base64url');
    const secret = randomBytes(48 * KiB).toString('base64');
    const dir = mkdtempSync(path.join(tmpdir(), 'long-credential-'));
    const r = await runCli(['--embedded', '--only', 'rest', '--secret', secret, '--report-dir', dir], {
      env: { REST_HEADERS: `Authorization: Bearer ${bearer}` },
      timeoutMs: 180_000,
    });
    expect([r.code, r.stderr.slice(0, 3000)]).toEqual([0, expect.not.stringMatching(/stack|RangeError|conformance:/i)]);
    expect(r.stdout).toMatch(/^status: conformant/m);
    const outputs = [r.stdout, r.stderr, ...readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8'))];
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(['results.json', 'junit.xml', 'summary.md', 'report.html']));
    for (const credential of [bearer, secret])
      for (let at = 0; at + 16 <= credential.length; at += 4096) for (const text of outputs) expect(text.includes(credential.slice(at, at + 16))).toBe(false);
  }, 200_000);
});
