import { isRecord, jsonHead, MAX_JSON_DEPTH } from './json-head';
export { isRecord, jsonBytes, jsonHead, MAX_JSON_DEPTH } from './json-head';

/** What marks a text cut by this suite; the Redactor hides a secret's start left before it. */
export const CUT_MARK = '…';

/**
 * A copy of `s` that shares no memory with the text it was cut from: V8 keeps a whole parent
 * string alive for a slice of it, so one short quote could hold a 16 MiB answer in a result.
 */
export function detached(s: string): string {
  return Buffer.from(s, 'utf16le').toString('utf16le');
}

/** Characters of an answer's text kept beside the JSON parsed from it (keptText). */
export const TEXT_KEPT_CHARS = 64 * 1024;

/**
 * The text an answer keeps once parsed: when it parsed as JSON and is longer than
 * TEXT_KEPT_CHARS, its head alone (cut, so marked), sharing no memory with the whole. The checks
 * judge and quote the parsed value, and read the text only where there is none (to quote what
 * came instead) or for its first bytes (an HTML page); a check holding an answer near the 16 MiB
 * cap would otherwise hold it twice, as its text and as its value.
 */
export function keptText(text: string, parsed: { json?: unknown }): string {
  return parsed.json === undefined || text.length <= TEXT_KEPT_CHARS ? text : detached(cut(text, TEXT_KEPT_CHARS));
}

