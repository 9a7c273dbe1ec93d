/**
 * Encodings the egress gate claims to see through, each applied to the three credentials a
 * provider URL and header carry (the bearer token, a path key, a query key): the word holding the
 * encoded secret is masked whole, and nothing a reader could decode from the masked text still
 * holds one.
 */
import { encodeHTML } from 'entities';
import { Egress } from '../../src/cli/egress';
import { htmlDecode, jsonUnescape } from '../../src/harness/secret-match';
import { Redactor, REDACTED } from '../../src/harness/redact';
import { maskOutside } from '../../src/harness/mask-result';

const BEARER = 'sk_live_T0ken/Q7xW2kLm$9PzR';
const PATH_KEY = 'q7Xw2kLm9PzR4tYb';
const QUERY_KEY = 'QKEY987654321zz';

function redactor(): Redactor {
  return new Redactor().addTarget({
    urlVar: 'RPC_URL',
    url: `https://node.example/v2/${PATH_KEY}?apikey=${QUERY_KEY}`,
    headerVar: 'RPC_HEADER',
    headers: { Authorization: `Bearer ${BEARER}` },
  });
}

const code = (c: string) => c.codePointAt(0)!;
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Every character as a named HTML5 reference where the table has one (`&UnderBar;`, `&dollar;`, `&sol;`), else a zero-padded decimal one. */
const NAMED: Record<string, string> = { _: '&UnderBar;', $: '&dollar;', '/': '&sol;', '.': '&period;' };
const htmlNamed = (s: string) => [...s].map((c) => NAMED[c] ?? `&#${String(code(c)).padStart(10, '0')};`).join('');
/** PHP's json_encode: `/` as `\/`; a hostile encoder may \u-escape the rest too. */
const phpJson = (s: string) => JSON.stringify({ echo: [...s].map((c) => (c === '/' ? '\\/' : `\\u${code(c).toString(16).padStart(4, '0')}`)).join('') });

