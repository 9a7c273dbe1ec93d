/**
 * The one place JSON Schemas are compiled. `schemas/*.json` (draft 2020-12) are the canonical
 * shapes of spec sections 2.1-2.5 and 4.2; the OpenAPI and OpenRPC documents in `specs/`
 * reference them, and checks validate through this module instead of retyping field rules.
 *
 * One Ajv2020 instance, strict, with ajv-formats plus the project formats of ./formats
 * (`isin`, `evm-address`, `hex-quantity`, `hex-bytes`, `http-url`, and our own `date-time`,
 * which replaces ajv-formats' so that schema and hand-written checks agree). The schema files
 * are read once on first use; each validator is compiled on first use and cached.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { FORMAT_MEANING, FORMATS } from './formats';
import { fromRoot } from './paths';
import { cut, listSample } from './json';

/** Directory of the canonical schema files. */
export const SCHEMA_DIR = fromRoot('schemas');
/** Base of every schema `$id`; relative refs like 'token.json#/properties/isin' resolve against it. */
export const SCHEMA_BASE = 'https://conformance.local/schemas/';

export type SchemaName = 'list' | 'rpcStatus' | 'receipt' | 'jsonrpcResponse' | 'hexQuantity' | 'hexBytes';

/** Where each named schema lives, as a ref relative to SCHEMA_BASE. */
export const SCHEMA_REFS: Readonly<Record<SchemaName, string>> = Object.freeze({
  list: 'list.json',
  rpcStatus: 'rpc-status.json',
  receipt: 'receipt.json',
  jsonrpcResponse: 'jsonrpc-response.json',
  hexQuantity: 'hex.json#/$defs/quantity',
  hexBytes: 'hex.json#/$defs/bytes',
});

export interface SchemaVerdict {
  valid: boolean;
  /** Human readable, one per problem: `/tokens/0/isin must match format "isin" (got "US0378331006")`. */
  errors: string[];
  /** Problems found beyond those kept in `errors` (SCHEMA_ERRORS_KEPT): counted, not described. */
  omitted?: number;
}

/**
 * The most problems one validation of a list describes, in all and per record; the rest are
 * counted (SchemaVerdict.omitted). A list of millions of records each breaking a dozen rules is
 * reported in bounded memory.
 */
export const SCHEMA_ERRORS_KEPT = { perList: 1000, perRecord: 10 } as const;

type JsonObject = { [k: string]: unknown };

let files: ReadonlyMap<string, JsonObject> | undefined;

/** file name ('token.json') -> parsed, deep-frozen schema. Read once. */
function schemaFiles(): ReadonlyMap<string, JsonObject> {
  if (!files) {
    const m = new Map<string, JsonObject>();
    for (const f of fs
      .readdirSync(SCHEMA_DIR)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      const schema = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8')) as JsonObject;
      if (schema.$id !== SCHEMA_BASE + f) {
        throw new Error(`schemas/${f}: $id must be ${SCHEMA_BASE + f}, is ${String(schema.$id)}`);
      }
      m.set(f, deepFreeze(schema));
    }
    files = m;
  }
  return files;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}

let ajvInstance: Ajv2020 | undefined;

function ajv(): Ajv2020 {
  if (!ajvInstance) {
    const a = new Ajv2020({
      strict: true, // unknown keywords, formats and ignored keywords are errors ($comment is a keyword)
      allowUnionTypes: true, // jsonrpc-response.json: id is number | string | null
      allErrors: true, // a report lists every problem of a record, not just the first
    });
    addFormats(a);
    for (const [name, fn] of Object.entries(FORMATS)) {
      a.addFormat(name, { type: 'string', validate: fn }); // 'date-time' overrides ajv-formats'
    }
    // Ajv gets copies: the frozen originals are what schemaOf() hands out.
    for (const schema of schemaFiles().values()) a.addSchema(structuredClone(schema) as JsonObject);
    ajvInstance = a;
  }
  return ajvInstance;
}