/** `s` cut to `max` characters, the cut marked (CUT_MARK), so a reader and the Redactor see it. */
export function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}${CUT_MARK}` : s;
}

/**
 * `text` cut to `maxBytes` bytes of UTF-8 with the whole size stated; redact before calling it
 * (a cut secret no longer matches its registered form).
 */
export function cutBytes(text: string, maxBytes: number): { text: string; truncated: boolean } {
  // Cheap bound first: a string of n UTF-16 units is at most 3n bytes.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return { text, truncated: false };
  // Decoding a prefix may end inside a character: its replacement mark is dropped.
  const head = Buffer.from(text.slice(0, maxBytes))
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { text: `${head}${CUT_MARK} [cut: ${bytes.toLocaleString('en-US')} bytes in all]`, truncated: true };
}

/**
 * A copy of a JSON-like value with every leaf mapped by `leaf`, built without recursion (a
 * target may nest an answer thousands of levels deep): arrays and objects deeper than `maxDepth`
 * are replaced by a note saying so.
 */
export function mapJson(v: unknown, leaf: (x: unknown) => unknown, maxDepth = MAX_JSON_DEPTH): unknown {
  const root: Record<string, unknown> = {};
  const todo: Array<[value: unknown, parent: Record<string, unknown> | unknown[], key: string | number, depth: number]> = [[v, root, 'v', 0]];
  const put = (parent: Record<string, unknown> | unknown[], key: string | number, x: unknown) => {
    // A member named "__proto__" (JSON.parse makes it an own member) stays one: assigned, it would set the prototype.
    if (key === '__proto__') Object.defineProperty(parent, key, { value: x, enumerable: true, writable: true, configurable: true });
    else (parent as Record<string | number, unknown>)[key] = x;
  };
  while (todo.length > 0) {
    const [x, parent, key, depth] = todo.pop()!;
    if (!Array.isArray(x) && !isRecord(x)) {
      put(parent, key, leaf(x));
    } else if (depth >= maxDepth) {
      put(parent, key, `[nested deeper than ${maxDepth} levels: not kept]`);
    } else {
      const out: Record<string, unknown> | unknown[] = Array.isArray(x) ? new Array<unknown>(x.length) : {};
      put(parent, key, out);
      // Members are placed first, in order, then filled: the copy keeps the original's key order.
      const entries = Array.isArray(x) ? x.map((c, i) => [i, c] as const) : Object.entries(x);
      for (const [k] of entries) put(out, k, undefined);
      for (let i = entries.length - 1; i >= 0; i--) todo.push([entries[i][1], out, entries[i][0], depth + 1]);
    }
  }
  return root.v;
}

/**
 * Results must survive JSON.stringify in every reporter: bigints (nonces, block numbers, wei)
 * become decimal strings, exact at any size and readable beside the message that quotes them.
 */
export function jsonSafe(v: unknown): unknown {
  return mapJson(v, (x) => (typeof x === 'bigint' ? x.toString() : x));
}

/** Short, stable rendering of a value for messages (cut values end with CUT_MARK). */
export function show(v: unknown, max = 200): string {
  // Written from the head of the value only (jsonHead): the cut is the same, the work bounded.
  return cut(v === undefined ? 'undefined' : typeof v === 'bigint' ? `${v}n` : jsonHead(v, max), max);
}

/**
 * What this suite reads of one answer, whatever its shape: far beyond anything the spec
 * describes, and small enough that any answer up to the 16 MiB body cap is judged in bounded
 * memory and time. An answer past them is not materialised: it is refused (JsonTooDeep,
 * JsonTooLarge: inconclusive, cause `limit`), except a list's records, which are sampled.
 */
export const JSON_LIMITS = Object.freeze({
  /** Levels of nesting (MAX_JSON_DEPTH). */
  depth: MAX_JSON_DEPTH,
  /** Elements of one array (the list's `tokens` excepted: see records). */
  elements: 100_000,
  /** Members of one object. */
  members: 100_000,
  /**
   * Characters of one string, as written in the JSON text (escapes included): as long as an
   * answer may be. A string is one value, held once, and a check must see it whole (a cut hex
   * string would be judged malformed); what is kept of it in results is cut (result.ts).
   */
  stringChars: 16 * 1024 * 1024,
  /** Records of a list (`tokens`) parsed and judged; beyond this an even sample is (listSample). */
  records: 100_000,
});

export type JsonLimits = { readonly [K in keyof typeof JSON_LIMITS]: number };

/** The measures of a JSON text taken by scanJson, in one pass and without parsing it. */
export interface JsonMeasures {
  depth: number;
  /** The most elements of any array but the root object's `tokens`. */
  elements: number;
  members: number;
  /** The longest string, in characters of the text between its quotes. */
  stringChars: number;
  /** The root object's `tokens` array, when it has one: where it lies in the text, and its length. */
  tokens?: { start: number; end: number; count: number };
}

/**
 * Measures a JSON text in one pass without building anything: nesting, the largest array and
 * object, the longest string, and where the root object's `tokens` array is. It does not check
 * the syntax (JSON.parse does, on what is read). It stops once nesting passes `maxDepth`.
 */
export function scanJson(text: string, maxDepth = Infinity): JsonMeasures {
  const out: JsonMeasures = { depth: 0, elements: 0, members: 0, stringChars: 0 };
  // Per open container: whether it is an array, its commas, whether it holds anything.
  const isArray: boolean[] = [];
  const commas: number[] = [];
  const filled: boolean[] = [];
  let keyStart = -1;
  let keyEnd = -1;
  let tokensLevel = -1;
  let tokensStart = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    const top = isArray.length - 1;
    if (c === 0x2c) {
      if (top >= 0) commas[top]++;
      continue;
    }
    if (c === 0x3a) continue;
    if (c === 0x5d || c === 0x7d) {
      if (top < 0) continue;
      const n = filled[top] ? commas[top] + 1 : 0;
      if (top === tokensLevel) {
        out.tokens = { start: tokensStart, end: i + 1, count: n };
        tokensLevel = -1;
      } else if (isArray[top]) out.elements = Math.max(out.elements, n);
      else out.members = Math.max(out.members, n);
      isArray.pop();
      commas.pop();
      filled.pop();
      continue;
    }
    if (top >= 0) filled[top] = true;
    if (c === 0x22) {
      const start = i + 1;
      for (i = start; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      out.stringChars = Math.max(out.stringChars, i - start);
      if (top === 0 && !isArray[0]) {
        keyStart = start;
        keyEnd = i;
      }
      continue;
    }
    if (c === 0x5b || c === 0x7b) {
      // The root object's member "tokens" (the list envelope, spec 2.2): the last one, as JSON.parse keeps.
      if (c === 0x5b && top === 0 && !isArray[0] && keyEnd - keyStart === 6 && text.startsWith('tokens', keyStart)) {
        tokensLevel = top + 1;
        tokensStart = i;
      }
      isArray.push(c === 0x5b);
      commas.push(0);
      filled.push(false);
      out.depth = Math.max(out.depth, isArray.length);
      // Past the depth bound the answer is refused whatever else it holds: stop before the stacks grow.
      if (out.depth > maxDepth) return out;
    }
  }
  return out;
}

/** A JSON answer beyond what this suite reads (JSON_LIMITS): not judged (the runner says inconclusive, cause `limit`). */
export class JsonBeyondLimits extends Error {
  override name = 'JsonBeyondLimits';
}

/** A JSON answer nested deeper than MAX_JSON_DEPTH. */
export class JsonTooDeep extends JsonBeyondLimits {
  override name = 'JsonTooDeep';
}

/** A JSON answer with an array, object or string larger than JSON_LIMITS. */
export class JsonTooLarge extends JsonBeyondLimits {
  override name = 'JsonTooLarge';
}

/** Which records of a sampled list were read: the list's true length, and the index of each kept record in it. */
export interface ListSample {
  length: number;
  indices: readonly number[];
}

const samples = new WeakMap<readonly unknown[], ListSample>();

/** The sample a list array stands for, when parseJson kept only some of its records. */
export function listSample(tokens: readonly unknown[]): ListSample | undefined {
  return samples.get(tokens);
}

/** `to` (a copy of a sampled list, record for record) stands for the same sample as `from`. */
export function keepSample<T extends readonly unknown[]>(from: readonly unknown[], to: T): T {
  const s = samples.get(from);
  if (s) samples.set(to, s);
  return to;
}

/** `count` indices spread evenly over 0..length-1, first and last included. */
export function evenSample(length: number, count: number): number[] {
  if (length <= count) return Array.from({ length }, (_, i) => i);
  const step = (length - 1) / (count - 1);
  return Array.from({ length: count }, (_, k) => Math.round(k * step));
}

/**
 * The records of the `tokens` array at text[start, end), sampled: each run of up to 4096
 * records is parsed on its own (so every record's syntax is checked) and only the sampled
 * ones are kept, so no more than one run is ever materialised beyond the sample.
 */
function sampledRecords(text: string, start: number, end: number, indices: readonly number[]): unknown[] {
  const kept: unknown[] = [];
  let want = 0;
  let index = 0;
  let runStart = start + 1;
  let runFirst = 0;
  let depth = 0;
  const flush = (until: number) => {
    const run = JSON.parse(`[${text.slice(runStart, until)}]`) as unknown[];
    while (want < indices.length && indices[want] < runFirst + run.length) kept.push(run[indices[want++] - runFirst]);
  };
  for (let i = start + 1; i < end - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < end; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && depth === 0 && ++index - runFirst === 4096) {
      flush(i);
      runStart = i + 1;
      runFirst = index;
    }
  }
  flush(end - 1);
  return kept;
}

/**
 * Parse a target's JSON text, measuring it first (scanJson) so that nothing past JSON_LIMITS is
 * ever built: throws JsonTooDeep or JsonTooLarge for such an answer. The root object's `tokens`
 * array (a list, spec 2.2) may be longer than `limits.records` when `sampleRecords` is set: an
 * even sample of its records is parsed instead, the sample recorded (listSample).
 */
export function parseJson(text: string, opts: { sampleRecords?: boolean; limits?: JsonLimits } = {}): { json?: unknown; jsonError?: string } {
  const limits = opts.limits ?? JSON_LIMITS;
  // Only a text opening an array, object or string can hold a structure worth bounding; any other
  // is left to JSON.parse, which reads a scalar or says at once that it is not JSON.
  const opening = /^\s*[[{"]/.test(text.slice(0, 64));
  const m = opening ? scanJson(text, limits.depth) : { depth: 0, elements: 0, members: 0, stringChars: 0, tokens: undefined };
  if (m.depth > limits.depth) {
    throw new JsonTooDeep(`the answer's JSON is nested deeper than ${limits.depth} levels, this suite's bound for reading an answer: not judged`);
  }
  const many = m.tokens !== undefined && m.tokens.count > limits.records;
  // An array too large to read, unless it is the list's records and those may be sampled.
  const elements = Math.max(m.elements, many && !opts.sampleRecords ? m.tokens!.count : 0);
  const n = (x: number) => x.toLocaleString('en-US');
  const beyond =
    elements > limits.elements
      ? `an array of ${n(elements)} elements (this suite reads at most ${n(limits.elements)})`
      : m.members > limits.members
        ? `an object of ${n(m.members)} members (this suite reads at most ${n(limits.members)})`
        : m.stringChars > limits.stringChars
          ? `a string of ${n(m.stringChars)} characters (this suite reads at most ${n(limits.stringChars)})`
          : undefined;
  if (beyond) throw new JsonTooLarge(`the answer's JSON holds ${beyond}, beyond this suite's bound for reading an answer: not judged`);
  try {
    if (!many || !m.tokens) return { json: JSON.parse(text) };
    const { start, end, count } = m.tokens;
    const indices = evenSample(count, limits.records);
    const envelope = JSON.parse(`${text.slice(0, start)}[]${text.slice(end)}`) as Record<string, unknown>;
    const tokens = sampledRecords(text, start, end, indices);
    samples.set(tokens, { length: count, indices });
    envelope.tokens = tokens;
    return { json: envelope };
  } catch (err) {
    return { jsonError: (err as Error).message };
  }
}
