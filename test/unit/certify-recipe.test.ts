// The relying party's recipe in docs/certification.md, run exactly as written (its code blocks are
// read from the document, so the document cannot rot): a provider makes its key and keyid with
// openssl, the suite certifies a run with that key, and the recipe's script (openssl, sha256sum, jq)
// verifies the folder, and refuses it once a file, the signature or the pinned keyid is wrong.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keyIdOf, loadSigningKey } from '../../src/cli/signing-keys';
import { writeReports } from '../../src/cli/write-reports';
import { checkResult, runDocument, FULL_SCOPE } from '../support/documents';

const DOC = path.join(__dirname, '../../docs/certification.md');

/** The ```sh block that follows `<!-- recipe: name`. */
function recipe(name: string): string {
  const text = readFileSync(DOC, 'utf8');
  const at = text.indexOf(`<!-- recipe: ${name} `);
  if (at < 0) throw new Error(`docs/certification.md has no recipe ${name}`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`docs/certification.md: the recipe ${name} has no sh block`);
  return block[1];
}

const has = (tool: string, arg = '--version') => spawnSync(tool, [arg], { stdio: 'ignore' }).status === 0;
const missing = [['bash'], ['openssl', 'version'], ['sha256sum'], ['base64'], ['jq']].filter(([t, a]) => !has(t, a)).map(([t]) => t);
const run = missing.length ? it.skip : it;
const why = missing.length ? ` — SKIPPED: ${missing.join(', ')} not installed (e.g. apt-get install -y ${missing.join(' ')})` : '';

// stdin not a pipe: bash reads ~/.bashrc when its stdin is a socket (as it would under rshd).
function sh(cwd: string, script: string, env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync('bash', ['-c', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A provider that followed the recipe, a run it certified, and the script a relying party saved. */
function provider(variant: 'ecdsa' | 'ed25519'): { root: string; keyid: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'recipe-'));
  let keyRecipe = recipe('provider-key');
  if (variant === 'ed25519') {
    const alt = /^# once: .*\(or Ed25519: (openssl genpkey -algorithm ed25519 -out cert-sign\.pem)\)/m.exec(keyRecipe);
    if (!alt) throw new Error('the provider recipe no longer names its Ed25519 command');
    keyRecipe = keyRecipe.replace(/^openssl ecparam .*$/m, alt[1]);
  }
  const made = sh(root, keyRecipe);
  if (made.code !== 0) throw new Error(`the provider recipe failed: ${made.err}`);
  const signKey = loadSigningKey(readFileSync(path.join(root, 'cert-sign.pem'), 'utf8'), 'cert-sign.pem');
  const doc = runDocument([checkResult('rpc.a'), checkResult('rpc.b')], { ...FULL_SCOPE, baseUrl: undefined, signer: false }, { durationMs: 20_000 });
  writeReports(doc, path.join(root, 'reports'), { certify: { signKey } });
  let script = recipe('relying-party');
  if (variant === 'ed25519') {
    const alt = /^# an Ed25519 key: (.*)$/m.exec(script);
    if (!alt) throw new Error('the relying-party recipe no longer names its Ed25519 command');
    script = script.replace(/^openssl dgst .*$/m, alt[1]);
  }
  writeFileSync(path.join(root, 'verify-certificate.sh'), script);
  return { root, keyid: signKey.keyid };
}

/** The relying party's command line, as the document gives it. */
const verify = (root: string, dir = 'reports', pinned?: string) =>
  sh(root, `dir=${dir} pub=provider.pub.pem pinned="${pinned ?? '$(cat provider.keyid)'}" bash verify-certificate.sh`);

describe('docs/certification.md: the recipe with standard tools', () => {
  run(`provider key, keyid and a relying party's check with openssl, sha256sum and jq, as written${why}`, () => {
    const { root, keyid } = provider('ecdsa');
    expect(readFileSync(path.join(root, 'provider.keyid'), 'utf8').trim()).toBe(keyid);
    expect(keyid).toBe(keyIdOf(loadSigningKey(readFileSync(path.join(root, 'cert-sign.pem'), 'utf8'), 'k').key));
    const ok = verify(root);
    expect([ok.code, ok.err]).toEqual([0, '']);
    expect(ok.out).toMatch(
      /^Verified OK\n\{"status":"conformant","target":\{"baseUrl":null,"rpcUrl":"https:\/\/rpc\.example","embedded":false\},"date":"2026-01-01T00:00:20\.000Z","badge":".+"\}\n/,
    );
    expect(ok.out.endsWith(`verified: signed by ${keyid}\n`)).toBe(true);

    const forged = (edit: (dir: string) => void) => {
      const dir = `forged-${randomBytes(4).toString('hex')}`;
      cpSync(path.join(root, 'reports'), path.join(root, dir), { recursive: true });
      edit(path.join(root, dir));
      return verify(root, dir);
    };
    const env = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'certificate.json'), 'utf8'));
    const refusals: Array<[string, (dir: string) => void, RegExp]> = [
      ['junit.xml rewritten', (d) => writeFileSync(path.join(d, 'junit.xml'), '<testsuites failures="0"/>\n'), /did NOT match/],
      ['a file added', (d) => writeFileSync(path.join(d, 'extra.txt'), 'x'), /extra\.txt/],
      [
        'a garbage signature under the real keyid',
        (d) => writeFileSync(path.join(d, 'certificate.json'), JSON.stringify({ ...env(d), signatures: [{ keyid, sig: randomBytes(70).toString('base64') }] })),
        /Verification failure|verify/i,
      ],
      [
        'a second signature first',
        (d) => writeFileSync(path.join(d, 'certificate.json'), JSON.stringify({ ...env(d), signatures: [{ keyid, sig: 'AAAA' }, ...env(d).signatures] })),
        /^$/,
      ],
      ['an unknown envelope member', (d) => writeFileSync(path.join(d, 'certificate.json'), JSON.stringify({ ...env(d), note: 'x' })), /^$/],
    ];
    for (const [what, edit, message] of refusals) {
      const r = forged(edit);
      expect([what, r.code === 0, r.out.includes('verified:')]).toEqual([what, false, false]);
      expect([what, r.out + r.err]).toEqual([what, expect.stringMatching(message)]);
    }
    const otherKey = `sha256:${'0'.repeat(64)}`;
    const wrongPin = verify(root, 'reports', otherKey);
    expect(wrongPin.code).not.toBe(0);
    expect(wrongPin.err).toBe(`not the pinned key: ${keyid}\n`);
  });

  run(`the same recipe with an Ed25519 key (its alternative commands as written)${why}`, () => {
    const { root, keyid } = provider('ed25519');
    const ok = verify(root);
    expect([ok.code, ok.err]).toEqual([0, '']);
    expect(ok.out).toMatch(/^Signature Verified Successfully\n/);
    expect(ok.out.endsWith(`verified: signed by ${keyid}\n`)).toBe(true);
    // The key in the folder's envelope is not trusted: the pinned one is; any other key fails.
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(path.join(root, 'provider.pub.pem'), other);
    expect(verify(root).code).not.toBe(0);
  });
});