const FORMS: Array<[string, (s: string) => string]> = [
  ['HTML5 named references (&UnderBar;, &dollar;, &sol;) with zero-padded numeric ones', htmlNamed],
  ['zero-padded decimal references (&#0000000115;)', (s) => [...s].map((c) => `&#${String(code(c)).padStart(10, '0')};`).join('')],
  ['zero-padded hexadecimal references (&#x0000073;)', (s) => [...s].map((c) => `&#x${code(c).toString(16).padStart(7, '0')};`).join('')],
  ['\\u{73} escapes', (s) => [...s].map((c) => `\\u{${code(c).toString(16)}}`).join('')],
  ['\\u{000073} escapes (zero-padded)', (s) => [...s].map((c) => `\\u{${code(c).toString(16).padStart(6, '0')}}`).join('')],
  ['base64 of PHP-escaped JSON', (s) => b64(phpJson(s))],
  ['base64 of %XX', (s) => b64([...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''))],
  ['base64 of base64', (s) => b64(b64(s))],
  ['base64url of base64', (s) => Buffer.from(b64(s)).toString('base64url')],
  ['%XX of base64 of base64', (s) => encodeURIComponent(b64(b64(s)))],
  ['base64 of base64 of base64', (s) => b64(b64(b64(s)))],
  ['base64url of base64 of base64', (s) => Buffer.from(b64(b64(s))).toString('base64url')],
  ['C-style octal escapes, three digits (\\163\\153…)', (s) => [...Buffer.from(s)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')],
  ['C-style octal escapes, fewest digits (\\163\\63…)', (s) => [...Buffer.from(s)].map((b) => `\\${b.toString(8)}`).join('')],
];

describe('the gate sees through every encoding it claims', () => {
  describe.each([
    ['the bearer token', BEARER],
    ['the path key', PATH_KEY],
    ['the query key', QUERY_KEY],
  ])('%s', (_, secret) => {
    it.each(FORMS)('%s: the word holding it is masked whole, and nothing decodable from the result holds it', (_name, encode) => {
      const r = redactor();
      const form = encode(secret);
      expect(form).not.toContain(secret); // the form really hides it from a literal search
      const out = r.text(`before ${form} after`);
      expect(out).toBe(`before ${REDACTED} after`);
      expect(r.leaks(out)).toBe(false);
    });

    it.each(FORMS)('%s: a console line carrying it through the gate holds no secret', (_name, encode) => {
      const written: string[] = [];
      const gate = new Egress(redactor());
      gate.stream({ isTTY: false, write: (t) => (written.push(t), true) }, 'stdout').write(`answer: ${encode(secret)}\n`);
      expect(written.join('')).toBe(`answer: ${REDACTED}\n`);
    });
  });
});

describe('a secret echoed with whitespace inserted', () => {
  /** A --secret of nine characters, and the three credentials of the provider URL and header. */
  const SECRET = 's3cr3tKEY';
  const gate = () => redactor().add(SECRET);
  const everyChar = (s: string, gap: string) => [...s].join(gap);

  describe.each([
    ['a --secret', SECRET],
    ['the bearer token', BEARER],
    ['the path key', PATH_KEY],
    ['the query key', QUERY_KEY],
  ])('%s', (_, secret) => {
    const half = Math.floor(secret.length / 2);
    it.each([
      ['split by a newline', `${secret.slice(0, half)}\n${secret.slice(half)}`],
      ['split by CRLF', `${secret.slice(0, half)}\r\n${secret.slice(half)}`],
      ['split by a space', `${secret.slice(0, half)} ${secret.slice(half)}`],
      ['split by a tab', `${secret.slice(0, half)}\t${secret.slice(half)}`],
      ['split twice, by a space and a newline', `${secret.slice(0, 3)} ${secret.slice(3, half)}\n${secret.slice(half)}`],
      ['a space between every character', everyChar(secret, ' ')],
      ['a newline between every character', everyChar(secret, '\n')],
      ['spaces and tabs between every character', everyChar(secret, ' \t ')],
      ['upper-cased, a space between every character', everyChar(secret.toUpperCase(), ' ')],
    ])('%s: the whole span, whitespace included, is masked', (_name, form) => {
      const r = gate();
      const out = r.text(`before ${form} after`);
      expect(out).toBe(`before ${REDACTED} after`);
      expect(r.leaks(out)).toBe(false);
    });
  });

  it('split by an escaped newline inside a JSON text (a report quoting the answer): masked, and the gate writes the rest', () => {
    const written: string[] = [];
    const gate = new Egress(redactor().add(SECRET));
    const line = JSON.stringify({ echo: `s3cr3t\nKEY`, spaced: everyChar(SECRET, '\n') });
    gate.stream({ isTTY: false, write: (t) => (written.push(t), true) }, 'stdout').write(`${line}\n`);
    expect(written.join('')).toBe(`{"echo":"${REDACTED}","spaced":"${REDACTED}"}\n`);
    expect(gate.refused).toEqual([]);
  });

  it('base64 of the secret split by a newline is masked whole', () => {
    expect(gate().text(`before ${b64('s3cr3t\nKEY')} after`)).toBe(`before ${REDACTED} after`);
  });

  it('ordinary text that merely shares a start with a secret, or holds its letters apart, is left as it is', () => {
    const r = gate();
    for (const text of ['the s3cr3t is out', 's3cr3t KE', 's3cr3t, KEY', 's3cr3t is not KEY', 's 3 c r 3 t K E', 'KEY s3cr3t']) expect(r.text(text)).toBe(text);
  });

  it('a secret shorter than 8 characters is masked as written, as before, not across whitespace (ordinary words meet across a space)', () => {
    const r = new Redactor().add('into1x');
    expect(r.text('go into1x now')).toBe(`go ${REDACTED} now`);
    expect(r.text('go in to1x now')).toBe('go in to1x now');
  });

  it('only strings from outside are masked: a result whose reason and answer hold the split secret keeps its own fields', () => {
    const r = gate();
    const result = {
      id: 'rpc.eth_getCode.pending',
      status: 'failed',
      reason: 'answered s3cr3t\nKEY',
      actual: { echo: 's 3 c r 3 t K E Y' },
    } as unknown as Parameters<typeof maskOutside>[0];
    expect(maskOutside(result, r)).toEqual({ id: 'rpc.eth_getCode.pending', status: 'failed', reason: `answered ${REDACTED}`, actual: { echo: REDACTED } });
  });
});

describe('decoders', () => {
  it('C-style octal escapes: one to three digits, as C, PHP and JavaScript read them (\\8 and \\9 are no octal)', () => {
    expect(jsonUnescape('\\163\\63\\143\\0162\\8\\9\\101')).toBe('s3c\u000e289A');
  });

  it('HTML: the whole HTML5 table, numeric references of any zero padding, and the legacy forms without ";"', () => {
    expect(htmlDecode('&UnderBar;&dollar;&lowbar;&sol;&NewLine;&Tab;&amp;&lt&#0000000115;&#x000000073;&#115')).toBe('_$_/\n\t&<sss');
    // Every name the table has for these characters, decoded as browsers do: each round-trips through
    // encodeHTML (C1 controls left out: a browser reads &#x80; as the Windows-1252 character, €).
    const codes = [...Array.from({ length: 0x5f }, (_, i) => i + 0x20), ...Array.from({ length: 0x2000 }, (_, i) => i + 0xa0)];
    const all = String.fromCharCode(...codes);
    const lookalikesAsAscii = all.replace(/[\u2010-\u2015]/g, '-').replace(/\u00a0/g, ' ');
    expect(htmlDecode(encodeHTML(all))).toBe(lookalikesAsAscii);
  });

  it('HTML: a typographic hyphen, dash or minus reads as "-", a no-break space as a space (a key shown with them is the key)', () => {
    expect(htmlDecode('a&hyphen;b&dash;c&ndash;d&mdash;e&minus;f&nbsp;g&#x2011;h')).toBe('a-b-c-d-e-f g-h');
    const r = new Redactor().addHeaders({ 'X-Api-Key': 'AKx9-77-ZZqq-pp11-wv' });
    expect(r.text('key AKx9&hyphen;77&dash;ZZqq&ndash;pp11&minus;wv end')).toBe(`key ${REDACTED} end`);
  });

  it('JSON/JavaScript escapes: \\uXXXX, \\u{X…} with any zero padding, \\xXX, \\/', () => {
    expect(jsonUnescape('\\u{73}\\u{00006b}\\u005f\\x6c\\/\\u{1F600}')).toBe('sk_l/\u{1F600}');
    // Beyond U+10FFFF is no character: left as written.
    expect(jsonUnescape('\\u{110000}')).toBe('\\u{110000}');
  });
});
