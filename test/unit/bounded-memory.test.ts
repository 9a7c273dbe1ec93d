/**
 * What keeps a run over answers near the 16 MiB cap in bounded memory (the figures are
 * measured by `npm run bench -- bounded`, never here): a body is held once while it is read, the
 * run's heap is collected after every few MiB of answers, a parsed answer does not keep its whole
 * text, and values are quoted and kept from their heads without writing their whole JSON.
 */
import { AnswerBudget, BodyBytes, COLLECT_EVERY_BYTES } from '../../src/harness/body';
import { fullCollection } from '../../src/harness/collect';
import { CUT_MARK, jsonBytes, jsonHead, jsonSafe, keptText, show, TEXT_KEPT_CHARS } from '../../src/harness/json';
import { Redactor } from '../../src/harness/redact';
import { keptValue, VALUE_CAP_BYTES } from '../../src/harness/result';
import { validate } from '../../src/harness/schemas';
import { recordedBody } from '../../src/harness/transcript';

/** Values JSON.stringify treats in every way it can: escapes, surrogates, left-out members, bigints, nesting. */
const VALUES: unknown[] = [
  { a: 1, b: [1, 2, { c: 'x\u2028y"\\\n\u0001', d: undefined, e: () => 1 }], f: 10n, g: null, h: NaN, 2: 'two', 1: 'one' },
  [undefined, () => 1, Symbol('s'), 1n, -0, 'é😀\ud800', [], {}, [[]], { x: {} }],
  'plain',
  12.5,
  true,
  null,
  JSON.parse('{"__proto__":{"x":1},"y":[1,{"z":"w"}]}'),
];

/** An array that throws when read past `readable` elements: what a bounded writer never reaches. */
function trapped(length: number, readable: number, element: unknown): unknown[] {
  const target = Array.from({ length }, () => element);
  return new Proxy(target, {
    get(t, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) >= readable) throw new Error(`element ${key} was read`);
      return Reflect.get(t, key, receiver) as unknown;
    },
  });
}

/** The longest text JSON.stringify returns while `f` runs. */
function longestStringify(f: () => void): number {
  const original = JSON.stringify.bind(JSON);
  let longest = 0;
  const spy = jest.spyOn(JSON, 'stringify').mockImplementation(((...args: Parameters<typeof JSON.stringify>) => {
    const out = original(...args);
    if (typeof out === 'string') longest = Math.max(longest, out.length);
    return out;
  }) as typeof JSON.stringify);
  try {
    f();
  } finally {
    spy.mockRestore();
  }
  return longest;
}

describe('JSON written from the head of a value', () => {
  it('is the head of what JSON.stringify writes of jsonSafe(v), at every length', () => {
    for (const v of VALUES) {
      const whole = JSON.stringify(jsonSafe(v));
      for (let chars = 0; chars <= whole.length + 2; chars++) expect(jsonHead(v, chars)).toBe(whole.slice(0, chars + 1));
    }
  });

  it('stops where the head ends: the rest of a huge list is never read', () => {
    const list = trapped(1_000_000, 100, { name: 'x'.repeat(50) });
    expect(() => JSON.stringify(list)).toThrow('was read');
    expect(jsonHead(list, 200)).toHaveLength(201);
    const quoted = show(list);
    expect(quoted.endsWith(CUT_MARK)).toBe(true);
    expect(quoted).toBe(`${JSON.stringify(Array.from({ length: 4 }, () => ({ name: 'x'.repeat(50) }))).slice(0, 200)}${CUT_MARK}`);
  });

  it('counts the bytes of the whole JSON, strings mapped, without writing it', () => {
    const upper = (s: string) => `${s.toUpperCase()}é`;
    const replacer = (_k: string, x: unknown) => (typeof x === 'string' ? upper(x) : typeof x === 'bigint' ? x.toString() : x);
    const big = { tokens: Array.from({ length: 2000 }, (_, i) => ({ a: `x"\\\n\u0001${i}`, b: [1, null, undefined, 2n, '😀\ud800'], c: undefined })) };
    for (const v of [...VALUES.filter((x) => typeof x === 'object' && x !== null), big, 'a'.repeat(50_000)]) {
      expect(jsonBytes(v, upper)).toBe(Buffer.byteLength(JSON.stringify(v, replacer)));
      expect(jsonHead(v, 30_000, upper)).toBe(JSON.stringify(v, replacer).slice(0, 30_001));
    }
  });
});