const compiled = new Map<string, ValidateFunction>();

function absoluteRef(ref: string): string {
  return new URL(ref, SCHEMA_BASE).href;
}

/** Keyed by the ref as given too: a record check asks for the same ref once per record, and resolving it (new URL) costs more than validating. */
function validatorFor(ref: string): ValidateFunction {
  let fn = compiled.get(ref);
  if (!fn) {
    const abs = absoluteRef(ref);
    fn = compiled.get(abs) ?? ajv().getSchema(abs);
    if (!fn) throw new Error(`no schema at ${ref} (resolved to ${abs})`);
    compiled.set(abs, fn).set(ref, fn);
  }
  return fn;
}

/**
 * Compiles the validators of the named schemas (and the list's record) now: ajv takes a few hundred
 * milliseconds for them, which a run spends while the embedded reference starts (open-run.ts)
 * rather than in its first checks.
 */
export function compileSchemas(): void {
  for (const ref of Object.values(SCHEMA_REFS)) validatorFor(ref);
  validatorFor(recordRef());
}

/** Validate `value` against a named schema. */
export function validate(name: SchemaName, value: unknown): SchemaVerdict {
  const ref = SCHEMA_REFS[name];
  if (ref === undefined) throw new Error(`unknown schema name ${String(name)}`);
  return name === 'list' ? validateList(value) : validateRef(ref, value);
}

/**
 * The list schema, applied as the envelope (its records left out) and then each record against
 * the record schema list.json names for `tokens` items, with the record's errors placed under
 * `/tokens/<i>`: the same verdict and messages as the whole schema. Ajv with allErrors
 * concatenates the error array of every invalid array item into a new one, quadratic in the
 * number of errors (tens of thousands of bad records took minutes); this is linear.
 */
function validateList(value: unknown): SchemaVerdict {
  const tokens = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject).tokens : undefined;
  if (!Array.isArray(tokens)) return validateRef(SCHEMA_REFS.list, value);
  const envelope = validatorFor(SCHEMA_REFS.list);
  const errors: ErrorObject[] = envelope({ ...(value as JsonObject), tokens: [] }) ? [] : [...(envelope.errors ?? [])];
  const record = validatorFor(recordRef());
  // A sampled list (json.ts listSample) names each record by its place in the list served.
  const indices = listSample(tokens)?.indices;
  const texts = formatErrors(errors, value);
  let omitted = 0;
  tokens.forEach((item, i) => {
    if (isValidRecord(item)) return;
    record(item);
    const found = record.errors ?? [];
    const room = Math.max(0, Math.min(SCHEMA_ERRORS_KEPT.perRecord, SCHEMA_ERRORS_KEPT.perList - texts.length));
    // Described as they are found, against the record itself: nothing of a record is held after it.
    for (const e of found.slice(0, room))
      texts.push(errorText({ ...e, instancePath: `/tokens/${indices?.[i] ?? i}${e.instancePath}` }, getPointer(item, e.instancePath)));
    omitted += Math.max(0, found.length - room);
  });
  if (texts.length === 0) return { valid: true, errors: [] };
  return { valid: false, errors: [...new Set(texts)], ...(omitted > 0 ? { omitted } : {}) };
}

let itemRef: string | undefined;
/** The record schema list.json names for `tokens` items (looked up once: it is asked once per record). */
const recordRef = (): string => (itemRef ??= (getPointer(rawSchemaAt(SCHEMA_REFS.list), '/properties/tokens/items') as { $ref: string }).$ref);

/**
 * The record schema's verdict of each record object asked about. The list's records are held
 * read-only and judged by a dozen checks, the list schema and one check per field: each record
 * is validated whole once, not once per field and again whole.
 */
const recordVerdicts = new WeakMap<object, boolean>();

/** Whether `item` is valid under the record schema (token.json, as list.json names it for `tokens` items). */
export function isValidRecord(item: unknown): boolean {
  if (item === null || typeof item !== 'object') return validatorFor(recordRef())(item);
  let valid = recordVerdicts.get(item);
  if (valid === undefined) recordVerdicts.set(item, (valid = validatorFor(recordRef())(item)));
  return valid;
}

