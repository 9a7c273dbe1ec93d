/**
 * The closed list of forms an honest server echoes a credential in (docs/safe-to-share.md), each
 * written here the way the common encoder writes it, not with the gate's own code: every one is
 * masked, for credentials holding the characters each encoder treats specially.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Egress } from '../../src/cli/egress';
import { Redactor, REDACTED } from '../../src/harness/redact';

const CREDENTIALS = ['sk_live_T0ken/Q7xW2kLm+9PzR$x', `p<a>s&s"w'o rd/~*!é€`, 'plainAlnumKey1234567890'];

const hex = (s: string) => Buffer.from(s).toString('hex');
const pyQuote = (s: string) =>
  [...Buffer.from(s)]
    .map((b) => (/[A-Za-z0-9_.~/-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
const html5 = (s: string, quot: string, apos: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, quot).replace(/'/g, apos);

/** Each form as the encoder a web stack uses writes it. */
const FORMS: Array<[string, (s: string) => string]> = [
  ['as sent', (s) => s],
  ['JSON.stringify', (s) => JSON.stringify(s).slice(1, -1)],
  ["Go's encoding/json (HTML-safe \\u003c)", (s) => JSON.stringify(s).slice(1, -1).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')],
  [
    "PHP's json_encode (\\/, \\u of non-ASCII)",
    (s) =>
      JSON.stringify(s)
        .slice(1, -1)
        .replace(/\//g, '\\/')
        .replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  ],
  ['encodeURIComponent', encodeURIComponent],
  ['encodeURIComponent, lower-case hex', (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())],
  ['form encoding', (s) => new URLSearchParams({ k: s }).toString().slice(2)],
  ["Python's quote keeping '/'", pyQuote],
  ['every byte percent-encoded', (s) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')],
  ['HTML, the five specials named', (s) => html5(s, '&quot;', '&#39;')],
  ['HTML, Python html.escape', (s) => html5(s, '&quot;', '&#x27;')],
  ['HTML, Go numeric quotes', (s) => html5(s, '&#34;', '&#39;')],
  ['HTML, every character numeric', (s) => [...s].map((c) => `&#${c.codePointAt(0)};`).join('')],
  ['HTML, every character numeric in hex', (s) => [...s].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join('')],
  ['hex of the bytes', hex],
  ['hex of the bytes, upper case', (s) => hex(s).toUpperCase()],
  ['base64', (s) => Buffer.from(s).toString('base64')],
  ['base64 one byte in', (s) => Buffer.from(`x${s}`).toString('base64')],
  ['base64 two bytes in', (s) => Buffer.from(`{"${s}`).toString('base64')],
  ['base64url two bytes in, unpadded', (s) => Buffer.from(`xy${s}!`).toString('base64url')],
];

describe.each(CREDENTIALS)('the credential %j', (credential) => {
  const r = new Redactor().add(credential);
  it.each(FORMS)('%s: masked, no 8 characters of the form left', (_name, encode) => {
    const form = encode(credential);
    const out = r.text(`before ${form} after`);
    expect(out).toContain(REDACTED);
    // What is left of the form at its edges is a few characters that straddle its neighbours (base64).
    for (let i = 0; i + 8 <= form.length; i++) expect(out).not.toContain(form.slice(i, i + 8));
  });
});

describe('registration never fails', () => {
  it('a credential holding a lone surrogate is registered (encodeURIComponent would throw on it) and masked as sent', () => {
    const r = new Redactor().add('key-\ud800-value');
    expect(r.text('a key-\ud800-value b')).toBe(`a ${REDACTED} b`);
  });
});

describe('the Basic pair', () => {
  it('base64 of user:password, as the header carries it: masked; the user name alone is shown', () => {
    const r = new Redactor().addUrl('https://operator:c0rrect-horse@node.example/rpc');
    const pair = Buffer.from('operator:c0rrect-horse').toString('base64');
    expect(r.text(`Authorization: Basic ${pair}; user operator`)).toBe(`Authorization: Basic ${REDACTED}; user operator`);
  });
});

describe('what is no URL carries no credential', () => {
  it("--openapi 'C:\\specs\\api.json' is shown as given in a message, never masked", () => {
    const lines: string[] = [];
    const gate = Egress.forRun(['--openapi', 'C:\\specs\\api.json', '--rpc-url', 'https://node.example/v2/q7Xw2kLm9PzR4tYb'], {});
    gate.stream({ isTTY: false, write: (t) => lines.push(t) > 0 }, 'stderr').write('no readable file C:\\specs\\api.json (key q7Xw2kLm9PzR4tYb)\n');
    expect(lines.join('')).toBe(`no readable file C:\\specs\\api.json (key ${REDACTED})\n`);
  });
});

describe('literal search, bounded', () => {
  it('a credential of 64 KiB and every form of it: masked wherever it stands in a long text (16 MiB: npm run bench)', () => {
    const big = randomBytes(48 * 1024).toString('base64url');
    const r = new Redactor().addCredential(`Bearer ${big}`);
    const text = `a ${big} b ${Buffer.from(`x${big}`).toString('base64')} c ${encodeURIComponent(big).slice(0, 1000)}… ${'y'.repeat(1 << 20)}`;
    const out = r.text(text);
    expect(out.startsWith(`a ${REDACTED} b `)).toBe(true);
    const b64 = Buffer.from(`x${big}`).toString('base64');
    for (const piece of [big.slice(0, 16), big.slice(30_000, 30_016), big.slice(800, 816), b64.slice(40_000, 40_016)]) expect(out.includes(piece)).toBe(false);
  });

  it('a target repeating the start of a periodic credential it holds: the whole text withheld, not a quadratic search', () => {
    const r = new Redactor().add('ab'.repeat(32 * 1024));
    expect(r.mask(`${'ab'.repeat(32 * 1024 - 1)}x`.repeat(200))).toEqual({ text: REDACTED, clean: false });
  });

  it('no file of the gate builds a regular expression from a credential or decodes what a target says', () => {
    for (const file of [
      'src/harness/redact.ts',
      'src/harness/secret-forms.ts',
      'src/harness/secret-search.ts',
      'src/harness/mask-result.ts',
      'src/cli/egress.ts',
    ]) {
      // The one decoding is of the user's own Basic header, once, as it is registered: never of a target's text.
      const source = readFileSync(path.join(__dirname, '../..', file), 'utf8').replace("Buffer.from(basic[1], 'base64')", '');
      expect([file, /new RegExp\(/.test(source)]).toEqual([file, false]);
      expect([file, /decodeHTML|atob\(|Buffer\.from\([^)]*, '(base64|hex)'\)/.test(source)]).toEqual([file, false]);
    }
  });
});