describe('a huge value quoted or kept', () => {
  const secret = 's3cr3t-key-value';
  const list = { tokens: Array.from({ length: 60_000 }, (_, i) => ({ i, name: `Token ${i}`, note: i === 0 ? secret : 'n' })) };

  it('a result keeps what it kept before, and no JSON text of the whole value is written', () => {
    const redactor = new Redactor().add(secret);
    const before = recordedBody(
      JSON.stringify(list, (_k, x: unknown) => (typeof x === 'string' ? redactor.text(x) : x)),
      redactor,
      VALUE_CAP_BYTES,
    ).body;
    let kept: unknown;
    expect(longestStringify(() => (kept = keptValue(list, redactor)))).toBeLessThan(64 * 1024);
    expect(kept).toBe(before);
    expect(kept).not.toContain(secret);
  });

  it('a schema error quotes the head of a 16 MiB string, not its whole JSON', () => {
    const name = 'a'.repeat(16 * 1024 * 1024);
    let errors: string[] = [];
    expect(longestStringify(() => (errors = validate('hexQuantity', name).errors))).toBeLessThan(1024);
    expect(errors.join('\n')).toContain(`"${'a'.repeat(70)}`);
  });
});

describe('an answer parsed as JSON', () => {
  it('keeps the head of its text alone once long, cut and marked, sharing nothing with the whole', () => {
    const text = JSON.stringify({ tokens: Array.from({ length: 10_000 }, (_, i) => ({ i })) });
    const kept = keptText(text, { json: JSON.parse(text) });
    expect(text.length).toBeGreaterThan(TEXT_KEPT_CHARS);
    expect(kept).toBe(`${text.slice(0, TEXT_KEPT_CHARS)}${CUT_MARK}`);
  });

  it('keeps its whole text when it is short, or not JSON (a check quotes what came instead)', () => {
    const page = `<html>${'x'.repeat(TEXT_KEPT_CHARS * 2)}</html>`;
    expect(keptText(page, { json: undefined })).toBe(page);
    expect(keptText('{"a":1}', { json: { a: 1 } })).toBe('{"a":1}');
  });
});

describe('an answer body read', () => {
  const bytes = Buffer.from('{"tokens":[{"a":1},{"b":2}]}');
  const chunks = [bytes.subarray(0, 5), bytes.subarray(5, 17), bytes.subarray(17)];

  it('with a declared length: every chunk copied into one buffer as it comes, never held apart', () => {
    const body = new BodyBytes(bytes.length, 1024);
    for (const c of chunks) {
      body.add(c);
      expect(body.inChunks).toBe(false);
    }
    expect(body.take().equals(bytes)).toBe(true);
  });

  it('longer than declared (a decompressed body), or with no length: joined once from its chunks', () => {
    for (const declared of [4, undefined]) {
      const body = new BodyBytes(declared, 1024);
      for (const c of chunks) body.add(c);
      expect(body.inChunks).toBe(true);
      expect(body.take().equals(bytes)).toBe(true);
    }
    expect(new BodyBytes(0, 1024).take()).toHaveLength(0);
  });
});

describe("the run's answer budget", () => {
  it('has the heap collected after every COLLECT_EVERY_BYTES of answers, not before', () => {
    let collections = 0;
    const budget = new AnswerBudget(1024 * 1024 * 1024, () => collections++);
    const chunk = 64 * 1024;
    for (let read = 0; read + chunk <= COLLECT_EVERY_BYTES; read += chunk) budget.charge(chunk);
    expect(collections).toBe(1);
    for (let read = 0; read < 3 * COLLECT_EVERY_BYTES - chunk; read += chunk) budget.charge(chunk);
    expect(collections).toBe(3);
  });

  it('can have the whole heap collected in a process started without --expose-gc', () => {
    const gc = fullCollection();
    expect(typeof gc).toBe('function');
    expect(() => gc!()).not.toThrow();
    // The flag is cleared again: a context made later gets no `gc` it did not ask for.
    expect(require('node:vm').runInNewContext('typeof gc')).toBe('undefined');
  });
});
