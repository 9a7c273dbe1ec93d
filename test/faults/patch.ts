// JSON Patch (RFC 6902) on an answer, for the fault catalogue's records, with two additions a
// catalogue needs and the RFC lacks: a path segment `*` stands for every element of an array
// (or member of an object) there, and the op `transform` rewrites a value by one of a closed
// set of named functions (`to`), for a fault that keeps the value but not its form ("18" for
// 18, a lower-cased ISIN). A patch applies whole or not at all: when an op cannot apply (a
// missing path, a failed `test`), the answer is left as it was, as a rewrite that only fires
// on the answers it is meant for.
import type { Json } from './proxy';

export type Transform =
  | 'string'
  | 'lowercase'
  | 'number'
  | 'negate'
  | 'unprefixed-hex'
  | 'uppercase-hex'
  | 'leading-zero'
  | 'decimal-string'
  | 'utc-offset'
  | 'epoch-seconds'
  | 'boolean'
  | 'bitmask';

export type PatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: Json }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string }
  | { op: 'transform'; path: string; to: Transform };

/** The closed set of value rewrites: each keeps the value and changes its form. */
const TRANSFORMS: Record<Transform, (v: Json) => Json> = {
  string: (v) => (typeof v === 'string' ? v : JSON.stringify(v)),
  lowercase: (v) => (typeof v === 'string' ? v.toLowerCase() : fail(`lowercase of a ${typeof v}`)),
  // A hex quantity ("0x5208") or a decimal string, as a JSON number.
  number: (v) => (typeof v === 'string' && /^(0x[0-9a-f]+|-?\d+(\.\d+)?)$/i.test(v) ? Number(v) : fail(`number of ${JSON.stringify(v)}`)),
  negate: (v) => (typeof v === 'number' && v !== 0 ? -v : fail(`negate ${JSON.stringify(v)}`)),
  // Hex ("0xAbC1"): its digits alone, lower-case, without the 0x prefix ("abc1").
  'unprefixed-hex': (v) => (isHex(v) ? v.slice(2).toLowerCase() : fail(`unprefixed-hex of ${JSON.stringify(v)}`)),
  // Hex: its digits in upper case after the 0x prefix ("0xABC1"; "0x" stays "0x").
  'uppercase-hex': (v) => (isHex(v) ? `0x${v.slice(2).toUpperCase()}` : fail(`uppercase-hex of ${JSON.stringify(v)}`)),
  // A hex quantity with a leading zero ("0x5" as "0x05").
  'leading-zero': (v) => (isQuantity(v) ? `0x0${v.slice(2)}` : fail(`leading-zero of ${JSON.stringify(v)}`)),
  // A hex quantity as a decimal string ("0x10" as "16").
  'decimal-string': (v) => (isQuantity(v) ? BigInt(v).toString(10) : fail(`decimal-string of ${JSON.stringify(v)}`)),
  // An RFC 3339 time in UTC with the offset "+00:00" in place of "Z" (the same instant).
  'utc-offset': (v) => (typeof v === 'string' && /\dZ$/.test(v) ? `${v.slice(0, -1)}+00:00` : fail(`utc-offset of ${JSON.stringify(v)}`)),
  // An RFC 3339 time as whole seconds since the epoch (a number).
  'epoch-seconds': (v) =>
    typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) && !Number.isNaN(Date.parse(v))
      ? Math.floor(Date.parse(v) / 1000)
      : fail(`epoch-seconds of ${JSON.stringify(v)}`),
  // A status quantity "0x1" or "0x0" as true or false.
  boolean: (v) => (v === '0x1' || v === '0x0' ? v === '0x1' : fail(`boolean of ${JSON.stringify(v)}`)),
  // An array of small non-negative integers (bit positions) as one integer with those bits set.
  bitmask: (v) =>
    Array.isArray(v) && v.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) < 31)
      ? (v as number[]).reduce((m, b) => m | (1 << b), 0)
      : fail(`bitmask of ${JSON.stringify(v)}`),
};

function isHex(v: Json): v is string {
  return typeof v === 'string' && /^0x[0-9a-f]*$/i.test(v);
}

function isQuantity(v: Json): v is string {
  return typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v);
}

