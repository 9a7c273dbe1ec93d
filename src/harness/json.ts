/** A JSON object (not null, not an array): what a check must see before reading members. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * How deep a target's JSON may nest before it is not read (JsonTooDeep): far beyond any answer
 * the spec describes, and well below where JSON.stringify and recursive walks overflow the stack
 * (about 4,000 levels in Node).
 */
export const MAX_JSON_DEPTH = 1000;

/** What marks a text cut by this suite; the Redactor hides a secret's start left before it. */
export const CUT_MARK = '…';

/**
 * A copy of `s` that shares no memory with the text it was cut from: V8 keeps a whole parent
 * string alive for a slice of it, so one short quote could hold a 16 MiB answer in a result.
 */
export function detached(s: string): string {
  return Buffer.from(s, 'utf16le').toString('utf16le');
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
    // defineProperty: a member named "__proto__" (JSON.parse makes it an own member) stays one.
    Object.defineProperty(parent, key, { value: x, enumerable: true, writable: true, configurable: true });
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
  const s = typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'undefined' : typeof v === 'bigint' ? `${v}n` : JSON.stringify(jsonSafe(v));
  return cut(s, max);
}

/** The deepest nesting of arrays and objects in a JSON text, read without parsing (strings skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A JSON answer nested deeper than MAX_JSON_DEPTH: not read, so not judged (the runner says inconclusive). */
export class JsonTooDeep extends Error {
  override name = 'JsonTooDeep';
}

/** Parse a target's JSON text; throws JsonTooDeep beyond MAX_JSON_DEPTH levels of nesting. */
export function parseJson(text: string): { json?: unknown; jsonError?: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { jsonError: (err as Error).message };
  }
  if (typeof json === 'object' && json !== null && jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new JsonTooDeep(`the answer's JSON is nested deeper than ${MAX_JSON_DEPTH} levels, this suite's bound for reading an answer: not judged`);
  }
  return { json };
}
