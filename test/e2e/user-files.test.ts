/**
 * Files a user names are read only when they are regular files, and only up to a bound: a FIFO
 * would block the read forever, a link to /dev/zero would read until memory ran out. Each case
 * runs the real CLI in a child process with a time bound, so a read that hangs fails the test
 * instead of hanging it.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSigningKey } from '../../src/cli/signing-keys';
import { MAX_CERTIFICATE_BYTES } from '../../src/cli/certificate/open';
import { writeReports } from '../../src/cli/write-reports';
import { readRegularFile, UnreadableFile } from '../../src/harness/regular-file';
import { runCli as runCliFrom, type CliOptions } from '../support/cli';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';

const BOUND_MS = 30_000;
/** The built CLI, as the package runs it (`npm test` builds dist/ first): the files it reads are the subject, not how it starts. */
const runCli = (args: string[], opts: CliOptions = {}) => runCliFrom(args, { from: 'dist', ...opts });
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = (prefix: string) => {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

function mkfifo(file: string): void {
  const made = spawnSync('mkfifo', [file]);
  if (made.status !== 0) throw new Error(`mkfifo ${file}: ${made.stderr}`);
}

const provider = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (k: KeyObject) => k.export({ type: k.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }).toString();
const keys = tempDir('keys-');
const publicKey = path.join(keys, 'provider.pub.pem');
const privateKey = path.join(keys, 'provider.pem');
writeFileSync(publicKey, pem(provider.publicKey));
writeFileSync(privateKey, pem(provider.privateKey));

/** A signed, certified report directory, as `--certify --sign-key` writes it. */
function certified(): string {
  const dir = tempDir('cert-');
  const doc = runDocument([checkResult('rpc.envelope.http-200', 'passed')], { ...FULL_SCOPE, baseUrl: undefined, signer: false }, { durationMs: 20_000 });
  writeReports(doc, dir, { certify: { signKey: loadSigningKey(pem(provider.privateKey), 'provider key') } });
  return dir;
}

const verify = (dir: string, ...more: string[]) => runCli(['verify-certificate', dir, '--key', publicKey, ...more], { timeoutMs: BOUND_MS });

describe('verify-certificate opens only regular files', () => {
  it('the genuine directory verifies (the baseline)', async () => {
    const r = await verify(certified());
    expect(r.stdout).toMatch(/^certified status: \w[\w-]*\ncertificate VERIFIED/);
    expect(r.code).toBe(0);
  }, 60_000);

  it('certificate.json a FIFO: one line, exit 2, at once (it used to wait forever for a writer)', async () => {
    const dir = certified();
    unlinkSync(path.join(dir, 'certificate.json'));
    mkfifo(path.join(dir, 'certificate.json'));
    const r = await verify(dir);
    expect(r.stderr).toMatch(/^conformance verify-certificate: .*certificate\.json is a FIFO \(named pipe\), not a regular file: not read/m);
    expect(r.code).toBe(2);
  }, 60_000);

  it('certificate.json a link to /dev/zero: one line, exit 2 (it used to read until memory ran out)', async () => {
    const dir = certified();
    unlinkSync(path.join(dir, 'certificate.json'));
    symlinkSync('/dev/zero', path.join(dir, 'certificate.json'));
    const r = await verify(dir);
    expect(r.stderr).toMatch(/certificate\.json is a link to a character device, not a regular file: not read/);
    expect(r.code).toBe(2);
  }, 60_000);

  it.each(['results.json', 'junit.xml'])(
    '%s a FIFO: exit 2, at once',
    async (name) => {
      const dir = certified();
      unlinkSync(path.join(dir, name));
      mkfifo(path.join(dir, name));
      const r = await verify(dir);
      expect(r.stderr).toContain(`${name} is a FIFO (named pipe), not a regular file`);
      expect(r.code).toBe(2);
    },
    60_000,
  );

  it('a link to a regular file is followed: the directory still verifies', async () => {
    const dir = certified();
    const elsewhere = path.join(tempDir('elsewhere-'), 'certificate.json');
    copyFileSync(path.join(dir, 'certificate.json'), elsewhere);
    unlinkSync(path.join(dir, 'certificate.json'));
    symlinkSync(elsewhere, path.join(dir, 'certificate.json'));
    const r = await verify(dir);
    expect(r.stdout).toMatch(/^certified status: \w[\w-]*\ncertificate VERIFIED/);
    expect(r.code).toBe(0);
  }, 60_000);

  it('a certificate.json larger than its bound is rejected unread (exit 1), whatever it holds', async () => {
    const dir = certified();
    writeFileSync(path.join(dir, 'certificate.json'), Buffer.alloc(MAX_CERTIFICATE_BYTES + 1, 0x20));
    const r = await verify(dir);
    expect(r.stdout).toMatch(/certificate REJECTED[\s\S]*certificate\.json is 4 MiB, more than the 4 MiB it may have: not read/);
    expect(r.code).toBe(1);
  }, 60_000);

  it('--key a FIFO: exit 2, at once', async () => {
    const fifo = path.join(tempDir('key-'), 'key.pem');
    mkfifo(fifo);
    const r = await runCli(['verify-certificate', certified(), '--key', fifo], { timeoutMs: BOUND_MS });
    expect(r.stderr).toMatch(/--key .*key\.pem is a FIFO \(named pipe\), not a regular file: not read/);
    expect(r.code).toBe(2);
  }, 60_000);
});

describe('the run reads user-named files the same way', () => {
  it.each([
    ['--expectations', 'expectations.yml', /--expectations \(or EXPECTATIONS\): .*expectations\.yml is a FIFO/],
    ['--sign-key', 'sign.pem', /--sign-key \(or CERT_SIGN_KEY_FILE\) \S+ is a FIFO/],
  ])(
    '%s a FIFO: a configuration error, exit 2, before any request',
    async (flag, name, message) => {
      const fifo = path.join(tempDir('user-'), name);
      mkfifo(fifo);
      const r = await runCli(['--rpc-url', 'http://127.0.0.1:9', '--certify', flag, fifo], { timeoutMs: BOUND_MS });
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
    },
    60_000,
  );

  it('--sign-key a link to /dev/zero: exit 2', async () => {
    const link = path.join(tempDir('user-'), 'sign.pem');
    symlinkSync('/dev/zero', link);
    const r = await runCli(['--rpc-url', 'http://127.0.0.1:9', '--certify', '--sign-key', link], { timeoutMs: BOUND_MS });
    expect(r.stderr).toMatch(/--sign-key \(or CERT_SIGN_KEY_FILE\) \S+ is a link to a character device, not a regular file: not read/);
    expect(r.code).toBe(2);
  }, 60_000);
});

describe('the .env in the directory the command was run from', () => {
  it('a FIFO named .env: one line naming it, exit 2, at once (dotenv read it as a file and waited forever for a writer)', async () => {
    const cwd = tempDir('dotenv-fifo-');
    mkfifo(path.join(cwd, '.env'));
    const r = await runCli(['--rpc-url', 'http://127.0.0.1:9'], { cwd, timeoutMs: BOUND_MS });
    expect(r.stderr).toMatch(/^conformance: \.env: .*\.env is a FIFO \(named pipe\), not a regular file: not read$/m);
    expect(r.code).toBe(2);
  }, 60_000);

  it('a link to /dev/zero named .env: exit 2 (it would read until memory ran out)', async () => {
    const cwd = tempDir('dotenv-zero-');
    symlinkSync('/dev/zero', path.join(cwd, '.env'));
    const r = await runCli(['--rpc-url', 'http://127.0.0.1:9'], { cwd, timeoutMs: BOUND_MS });
    expect(r.stderr).toMatch(/\.env is a link to a character device, not a regular file: not read/);
    expect(r.code).toBe(2);
  }, 60_000);

  it('a regular .env is still read (the baseline: its setting is the one refused)', async () => {
    const cwd = tempDir('dotenv-ok-');
    writeFileSync(path.join(cwd, '.env'), 'ONLY=nosuchgroup\n');
    const r = await runCli(['--rpc-url', 'http://127.0.0.1:9'], { cwd, timeoutMs: BOUND_MS });
    expect(r.stderr).toMatch(/--only \(or ONLY\): "nosuchgroup"/);
    expect(r.code).toBe(2);
  }, 60_000);
});

describe('readRegularFile', () => {
  it('reads a regular file and a link to one; refuses a FIFO, a device, a directory, a dangling link and a file over the bound', () => {
    const dir = tempDir('files-');
    const file = path.join(dir, 'a.txt');
    writeFileSync(file, 'hello');
    symlinkSync(file, path.join(dir, 'link'));
    symlinkSync(path.join(dir, 'nothing'), path.join(dir, 'dangling'));
    mkfifo(path.join(dir, 'fifo'));
    expect(readRegularFile(file, 5).toString()).toBe('hello');
    expect(readRegularFile(path.join(dir, 'link'), 5).toString()).toBe('hello');
    const refusal = (f: string, max = 1024) => {
      try {
        readRegularFile(f, max);
      } catch (err) {
        if (err instanceof UnreadableFile) return [err.code, err.message];
        throw err;
      }
      return undefined;
    };
    expect(refusal(path.join(dir, 'fifo'))).toEqual(['not-regular', `${path.join(dir, 'fifo')} is a FIFO (named pipe), not a regular file: not read`]);
    expect(refusal('/dev/null')).toEqual(['not-regular', '/dev/null is a character device, not a regular file: not read']);
    expect(refusal(dir)).toEqual(['not-regular', `${dir} is a directory, not a regular file: not read`]);
    expect(refusal(path.join(dir, 'dangling'))).toEqual(['ENOENT', `cannot read ${path.join(dir, 'dangling')}: a link to nothing`]);
    expect(refusal(file, 4)).toEqual(['too-large', `${file} is 5 bytes, more than the 4 bytes it may have: not read`]);
  });
});
