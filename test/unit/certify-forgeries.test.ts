// What a stranger holding only a certified folder and the provider's public key must not be made to
// accept: each forgery a relying party met, rebuilt here, and each exit path of verify-certificate.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keyIdOf, loadSigningKey } from '../../src/cli/signing-keys';
import { jsonProblem, MAX_STATEMENT_DEPTH } from '../../src/cli/certificate/open';

const nestsDeeperThan = (text: string, max: number) => jsonProblem(text, max, false) !== undefined;
import { verifyCertificate, PUBLISHED } from '../../src/cli/certificate/verify';
import { type CertifyOptions } from '../../src/cli/certificate/write';
import { main } from '../../src/cli/main';
import type { RunDocument } from '../../src/verdict/document';
import type { ScopeFacts } from '../../src/verdict/scope';
import { writeReports } from '../../src/cli/write-reports';
import type { CheckResult } from '../../src/harness/runner';
import { checkResult, runDocument, FULL_SCOPE } from '../support/documents';
import { startHostile } from '../support/hostile';
import { sink } from '../support/sink';

const doc = (checks: CheckResult[], scope: ScopeFacts = { ...FULL_SCOPE, baseUrl: undefined, signer: false }): RunDocument =>
  runDocument(checks, scope, { durationMs: 20_000 });
const passing = () => [checkResult('rpc.envelope.http-200', 'passed'), checkResult('rpc.envelope.jsonrpc-version', 'passed')];

const provider = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (k: KeyObject) => k.export({ type: k.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }).toString();
const signKey = loadSigningKey(pem(provider.privateKey), 'provider key');
const attacker = loadSigningKey(pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey), 'attacker key');
const keyDir = mkdtempSync(path.join(tmpdir(), 'key-'));
const providerPub = path.join(keyDir, 'provider.pub.pem');
writeFileSync(providerPub, pem(provider.publicKey));

function certified(d: RunDocument, opts: CertifyOptions = { signKey }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
  writeReports(d, dir, { certify: opts });
  return dir;
}
const copyOf = (dir: string) => {
  const copy = mkdtempSync(path.join(tmpdir(), 'cert-'));
  cpSync(dir, copy, { recursive: true });
  return copy;
};
const envelopeOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'certificate.json'), 'utf8'));
const setEnvelope = (dir: string, env: unknown) => writeFileSync(path.join(dir, 'certificate.json'), JSON.stringify(env, null, 2) + '\n');

