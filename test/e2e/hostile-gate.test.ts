/**
 * The egress gate against hostile targets and hostile folders (real HTTP on 127.0.0.1): a link
 * planted in the report folder is replaced, never followed; what an earlier run left and this one
 * does not write is removed, anything else kept; C1 controls from a target never reach the
 * console raw; e-mail and `scheme:` text never becomes a link in summary.md; a key given to the
 * wrong flag is never printed.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { rpcReply, startHostile, type HostileServer } from '../support/hostile';
import { capture } from '../support/sink';

const MarkdownIt = require('markdown-it') as new (opts: object) => { render(md: string): string };
// linkify-it with its e-mail detection on: GitHub's renderer (cmark-gfm's autolink extension) links bare e-mail addresses too.
const markdown = new MarkdownIt({ html: true, linkify: true });
(markdown as unknown as { linkify: { set(o: object): void } }).linkify.set({ fuzzyLink: false, fuzzyEmail: true });

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out = capture();
  const err = capture();
  const code = await main(argv, env, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

/** Every answer a failure: the list answers 500 with text that tries to be links and terminal sequences. */
const HOSTILE_TEXT = 'write to admin@evil.example or mailto:admin@evil.example, xmpp:bot@evil.example, tel:+15550100 \u009b31m\u009d0;pwned\u0007';
let server: HostileServer;
beforeAll(async () => {
  server = await startHostile((req) =>
    req.url === '/openapi.json'
      ? { headers: { 'content-type': 'text/plain\u009b2J\u009d0;t' }, body: '{ not: [a document' }
      : req.method === 'POST'
        ? { ...rpcReply(req, () => ({ error: { code: -32000, message: HOSTILE_TEXT } })), headers: { 'content-type': 'application/json\u009b2J\u009d0;t' } }
        : { status: 500, headers: { 'content-type': 'text/plain\u009b2J\u009d0;t' }, body: HOSTILE_TEXT },
  );
});
afterAll(() => server.close());

const failingRun = (dir: string, extra: string[] = []) =>
  run(['--base-url', server.origin, '--rpc-url', `${server.origin}/rpc`, '--only', 'rest,rpc', '--timeout-ms', '2000', '--report-dir', dir, ...extra]);

describe('the report folder', () => {
  it('a link planted where a report goes is replaced; the file it pointed at is untouched', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gate-links-'));
    const victim = path.join(mkdtempSync(path.join(tmpdir(), 'gate-victim-')), 'victim.txt');
    writeFileSync(victim, 'precious');
    for (const name of ['results.json', 'summary.md', 'badge.svg']) symlinkSync(victim, path.join(dir, name));
    const r = await failingRun(dir, ['--certify', '--samples', '2']);
    expect(r.code).toBe(1);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    for (const name of ['results.json', 'summary.md', 'badge.svg']) expect(lstatSync(path.join(dir, name)).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')).status).toBe('non-conformant');
    // No temporary file is left behind.
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  }, 60_000);

  it("what an earlier certified run left and this run does not write is removed; other people's files are kept", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gate-stale-'));
    for (const name of ['badge.svg', 'certificate.json', 'predicate.json']) writeFileSync(path.join(dir, name), `${name} of a conformant run`);
    writeFileSync(path.join(dir, 'notes.md'), 'mine');
    const r = await failingRun(dir);
    expect(r.code).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'notes.md', 'report.html', 'results.json', 'summary.md']);
    expect(readFileSync(path.join(dir, 'notes.md'), 'utf8')).toBe('mine');
  }, 60_000);
});

describe('target text is inert', () => {
  let r: Awaited<ReturnType<typeof run>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-inert-'));
    r = await failingRun(dir);
  }, 60_000);

  it('C1 controls (CSI, OSC) from a target never reach stdout or stderr raw', async () => {
    expect(r.out + r.err).toMatch(/evil|text\/plain|application\/json/);
    expect(r.out).not.toMatch(/[\u0080-\u009f]/);
    expect(r.err).not.toMatch(/[\u0080-\u009f]/);
    // The published document's Content-Type is quoted on stderr when the document cannot be read.
    const doc = await failingRun(mkdtempSync(path.join(tmpdir(), 'gate-doc-')), ['--openapi', `${server.origin}/openapi.json`]);
    expect(doc.code).toBe(2);
    expect(doc.err).toContain('text/plain');
    expect(doc.err).not.toMatch(/[\u0080-\u009f]/);
  });

  it('e-mail addresses and mailto:/xmpp: text in summary.md render as text, not links, with linkify on', () => {
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(summary.replace(/[\u200b\\]/g, '')).toContain('admin@evil.example');
    const html = markdown.render(summary);
    expect(html).not.toMatch(/<a\s/);
  });
});

describe('keys are never printed, even in a configuration error', () => {
  it('a transaction key given to --sign-key is not echoed', async () => {
    const key = `0x${'5ec2e7ab'.repeat(8)}`;
    const r = await run(['--certify', '--sign-key', key, '--report-dir', mkdtempSync(path.join(tmpdir(), 'gate-key-'))]);
    expect(r.code).toBe(2);
    expect((r.out + r.err).toLowerCase()).not.toContain('5ec2e7ab5ec2');
  });

  it('PEM text in CERT_SIGN_KEY_FILE is not echoed', async () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const r = await run(['--certify', '--report-dir', mkdtempSync(path.join(tmpdir(), 'gate-pem-'))], { CERT_SIGN_KEY_FILE: pem });
    expect(r.code).toBe(2);
    const lines = pem.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'));
    for (const l of lines) expect(r.out + r.err).not.toContain(l.slice(0, 16));
    expect(existsSync(pem)).toBe(false);
  });
});
