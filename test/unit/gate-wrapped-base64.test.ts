/**
 * Base64 as encoders write it, wrapped in lines (`base64` and MIME at 76 columns, PEM at 64, a
 * JSON string quoting it with `\n`): `base64 -d` reads across the line breaks, so a secret whose
 * encoding straddles one is still given away. The gate read each line as a run of its own.
 */
import { Redactor } from '../../src/harness/redact';

const PATH_KEY = 'q7Xw2kLm9PzR4tYb';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const redactor = () => new Redactor().add(PATH_KEY);
/** `text` wrapped every `width` characters with `eol`. */
const wrap = (text: string, width: number, eol: string) => text.match(new RegExp(`.{1,${width}}`, 'g'))!.join(eol);

describe('base64 wrapped in lines is read across its line breaks', () => {
  it.each([
    ['split by a line break', (k: string) => `${k.slice(0, 10)}\n${k.slice(10)}`],
    ['split by CRLF', (k: string) => `${k.slice(0, 10)}\r\n${k.slice(10)}`],
    ['quoted in JSON with \\n', (k: string) => JSON.stringify({ blob: `${k.slice(0, 10)}\n${k.slice(10)}` })],
  ])('the key base64-encoded, %s: nothing decodable from the masked text holds it', (_name, form) => {
    const r = redactor();
    const text = `before ${form(b64(PATH_KEY))} after`;
    const out = r.text(text);
    expect(out).not.toBe(text);
    expect(r.leaks(out)).toBe(false);
  });

  it.each([
    ['MIME (76 columns, CRLF)', 76, '\r\n'],
    ['PEM (64 columns)', 64, '\n'],
    ['fold -w 50', 50, '\n'],
  ])('a long blob holding the key, wrapped as %s: masked', (_name, width, eol) => {
    const r = redactor();
    for (let pad = 0; pad < 3; pad++) {
      const blob = wrap(b64(`${'x'.repeat(40 + pad)}${PATH_KEY}${'y'.repeat(60)}`), width, eol);
      const out = r.text(blob);
      expect(out).not.toBe(blob);
      expect(r.leaks(out)).toBe(false);
    }
  });

  it('base64 of base64, wrapped: masked', () => {
    const r = redactor();
    const blob = wrap(b64(b64(`${'x'.repeat(50)}${PATH_KEY}`)), 76, '\n');
    expect(r.text(blob)).not.toBe(blob);
  });

  it('prose in lines is left as it is', () => {
    const r = redactor();
    const prose = 'the records\nlisted here\nare tokenized\nstocks of 2024';
    expect(r.text(prose)).toBe(prose);
  });
});

describe('base64 or hex written in groups is read with the groups joined', () => {
  const hex = (s: string) => Buffer.from(s).toString('hex');
  it.each([
    [
      'base64 in groups of 4, spaces',
      () =>
        b64(PATH_KEY)
          .match(/.{1,4}/g)!
          .join(' '),
    ],
    [
      'base64 in groups of 8, tabs',
      () =>
        b64(`xy${PATH_KEY}`)
          .match(/.{1,8}/g)!
          .join('\t'),
    ],
    ['hex bytes, spaces (a hex dump)', () => hex(PATH_KEY).match(/.{2}/g)!.join(' ')],
    [
      'hex in groups of 4, quoted in JSON',
      () =>
        JSON.stringify({
          dump: hex(`z${PATH_KEY}`)
            .match(/.{1,4}/g)!
            .join(' '),
        }),
    ],
  ])('the key as %s: nothing decodable from the masked text holds it', (_name, form) => {
    const r = redactor();
    const text = `before ${form()} after`;
    const out = r.text(text);
    expect(out).not.toBe(text);
    expect(r.leaks(out)).toBe(false);
  });

  it('prose, numbers and a hex dump of other bytes are left as they are', () => {
    const r = redactor();
    const prose = 'the records listed here are tokenized stocks of 2024; 71 37 58 77 00 ff 10 20 a0 b1';
    expect(r.text(prose)).toBe(prose);
  });
});
