/**
 * Any answer is measured before it is parsed: what is past the suite's bounds is refused as a
 * limit of its own (JsonTooDeep, JsonTooLarge), a list's records past the bound are read as an
 * even sample whose true length and indices are kept, and a list's schema problems are kept up
 * to a bound with the rest counted.
 */
import { evenSample, JSON_LIMITS, JsonBeyondLimits, JsonTooDeep, JsonTooLarge, listSample, parseJson, scanJson } from '../../src/harness/json';
import { recordedBody } from '../../src/harness/transcript';
import { keptValue, VALUE_CAP_BYTES } from '../../src/harness/result';
import { listWithDefaults, listLength, recordLabel } from '../../src/harness/records';
import { Redactor } from '../../src/harness/redact';
import { SCHEMA_ERRORS_KEPT, validate } from '../../src/harness/schemas';

const small = { ...JSON_LIMITS, elements: 10, members: 10, stringChars: 20, records: 5 };

describe('scanJson', () => {
  it('measures nesting, the largest array and object, the longest string and the list without parsing', () => {
    const text = JSON.stringify({ a: [1, 2, 3], s: 'x,]"}\\', tokens: [{}, { k: [[]] }, 3, 'a'], b: { c: 1, d: 2 } });
    expect(scanJson(text)).toEqual({
      depth: 5,
      elements: 3,
      members: 4,
      stringChars: 8,
      tokens: { start: text.indexOf('[{}'), end: text.indexOf(',"b"'), count: 4 },
    });
    expect(scanJson('[]')).toMatchObject({ depth: 1, elements: 0 });
    expect(scanJson('{"x":{"tokens":[1,2]}}').tokens).toBeUndefined();
  });
});

describe('parseJson within bounds', () => {
  it('reads what fits as JSON.parse does, and says what is not JSON', () => {
    expect(parseJson('{"a":[1,{"b":"c"}],"tokens":[1]}', { limits: small })).toEqual({ json: { a: [1, { b: 'c' }], tokens: [1] } });
    expect(parseJson('<html>', { limits: small }).jsonError).toBeDefined();
    expect(parseJson('42').json).toBe(42);
  });

  it('refuses an array, object or string past its bound as a limit, naming its size', () => {
    expect(() => parseJson(JSON.stringify(Array(11).fill(0)), { limits: small })).toThrow(/an array of 11 elements \(this suite reads at most 10\)/);
    expect(() => parseJson(JSON.stringify(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i]))), { limits: small })).toThrow(JsonTooLarge);
    expect(() => parseJson(JSON.stringify({ s: 'a'.repeat(21) }), { limits: small })).toThrow(/a string of 21 characters/);
    expect(() => parseJson('['.repeat(JSON_LIMITS.depth + 1) + ']'.repeat(JSON_LIMITS.depth + 1))).toThrow(JsonTooDeep);
    expect(new JsonTooLarge('x')).toBeInstanceOf(JsonBeyondLimits);
    // A list's records are refused too unless they may be sampled.
    expect(() => parseJson(JSON.stringify({ tokens: Array(11).fill({}) }), { limits: small })).toThrow(JsonTooLarge);
  });
});

describe("a list's records past the bound", () => {
  const tokens = Array.from({ length: 23 }, (_, i) => ({ i, s: 'x,]"}{[' }));
  const text = JSON.stringify({ before: 1, tokens, after: [1, 2] });

  it('are read as an even sample, first and last included, with the true count', () => {
    const { json } = parseJson(text, { sampleRecords: true, limits: small }) as { json: { before: number; tokens: Array<{ i: number }>; after: number[] } };
    expect(json.before).toBe(1);
    expect(json.after).toEqual([1, 2]);
    expect(json.tokens.map((t) => t.i)).toEqual([0, 6, 11, 17, 22]);
    expect(listSample(json.tokens)).toEqual({ length: 23, indices: [0, 6, 11, 17, 22] });
    expect(listLength(json.tokens)).toBe(23);
    expect(recordLabel(json.tokens[2], 2, json.tokens)).toBe('tokens[11]');
    // Copies made record for record stand for the same sample.
    expect(listSample((listWithDefaults(json) as { tokens: unknown[] }).tokens)).toEqual({ length: 23, indices: [0, 6, 11, 17, 22] });
  });

  it('are all checked for syntax, sampled or not', () => {
    expect(parseJson(text.replace('{"i":9,', '{"i":9,,'), { sampleRecords: true, limits: small }).jsonError).toBeDefined();
  });

  it('5.5 million empty records are read as a sample of the bound, the count kept', () => {
    const { json } = parseJson(`{"tokens":[${'{},'.repeat(5_499_999)}{}]}`, { sampleRecords: true }) as { json: { tokens: unknown[] } };
    expect(json.tokens).toHaveLength(JSON_LIMITS.records);
    expect(listSample(json.tokens)?.length).toBe(5_500_000);
    expect(listSample(json.tokens)?.indices.at(-1)).toBe(5_499_999);
  });

  it('evenSample spreads its picks over the whole length', () => {
    expect(evenSample(3, 5)).toEqual([0, 1, 2]);
    expect(evenSample(101, 3)).toEqual([0, 50, 100]);
  });
});