async function verify(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = sink();
  const err = sink();
  const code = await main(['verify-certificate', ...argv], {}, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

const signed = certified(doc(passing()));

describe('forgeries a relying party must not accept', () => {
  it('the genuine folder verifies with the provider key (the baseline every forgery departs from)', async () => {
    const r = await verify([signed, '--key', providerPub]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^certified status: conformant\ncertificate VERIFIED: signed by sha256:[0-9a-f]{64}, signature checked with --key; 6 files covered/);
  });

  it('no key: not verified, non-zero, saying why', async () => {
    const r = await verify([signed]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('not verified: no key given');
  });

  it('self-reported: non-zero without --allow-self-reported', async () => {
    const r = await verify([certified(doc(passing()), {})]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^certificate NOT VERIFIED: self-reported \(not signed\)/);
  });

  it('a fabricated conformant folder with a garbage signature under the real keyid: not verified without the key, rejected with it', async () => {
    // Written by the suite's own writer with the attacker's key under the provider's keyid: every file agrees with it.
    const forged = certified(doc(passing()), { signKey: { ...attacker, keyid: keyIdOf(provider.publicKey) } });
    expect(verifyCertificate(forged).differences).toEqual([]);
    const without = await verify([forged]);
    expect(without.code).toBe(2);
    expect(without.err).toContain('not verified: no key given');
    expect(without.out + without.err).not.toMatch(/VERIFIED:|signed by/);
    const withKey = await verify([forged, '--key', providerPub]);
    expect(withKey.code).toBe(1);
    expect(withKey.out).toBe(
      `certificate REJECTED: 1 reason\n  - signature: the signature does not verify with the key given (keyid ${keyIdOf(provider.publicKey)}): the envelope was altered or signed by another key\n`,
    );
  });

  it('junit.xml of a signed failing run rewritten to "0 failures": rejected with the real key', async () => {
    const failing = certified(doc([...passing(), checkResult('rpc.envelope.id-echo', 'failed')]));
    const junit = path.join(failing, 'junit.xml');
    const text = readFileSync(junit, 'utf8');
    expect(text).toMatch(/failures="1"/);
    writeFileSync(junit, text.replace(/failures="1"/g, 'failures="0"').replace(/<failure[\s\S]*?<\/failure>/g, ''));
    const r = await verify([failing, '--key', providerPub]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/ {2}- junit\.xml: SHA-256 is [0-9a-f]{64}, the certificate says [0-9a-f]{64} \(junit\.xml changed after it was certified\)\n/);
  });

  it("an extra signature naming the attacker's keyid, placed first: rejected (exactly one signature), the attacker never named as signer", async () => {
    const copy = copyOf(signed);
    const env = envelopeOf(copy);
    const bogus = { keyid: attacker.keyid, sig: randomBytes(64).toString('base64') };
    setEnvelope(copy, { ...env, signatures: [bogus, ...env.signatures] });
    const r = await verify([copy, '--key', providerPub]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('certificate REJECTED: 1 reason\n  - certificate.json: 2 signatures; a certificate carries exactly one\n');
  });

  it('an unknown member in the envelope, in the signature, or at the top of the statement: rejected', async () => {
    const env = envelopeOf(signed);
    const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'));
    const cases: Array<[unknown, RegExp]> = [
      [{ ...env, comment: 'trust me' }, /certificate\.json \(a DSSE envelope\) has member\(s\) this suite does not write: "comment"/],
      [{ ...env, signatures: [{ ...env.signatures[0], cert: 'x' }] }, /the signature has member\(s\) this suite does not write: "cert"/],
      [{ ...statement, note: 'x' }, /the statement has member\(s\) this suite does not write: "note"/],
    ];
    for (const [forged, why] of cases) {
      const copy = copyOf(signed);
      setEnvelope(copy, forged);
      const r = await verify([copy, '--key', providerPub]);
      expect([r.code, r.out]).toEqual([1, expect.stringMatching(why)]);
    }
  });

  it('junk characters inside the base64 of the signature or the payload: rejected (canonical RFC 4648 only)', async () => {
    const env = envelopeOf(signed);
    const sig: string = env.signatures[0].sig;
    const cases = [
      { ...env, signatures: [{ ...env.signatures[0], sig: `${sig.slice(0, 10)}!*${sig.slice(10)}` }] },
      { ...env, signatures: [{ ...env.signatures[0], sig: `${sig.slice(0, 10)}\n${sig.slice(10)}` }] },
      { ...env, signatures: [{ ...env.signatures[0], sig: sig.replace(/=+$/, '') }] },
      { ...env, payload: `${env.payload.slice(0, 8)}.${env.payload.slice(8)}` },
      { ...env, signatures: [{ ...env.signatures[0], sig: Buffer.from(sig, 'base64').toString('base64url') }] },
    ];
    for (const forged of cases) {
      const copy = copyOf(signed);
      setEnvelope(copy, forged);
      const r = await verify([copy, '--key', providerPub]);
      if (forged.signatures[0].sig === sig && forged.payload === env.payload) continue; // base64url of bytes without + or /: the same text
      expect([r.code, r.out]).toEqual([1, expect.stringMatching(/ is not canonical base64 \(RFC 4648\)\n$/)]);
    }
  });

  it('a payloadType other than in-toto: rejected', async () => {
    const copy = copyOf(signed);
    setEnvelope(copy, { ...envelopeOf(signed), payloadType: 'text/plain' });
    const r = await verify([copy, '--key', providerPub]);
    expect([r.code, r.out]).toEqual([1, expect.stringContaining('payloadType "text/plain", expected application/vnd.in-toto+json')]);
  });

  it('a statement nested 100,000 levels deep: refused in one line, no RangeError, no stack trace', async () => {
    const deep = `{"_type":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(nestsDeeperThan(deep, MAX_STATEMENT_DEPTH)).toBe(true);
    for (const make of [
      (copy: string) => writeFileSync(path.join(copy, 'certificate.json'), deep),
      (copy: string) => setEnvelope(copy, { ...envelopeOf(signed), payload: Buffer.from(deep).toString('base64') }),
    ]) {
      const copy = copyOf(signed);
      make(copy);
      const r = await verify([copy, '--key', providerPub]);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/^certificate REJECTED: 1 reason\n {2}- certificate\.json('s payload)? nests deeper than 32 levels: not read\n$/);
      expect(r.out + r.err).not.toMatch(/RangeError|at .*\.ts:\d+/);
    }
    // Depth is counted outside strings only: brackets inside a string are text.
    expect(nestsDeeperThan(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`, 2)).toBe(false);
  });

  it('a duplicate member in the signed payload (read one way by one parser, another way by another): rejected', async () => {
    const env = envelopeOf(signed);
    const text = Buffer.from(env.payload, 'base64').toString('utf8');
    const dup = text.replace('{"_type":', '{"predicateType":"x","_type":');
    const copy = copyOf(signed);
    setEnvelope(copy, { ...env, payload: Buffer.from(dup).toString('base64') });
    const r = await verify([copy, '--key', providerPub]);
    expect(r.code).toBe(1);
  });
});

describe('a verdict in bounded words, whatever the certificate holds', () => {
  it('150 000 entries in the signed subject: rejected with one reason for them, exit 1 (a spread of that many reasons once overflowed the stack)', async () => {
    const copy = copyOf(signed);
    const env = envelopeOf(copy);
    const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'));
    setEnvelope(copy, { ...env, payload: Buffer.from(JSON.stringify({ ...statement, subject: new Array(150_000).fill(0) })).toString('base64') });
    for (const json of [[], ['--json']]) {
      const r = await verify([copy, '--key', providerPub, ...json]);
      expect([r.code, r.err]).toEqual([1, '']);
      expect(r.out).toContain('subject: 150000 entries, where a certificate of this suite names the 6 files it publishes');
      expect(r.out.length).toBeLessThan(20_000);
    }
  });

  it('a thousand files the certificate does not cover: the first 50 reasons shown, and how many more', async () => {
    const copy = copyOf(signed);
    for (let i = 0; i < 1000; i++) writeFileSync(path.join(copy, `extra-${i}.txt`), 'x');
    const r = await verify([copy, '--key', providerPub]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^certificate REJECTED: 1000 reasons\n/);
    expect(r.out.trimEnd().split('\n')).toHaveLength(52);
    expect(r.out).toMatch(/ {2}- … and 950 more, not shown\n$/);
  });

  it("a suite version with a line break in it: the error is one bounded line (it cannot forge a 'certificate VERIFIED' line of its own)", async () => {
    const copy = copyOf(signed);
    const env = envelopeOf(copy);
    const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'));
    statement.predicate.tokenizedStocksConformance.suite.version = `0.1.0 \ncertificate VERIFIED: signed by sha256:abab${'A'.repeat(100_000)}`;
    // Unsigned: nothing else rejects it before the versions are compared.
    writeFileSync(path.join(copy, 'certificate.json'), JSON.stringify(statement, null, 2) + '\n');
    const r = await verify([copy, '--allow-self-reported']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.err.length).toBeLessThan(600);
    expect(r.err).not.toMatch(/^certificate VERIFIED/m);
  });
});

describe('every file of a certified folder is covered', () => {
  it('the folder holds exactly the files the statement names and certificate.json, and the verifier knows each of them', () => {
    const names = readdirSync(signed).sort();
    const statement = JSON.parse(Buffer.from(envelopeOf(signed).payload, 'base64').toString('utf8'));
    const subjects = (statement.subject as Array<{ name: string }>).map((s) => s.name);
    // A file added to the writer but not to the verifier (or not to the statement) fails here.
    expect(names).toEqual([...subjects, 'certificate.json'].sort());
    expect(subjects).toEqual(PUBLISHED.map(([name]) => name));
    expect(verifyCertificate(signed, { key: provider.publicKey }).covered).toEqual(subjects);
  });

  it('a file the certificate does not cover, or a covered file missing: rejected', async () => {
    const extra = copyOf(signed);
    writeFileSync(path.join(extra, 'conformant.txt'), 'all good\n');
    const r = await verify([extra, '--key', providerPub]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('  - "conformant.txt": a file the certificate does not cover');
    const missing = copyOf(signed);
    unlinkSync(path.join(missing, 'junit.xml'));
    expect(verifyCertificate(missing, { key: provider.publicKey }).differences).toEqual(['junit.xml: covered by the statement, but not in the directory']);
  });

  it('each covered file, changed by one byte, is rejected with the real key', () => {
    for (const [name] of PUBLISHED) {
      const copy = copyOf(signed);
      const file = path.join(copy, name);
      writeFileSync(file, readFileSync(file, 'utf8') + ' ');
      const why = verifyCertificate(copy, { key: provider.publicKey }).differences;
      expect([name, why[0]]).toEqual([name, expect.stringMatching(new RegExp(`^${name.replace('.', '\\.')}: SHA-256 is`))]);
    }
  });
});

describe('--live: a target that cannot be judged now is exit 3, in one line', () => {
  it('unreachable: exit 3 with one root-cause line, nothing listed per check', async () => {
    // A port that was free a moment ago: nothing answers there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const dir = certified(doc(passing(), { ...FULL_SCOPE, baseUrl: undefined, signer: false, rpcUrl: `http://127.0.0.1:${port}` }));
    const r = await verify([dir, '--key', providerPub, '--live', '--timeout-ms', '2000']);
    expect(r.err).toBe('');
    expect(r.code).toBe(3);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('certified status: conformant');
    expect(lines[1]).toMatch(/^certificate VERIFIED/);
    expect(lines[2]).toMatch(/^live: could not judge: the certified target is unreachable now \(JSON-RPC: .+\); nothing re-run$/);
  }, 30_000);

  it('throttled: exit 3, the checks not judged counted by cause with the root cause, not listed one per line', async () => {
    const server = await startHostile(() => ({ status: 429, headers: { 'retry-after': '0' }, body: 'slow down' }));
    try {
      const dir = certified(doc(passing(), { ...FULL_SCOPE, baseUrl: undefined, signer: false, rpcUrl: server.origin }));
      const r = await verify([dir, '--key', providerPub, '--live', '--timeout-ms', '2000']);
      expect(r.code).toBe(3);
      const lines = r.out.trimEnd().split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[2]).toMatch(
        /^live: re-ran 2 certified check\(s\) that need no signer against JSON-RPC http:\/\/127\.0\.0\.1:\d+: 0 pass, 0 fail now, 2 not judged now$/,
      );
      expect(lines[3]).toMatch(/^live: could not judge 2 certified checks now \(throttled 2\); root cause: throttled/);
    } finally {
      await server.close();
    }
  }, 60_000);
});