/**
 * Validate `value` against any schema location, as a ref relative to `schemas/`
 * (e.g. 'token.json#/properties/isin', 'hex.json#/$defs/hash32') or an absolute `$id` URI.
 * Throws when the ref points nowhere (a programming error, not a verdict).
 */
/** The one verdict of every valid value (frozen: a record check asks once per record and field). */
const VALID: SchemaVerdict = Object.freeze({ valid: true, errors: Object.freeze([]) as unknown as string[] });

export function validateRef(ref: string, value: unknown): SchemaVerdict {
  const fn = validatorFor(ref);
  if (fn(value)) return VALID;
  return { valid: false, errors: formatErrors(fn.errors ?? [], value) };
}

/** The raw (frozen) schema at a ref relative to `schemas/` ('hex.json#/$defs/quantity'). */
export function rawSchemaAt(ref: string): object {
  const [file, fragment = ''] = ref.split('#', 2) as [string, string?];
  const root = schemaFiles().get(file);
  if (!root) throw new Error(`no schema file schemas/${file}`);
  const at = getPointer(root, fragment, true);
  if (at === undefined || at === null || typeof at !== 'object') throw new Error(`no schema at ${ref}`);
  return at;
}

// ---------------------------------------------------------------------------------------
// Error text

function decodePointerToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Resolve a JSON pointer ('' is the root); `uriFragment` pointers are percent-decoded first. */
function getPointer(root: unknown, pointer: string, uriFragment = false): unknown {
  if (pointer === '') return root;
  let cur: unknown = root;
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const key = decodePointerToken(uriFragment ? decodeURIComponent(raw) : raw);
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as JsonObject)[key];
  }
  return cur;
}

function showValue(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v !== null && typeof v === 'object') {
    return Array.isArray(v) ? `an array of ${v.length}` : 'an object';
  }
  // A string's head only: quoting a 16 MiB string whole to keep 77 characters of it is 16 MiB of garbage per error.
  // ±Infinity: a number beyond a double's range, shown as read (JSON.stringify would say null).
  return cut(typeof v === 'string' ? JSON.stringify(v.slice(0, 78)) : typeof v === 'number' && !Number.isFinite(v) ? String(v) : String(JSON.stringify(v)), 77);
}

/** One error as a line; `got` is the value at the error's instancePath. */
function errorText(e: ErrorObject, got: unknown): string {
  const where = e.instancePath === '' ? '(root)' : e.instancePath;
  let msg = `${where} ${e.message ?? `fails ${e.keyword}`}`;
  if (e.keyword === 'enum' || e.keyword === 'const') {
    const allowed = (e.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [
      (e.params as { allowedValue?: unknown }).allowedValue,
    ];
    msg += ` ${JSON.stringify(allowed)}`;
  }
  if (e.keyword === 'additionalProperties') {
    msg += ` ('${String((e.params as { additionalProperty?: string }).additionalProperty)}')`;
  }
  if (e.keyword === 'oneOf') {
    const passing = (e.params as { passingSchemas?: number[] | null }).passingSchemas;
    if (Array.isArray(passing)) msg += ` but matches ${passing.length} (#${passing.join(', #')})`;
  }
  if (e.keyword !== 'required') {
    // The value a required-error is about is the parent object: naming the missing field is enough.
    msg += ` (got ${showValue(got)})`;
  }
  const meaning = e.keyword === 'format' ? FORMAT_MEANING[String((e.params as { format?: unknown }).format)] : undefined;
  if (meaning) msg += `: ${meaning}`;
  return msg;
}

/** Ajv errors as one readable line each (deduplicated, in Ajv's order). */
export function formatErrors(errors: readonly ErrorObject[], data: unknown): string[] {
  return [...new Set(errors.map((e) => errorText(e, getPointer(data, e.instancePath))))];
}