describe("a list's schema problems", () => {
  it('are kept up to a bound per record and per list, the rest counted, named by their place in the list served', () => {
    const verdict = validate('list', { tokens: Array.from({ length: 500 }, () => ({})) });
    expect(verdict.valid).toBe(false);
    expect(verdict.errors.length).toBeLessThanOrEqual(SCHEMA_ERRORS_KEPT.perList);
    expect(verdict.errors.filter((e) => e.startsWith('/tokens/0 ')).length).toBeLessThanOrEqual(SCHEMA_ERRORS_KEPT.perRecord);
    // Each empty record misses all 11 fields: 500 × 11 problems in all.
    expect(verdict.errors.length + (verdict.omitted ?? 0)).toBe(500 * 11);
    const sampled = parseJson(JSON.stringify({ tokens: Array.from({ length: 23 }, (_, i) => (i === 22 ? { bad: true } : {})) }), {
      sampleRecords: true,
      limits: small,
    }).json;
    expect(validate('list', sampled).errors.some((e) => e.startsWith('/tokens/22 '))).toBe(true);
  });
});

describe('a long body in the transcript', () => {
  it('is redacted in its head before the cut, and states its whole size', () => {
    const redactor = new Redactor().add('s3cr3t-key-value');
    const body = `{"k":"s3cr3t-key-value",${'"x":1,'.repeat(1_000_000)}"z":0}`;
    const kept = recordedBody(body, redactor);
    expect(kept.truncated).toBe(true);
    expect(kept.body).not.toContain('s3cr3t-key-value');
    expect(kept.body).toContain(`${Buffer.byteLength(body).toLocaleString('en-US')} bytes in all`);
    expect(kept.body.length).toBeLessThan(9 * 1024);
  });
});

describe('a huge value a result keeps', () => {
  const secret = 's3cr3t-key-value';
  // Every text the redactor is asked to read: a huge value must not be copied whole to be redacted.
  const watched = () => {
    const redactor = new Redactor().add(secret);
    let longest = 0;
    const text = redactor.text.bind(redactor);
    jest.spyOn(redactor, 'text').mockImplementation((s: string) => ((longest = Math.max(longest, s.length)), text(s)));
    return { redactor, longest: () => longest, value: jest.spyOn(redactor, 'value') };
  };

  it('a 16 MiB string: only its head is redacted, then cut, with its whole size stated', () => {
    const w = watched();
    const s = `${secret} ${'a'.repeat(16 * 1024 * 1024)}`;
    const kept = keptValue(s, w.redactor) as string;
    expect(kept).not.toContain(secret);
    expect(kept).toContain(`${Buffer.byteLength(s).toLocaleString('en-US')} bytes in all`);
    expect(Buffer.byteLength(kept)).toBeLessThan(VALUE_CAP_BYTES + 100);
    expect(w.longest()).toBeLessThan(1024 * 1024);
  });

  it('a value of hundreds of thousands of members: not copied to be redacted; secrets in values and names still masked', () => {
    const w = watched();
    const big = { [secret]: secret, records: Array.from({ length: 100_000 }, (_, i) => ({ i, name: `n${i}` })) };
    const kept = keptValue(big, w.redactor) as string;
    expect(typeof kept).toBe('string');
    expect(kept).not.toContain(secret);
    expect(kept).toMatch(/bytes in all\]$/);
    expect(w.value).not.toHaveBeenCalled();
    expect(w.longest()).toBeLessThan(1024 * 1024);
  });

  it('a small value is kept as before: redacted whole, names included', () => {
    const w = watched();
    expect(keptValue({ [secret]: [secret, 1n] }, w.redactor)).toEqual({ '***': ['***', '1'] });
  });
});
