// A failure's expected and actual, as a result keeps them: typed values, or a capped, masked preview.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { errorDetail } from '../../src/harness/result';
import { CheckFailure } from '../../src/harness/verdict';
import { Redactor } from '../../src/harness/redact';
import { observationText, observed, PREVIEW_CHARS, type Observation } from '../../src/harness/observation';

const failure = (expected: unknown, actual: unknown, redactor = new Redactor()) => errorDetail(new CheckFailure('mismatch', { expected, actual }), redactor);

const schema = JSON.parse(readFileSync(path.join(__dirname, '../../schemas/results.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
ajv.addSchema(schema);
const validObservation = ajv.compile({ $ref: `${schema.$id}#/$defs/observation` });

describe('typed observations in failures', () => {
  it.each<[string, unknown, Observation]>([
    ['a hex quantity', '0x1a', { kind: 'hex', value: '0x1a' }],
    ['an integer', 42, { kind: 'integer', value: '42' }],
    ['a bigint', 2n ** 70n, { kind: 'integer', value: (2n ** 70n).toString() }],
    ['an HTTP status in words', 'HTTP 503', { kind: 'http-status', value: 503 }],
    ['a media type', 'application/json; charset=utf-8', { kind: 'media-type', value: 'application/json; charset=utf-8' }],
    ['a JSON pointer a check typed', observed.pointer('/tokens/0/isin'), { kind: 'json-pointer', value: '/tokens/0/isin' }],
    ['a status a check typed', observed.httpStatus(429), { kind: 'http-status', value: 429 }],
    ['words', 'a JSON-RPC response object', { kind: 'text', preview: 'a JSON-RPC response object', bytes: 26 }],
    ['a value', { code: -32000 }, { kind: 'text', preview: '{"code":-32000}', bytes: 15 }],
    // JSON.parse reads 1e400 as Infinity, which JSON would write as null: the number is shown as read.
    ['a number beyond a double', JSON.parse('1e400'), { kind: 'text', preview: 'Infinity', bytes: 8 }],
    ['a negative number beyond a double', JSON.parse('-1e400'), { kind: 'text', preview: '-Infinity', bytes: 9 }],
  ])('%s is kept typed', (_what, value, kept) => {
    const d = failure(value, value);
    expect(d.expected).toEqual(kept);
    expect(d.actual).toEqual(kept);
    expect(validObservation(d.actual)).toBe(true);
  });

  it('a long answer is a preview of at most PREVIEW_CHARS characters with its whole size', () => {
    const code = `0x${'ab'.repeat(20_000)}`;
    const { actual } = failure(undefined, code);
    expect(actual).toMatchObject({ kind: 'text', bytes: code.length });
    expect((actual as { preview: string }).preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    expect(validObservation(actual)).toBe(true);
    expect(observationText(actual)).toMatch(/… \(40002 bytes\)$/);
  });

  it('a large value is a preview of its JSON, never kept whole', () => {
    const list = { tokens: Array.from({ length: 50_000 }, (_, i) => ({ symbol: `T${i}` })) };
    const { actual } = failure(undefined, list);
    expect(actual?.kind).toBe('text');
    expect(JSON.stringify(actual).length).toBeLessThan(PREVIEW_CHARS + 120);
    expect((actual as { bytes: number }).bytes).toBeGreaterThan(100_000);
  });

  it('a credential in an observation is masked, and a masked value is no typed quantity', () => {
    const secret = '0xdeadbeefcafe';
    const redactor = new Redactor().add(secret);
    const d = failure(secret, { auth: `Bearer ${secret}` }, redactor);
    expect(JSON.stringify(d)).not.toContain('deadbeefcafe');
    expect(d.expected?.kind).toBe('text');
  });

  it("a target's answer shaped like an observation is text, capped like any answer", () => {
    const forged = { kind: 'hex', value: `0x${'f'.repeat(10_000)}` };
    const { actual } = failure(undefined, forged);
    expect(actual?.kind).toBe('text');
    expect((actual as { preview: string }).preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
  });

  it('no expected or actual stays absent', () => {
    const d = failure(undefined, undefined);
    expect(d).not.toHaveProperty('expected.kind');
    expect(d.expected).toBeUndefined();
  });
});
