/**
 * JSON written and measured from the head of a value, for quoting values of any size in bounded
 * work: a 16 MiB answer quoted in a message or a result costs what a short one does.
 */

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

type HeadFrame =
  { array: readonly unknown[]; i: number; depth: number } | { object: Record<string, unknown>; keys: string[]; i: number; depth: number; any: boolean };

/**
 * The JSON of jsonSafe(v) as JSON.stringify writes it, up to `chars` characters and one more
 * when there are more (enough for cut to mark the cut): written from the head of the value
 * without copying it or writing the rest, so quoting a 16 MiB answer costs what quoting a short
 * one does. Strings, and member names, are quoted from their heads only; built without
 * recursion (mapJson's depth bound and note included). `text` maps each string value first.
 */
export function jsonHead(v: unknown, chars: number, text: (s: string) => string = (s) => s, maxDepth = MAX_JSON_DEPTH): string {
  let out = '';
  const stack: HeadFrame[] = [];
  // A string's head of one character more than is still wanted: its quoted form runs past `chars` when it is cut.
  const quote = (s: string) => JSON.stringify(s.slice(0, Math.max(0, chars - out.length) + 1));
  const put = (x: unknown, depth: number): void => {
    if (typeof x === 'string') out += quote(text(x));
    else if (typeof x === 'bigint') out += quote(x.toString());
    else if (!Array.isArray(x) && !isRecord(x)) out += JSON.stringify(x) ?? 'null';
    else if (depth >= maxDepth) out += quote(`[nested deeper than ${maxDepth} levels: not kept]`);
    else if (Array.isArray(x)) {
      out += '[';
      stack.push({ array: x, i: 0, depth });
    } else {
      out += '{';
      stack.push({ object: x, keys: Object.keys(x), i: 0, depth, any: false });
    }
  };
  put(v, 0);
  while (stack.length > 0 && out.length <= chars) {
    const f = stack[stack.length - 1];
    if ('array' in f) {
      if (f.i >= f.array.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (f.i > 0) out += ',';
      put(f.array[f.i++], f.depth + 1);
    } else {
      if (f.i >= f.keys.length) {
        out += '}';
        stack.pop();
        continue;
      }
      const k = f.keys[f.i++];
      const x = f.object[k];
      // JSON.stringify leaves such a member out.
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      out += `${f.any ? ',' : ''}${quote(k)}:`;
      f.any = true;
      put(x, f.depth + 1);
    }
  }
  return out.length > chars + 1 ? out.slice(0, chars + 1) : out;
}

/** The UTF-8 bytes of `s` quoted as JSON.stringify quotes it, counted without writing it. */
function quotedBytes(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x20) n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

/**
 * The size in UTF-8 bytes of the whole JSON jsonHead writes the head of (same `text` and
 * depth bound), counted without writing it: what a value cut from its head states as its size.
 */
export function jsonBytes(v: unknown, text: (s: string) => string = (s) => s, maxDepth = MAX_JSON_DEPTH): number {
  let n = 0;
  // One frame per open array or object, as in jsonHead: nothing is allocated per element.
  const stack: HeadFrame[] = [];
  const put = (x: unknown, depth: number): void => {
    if (typeof x === 'string') n += quotedBytes(text(x));
    else if (typeof x === 'bigint') n += quotedBytes(x.toString());
    else if (!Array.isArray(x) && !isRecord(x)) n += (JSON.stringify(x) ?? 'null').length;
    else if (depth >= maxDepth) n += quotedBytes(`[nested deeper than ${maxDepth} levels: not kept]`);
    else if (Array.isArray(x)) {
      n += 2 + Math.max(0, x.length - 1);
      stack.push({ array: x, i: 0, depth });
    } else {
      n += 2;
      stack.push({ object: x, keys: Object.keys(x), i: 0, depth, any: false });
    }
  };
  put(v, 0);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if ('array' in f) {
      if (f.i >= f.array.length) stack.pop();
      else put(f.array[f.i++], f.depth + 1);
    } else if (f.i >= f.keys.length) stack.pop();
    else {
      const k = f.keys[f.i++];
      const x = f.object[k];
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      n += (f.any ? 1 : 0) + quotedBytes(k) + 1;
      f.any = true;
      put(x, f.depth + 1);
    }
  }
  return n;
}