class NotApplicable extends Error {}
function fail(why: string): never {
  throw new NotApplicable(why);
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) fail(`not a JSON pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const pointer = (ts: string[]) => ts.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** The concrete pointers a path with `*` segments names in `doc` (none when a part is missing). */
function expand(doc: Json, path: string): string[] {
  const out: string[] = [];
  const walk = (node: Json | undefined, done: string[], rest: string[]) => {
    if (rest.length === 0) return void out.push(pointer(done));
    const [head, ...tail] = rest;
    if (head !== '*') return walk(child(node, head), [...done, head], tail);
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, [...done, String(i)], tail));
    else if (node !== null && typeof node === 'object') for (const k of Object.keys(node)) walk(node[k], [...done, k], tail);
  };
  walk(doc, [], tokens(path));
  if (out.length === 0) fail(`nothing at ${path}`);
  return out;
}

function child(node: Json | undefined, key: string): Json | undefined {
  if (Array.isArray(node)) return /^\d+$/.test(key) ? node[Number(key)] : undefined;
  if (node !== null && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, key)) return node[key];
  return undefined;
}

function get(doc: Json, path: string): Json {
  let node: Json | undefined = doc;
  for (const t of tokens(path)) node = child(node, t);
  return node === undefined ? fail(`nothing at ${path}`) : node;
}

/** Sets (add: inserts into arrays) or removes the value at `path`; returns the new document. */
function put(doc: Json, path: string, how: 'add' | 'replace' | 'remove', value?: Json): Json {
  const ts = tokens(path);
  if (ts.length === 0) return how === 'remove' ? fail('cannot remove the whole answer') : value!;
  const parent = get(doc, pointer(ts.slice(0, -1)));
  const key = ts[ts.length - 1];
  if (Array.isArray(parent)) {
    const i = key === '-' && how === 'add' ? parent.length : /^\d+$/.test(key) ? Number(key) : fail(`bad index ${key}`);
    if (i > parent.length || (how !== 'add' && i >= parent.length)) fail(`index ${i} out of range at ${path}`);
    if (how === 'add') parent.splice(i, 0, value!);
    else if (how === 'replace') parent[i] = value!;
    else parent.splice(i, 1);
  } else if (parent !== null && typeof parent === 'object') {
    if (how !== 'add' && !(key in parent)) fail(`nothing at ${path}`);
    if (how === 'remove') delete parent[key];
    else parent[key] = value!;
  } else fail(`not a container at ${path}`);
  return doc;
}

function applyOne(doc: Json, op: PatchOp): Json {
  switch (op.op) {
    case 'test':
      for (const p of expand(doc, op.path)) if (JSON.stringify(get(doc, p)) !== JSON.stringify(op.value)) fail(`test failed at ${p}`);
      return doc;
    case 'remove':
      // From the last to the first, so removing array elements keeps the earlier indexes right.
      return expand(doc, op.path)
        .reverse()
        .reduce((d, p) => put(d, p, 'remove'), doc);
    case 'replace':
      return expand(doc, op.path).reduce((d, p) => put(d, p, 'replace', clone(op.value)), doc);
    case 'add': {
      // A `*` names the containers to add to; the last segment is the member (or index) added.
      const ts = tokens(op.path);
      const parents = ts.length ? expand(doc, pointer(ts.slice(0, -1))) : [''];
      return parents.reduce((d, p) => put(d, ts.length ? `${p}${pointer(ts.slice(-1))}` : '', 'add', clone(op.value)), doc);
    }
    case 'transform':
      return expand(doc, op.path).reduce((d, p) => put(d, p, 'replace', TRANSFORMS[op.to](get(d, p))), doc);
    case 'copy':
      return put(doc, op.path, 'add', clone(get(doc, op.from)));
    case 'move': {
      const value = get(doc, op.from);
      return put(put(doc, op.from, 'remove'), op.path, 'add', value);
    }
  }
}

/** The patched copy of `doc`, or undefined when the patch does not apply to it. */
export function applyPatch(doc: Json, ops: readonly PatchOp[]): Json | undefined {
  try {
    return ops.reduce(applyOne, clone(doc));
  } catch (err) {
    if (err instanceof NotApplicable) return undefined;
    throw err;
  }
}
