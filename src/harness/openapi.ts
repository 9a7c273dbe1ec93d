/**
 * The API team's own published OpenAPI document (`--openapi <file|url>`), once read and analysed
 * (openapi-document.ts): finding the list operation, and comparing its schemas with the suite's
 * canonical shapes in schemas/ (the one source of truth for spec 2.1-2.3).
 *
 * Observation and comparison only: nothing here throws a verdict. The comparison yields findings
 * graded `fail` / `advisory` / `note`; the checks in suites/rest/openapi.ts turn them into
 * verdicts citing their sections. Documents as protoc-gen-openapiv2 writes them are the model:
 * Swagger 2.0 or its conversion to OpenAPI 3.0 (no `required` lists, `format: int64/double/
 * date-time`, snake_case names with json_names_for_fields=false, a `default` response of
 * `rpcStatus`, more paths than the spec's), and OpenAPI 3.1.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { FORMATS } from './formats';
import { isRecord } from './json';
import { formatErrors, rawSchemaAt, type SchemaVerdict } from './schemas';
import type { Analysis } from './openapi-analysis';

export { findListOperation, LIST_OPERATION_PATH, responsesOf, securityOf, type DeclaredResponse, type FoundOperation } from './openapi-operations';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------
// Comparing a document schema with a spec schema from schemas/

export type Severity = 'fail' | 'advisory' | 'note';

export interface Finding {
  /** Where in the shape: 'tokens', 'tokens[].decimals', 'details[].@type'. */
  path: string;
  severity: Severity;
  message: string;
  expected?: unknown;
  actual?: unknown;
}

/** The spec schema at a ref of schemas/, with its $refs replaced (the spec's shapes are finite). */
function specSchema(ref: string): Json {
  const [file] = ref.split('#', 1) as [string];
  const resolve = (node: unknown, inFile: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => resolve(n, inFile));
    if (!isRecord(node)) return node;
    const { $ref, ...rest } = node;
    const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, resolve(v, inFile)]));
    if (typeof $ref !== 'string') return own;
    const [refFile, fragment = ''] = $ref.split('#', 2) as [string, string?];
    const targetFile = refFile === '' ? inFile : refFile;
    return { ...(resolve(rawSchemaAt(`${targetFile}#${fragment}`), targetFile) as Json), ...own };
  };
  return resolve(rawSchemaAt(ref), file) as Json;
}

/** The shape a one-member (or property-merging) allOf stands for, as protoc-gen-openapiv2's use_allof_for_refs writes it. */
function flatten(node: unknown, depth = 0): Json | undefined {
  if (!isRecord(node)) return undefined;
  if (!Array.isArray(node.allOf) || depth > 8) return node;
  const { allOf, ...rest } = node;
  const merged: Json = { ...rest };
  for (const part of allOf as unknown[]) {
    const p = flatten(part, depth + 1);
    if (!p) continue;
    for (const [k, v] of Object.entries(p)) {
      if (k === 'properties' && isRecord(v)) merged.properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...v };
      else if (!(k in merged)) merged[k] = v;
    }
  }
  return merged;
}

interface DeclaredType {
  /** Non-null types the schema allows; empty when it declares none. */
  types: string[];
  nullable: boolean;
}

function declaredType(d: Json): DeclaredType {
  const raw = Array.isArray(d.type) ? d.type.filter((t): t is string => typeof t === 'string') : typeof d.type === 'string' ? [d.type] : [];
  const nullable = raw.includes('null') || d.nullable === true || d['x-nullable'] === true;
  let types = raw.filter((t) => t !== 'null');
  if (types.length === 0 && isRecord(d.properties)) types = ['object'];
  if (types.length === 0 && d.items !== undefined) types = ['array'];
  return { types, nullable };
}

/** Formats the OpenAPI specification itself defines: a generated document can state them. */
const OPENAPI_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'byte', 'binary', 'date', 'date-time', 'password']);
/** A document format that admits only values the spec's format admits too. */
const NARROWER: Readonly<Record<string, readonly string[]>> = { int64: ['int32'], double: ['float'] };
/** Other spellings of the spec's own domain formats. */
const SAME_FORMAT: Readonly<Record<string, readonly string[]>> = { 'evm-address': ['address', 'ethereum-address'], url: ['uri', 'iri'] };
/** How the spec's table names the formats that schemas/ spells for Ajv. */
const SPEC_FORMAT_NAME: Readonly<Record<string, string>> = { 'evm-address': 'address', url: 'URL', isin: 'ISIN' };

/**
 * Whether a document's format is the spec's: its schemas/ spelling, the spec table's own (URL,
 * ISIN, address) or another spelling of it, in any case (a format is a free-form string outside
 * OpenAPI's own, and the table writes "URL" and "ISIN" in capitals).
 */
function sameFormat(specFormat: string, docFormat: string): boolean {
  const doc = docFormat.toLowerCase();
  return [specFormat, specFormatName(specFormat), ...(SAME_FORMAT[specFormat] ?? [])].some((f) => f.toLowerCase() === doc);
}

function specFormatName(format: string): string {
  return SPEC_FORMAT_NAME[format] ?? format;
}

function normalizedName(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

const MAX_DEPTH = 6;

function compareNode(spec: Json, docNode: unknown, path: string, out: Finding[], depth: number): void {
  const d = flatten(docNode);
  if (!d) {
    out.push({
      path,
      severity: 'advisory',
      message: `${path}: the document declares no schema (admits any value)`,
      expected: specSummary(spec),
      actual: docNode ?? null,
    });
    return;
  }
  const wanted = typeof spec.type === 'string' ? spec.type : undefined;
  const { types, nullable } = declaredType(d);
  if (nullable)
    out.push({
      path,
      severity: 'advisory',
      message: `${path}: the document admits null; the spec's ${wanted ?? 'field'} has no null value (proto3 JSON omits a field rather than sending null)`,
      expected: specSummary(spec),
      actual: d.type ?? { nullable: true },
    });
  if (wanted) {
    if (types.length === 0) {
      out.push({
        path,
        severity: 'advisory',
        message: `${path}: the document declares no type (admits any value); the spec says ${wanted}`,
        expected: specSummary(spec),
        actual: docSummary(d),
      });
    } else if (!types.includes(wanted)) {
      if (wanted === 'number' && types.every((t) => t === 'integer')) {
        out.push({
          path,
          severity: 'advisory',
          message: `${path}: the document narrows the spec's number to integer`,
          expected: specSummary(spec),
          actual: docSummary(d),
        });
      } else {
        const hint =
          wanted === 'integer' && types.includes('string') && (d.format === 'int64' || d.format === 'uint64')
            ? ' (protoc-gen-openapiv2 renders a proto int64 as a string, as protojson quotes 64-bit integers; the spec says a JSON integer)'
            : wanted === 'integer' && types.includes('number')
              ? ' (number admits fractions)'
              : '';
        out.push({
          path,
          severity: 'fail',
          message: `${path}: the document says ${types.join(' or ')}, the spec says ${wanted}${hint}`,
          expected: specSummary(spec),
          actual: docSummary(d),
        });
        return;
      }
    } else if (types.length > 1) {
      out.push({
        path,
        severity: 'advisory',
        message: `${path}: the document also admits ${types.filter((t) => t !== wanted).join(', ')}; the spec says ${wanted}`,
        expected: specSummary(spec),
        actual: docSummary(d),
      });
    }
  }
  // With no type declared the finding above already says the field admits anything.
  if (typeof spec.format === 'string' && (types.length > 0 || !wanted)) compareFormat(spec.format, d, path, out, spec);
  if (depth >= MAX_DEPTH) return;

  if (wanted === 'array' && isRecord(spec.items)) {
    if (d.items === undefined)
      out.push({
        path: `${path}[]`,
        severity: 'advisory',
        message: `${path}: the document does not declare the items (admits any)`,
        expected: specSummary(spec.items),
        actual: docSummary(d),
      });
    else compareNode(spec.items, d.items, `${path}[]`, out, depth + 1);
  }
  if (isRecord(spec.properties)) compareProperties(spec, d, path, out, depth);
}

function compareProperties(spec: Json, d: Json, path: string, out: Finding[], depth: number): void {
  const specProps = spec.properties as Json;
  const docProps = isRecord(d.properties) ? d.properties : {};
  const at = (name: string) => (path ? `${path}.${name}` : name);
  const unmatched = Object.keys(docProps).filter((n) => !(n in specProps));
  let renamedOnce = false;
  for (const [name, sp] of Object.entries(specProps)) {
    if (!isRecord(sp)) continue;
    if (name in docProps) {
      compareNode(sp, docProps[name], at(name), out, depth + 1);
      continue;
    }
    const renamed = unmatched.find((n) => normalizedName(n) === normalizedName(name));
    if (renamed) {
      // The likely cause is said once, on the first renamed field.
      const why = renamedOnce
        ? ''
        : ' (protoc-gen-openapiv2 writes lowerCamelCase JSON names unless json_names_for_fields=false, and the gateway must then marshal with UseProtoNames)';
      renamedOnce = true;
      out.push({
        path: at(name),
        severity: 'fail',
        message: `${at(name)}: renamed: the document has "${renamed}" where the spec names "${name}"${why}`,
        expected: name,
        actual: renamed,
      });
    } else {
      out.push({
        path: at(name),
        severity: 'fail',
        message: `${at(name)}: missing from the document`,
        expected: specSummary(sp),
        actual: `absent (the document has ${Object.keys(docProps).join(', ') || 'no fields'})`,
      });
    }
  }
  const extra = unmatched.filter((n) => !Object.keys(specProps).some((s) => normalizedName(s) === normalizedName(n)));
  if (extra.length)
    out.push({ path: path || '(root)', severity: 'note', message: `${path || 'the object'}: fields beyond the spec's: ${extra.join(', ')} (tolerated)` });
  if (d.additionalProperties === false && spec.additionalProperties !== false) {
    out.push({
      path: path || '(root)',
      severity: 'advisory',
      message: `${path || 'the object'}: the document forbids fields beyond its own (additionalProperties: false); the spec does not`,
      expected: 'additional properties allowed',
      actual: false,
    });
  }
}

function compareFormat(specFormat: string, d: Json, path: string, out: Finding[], spec: Json): void {
  const docFormat = typeof d.format === 'string' ? d.format : undefined;
  if (docFormat !== undefined && sameFormat(specFormat, docFormat)) return;
  const name = specFormatName(specFormat);
  const expected = specSummary(spec);
  const actual = docSummary(d);
  if (!OPENAPI_FORMATS.has(specFormat)) {
    // address, URL, ISIN are the spec's own formats, not OpenAPI's: a generated document cannot
    // state them without annotations, and the suite judges the values themselves.
    if (!docFormat)
      out.push({
        path,
        severity: 'note',
        message: `${path}: no format in the document (the spec's ${name} is not an OpenAPI format; the values are judged live)`,
      });
    else out.push({ path, severity: 'advisory', message: `${path}: the document's format ${docFormat} is not the spec's ${name}`, expected, actual });
    return;
  }
  if (!docFormat) out.push({ path, severity: 'advisory', message: `${path}: looser: the document gives no format; the spec says ${name}`, expected, actual });
  else if (NARROWER[specFormat]?.includes(docFormat))
    out.push({ path, severity: 'advisory', message: `${path}: narrower: the document says ${docFormat}; the spec says ${name}`, expected, actual });
  else out.push({ path, severity: 'advisory', message: `${path}: the document says format ${docFormat}; the spec says ${name}`, expected, actual });
}

function specSummary(s: unknown): unknown {
  if (!isRecord(s)) return s;
  if (s.type === 'array') return { type: 'array', items: specSummary(s.items) };
  if (s.type === 'object') return { type: 'object' };
  return { type: s.type, ...(typeof s.format === 'string' ? { format: specFormatName(s.format) } : {}) };
}

function docSummary(d: Json): unknown {
  const pick = ['type', 'format', 'nullable', 'x-nullable'].filter((k) => d[k] !== undefined);
  const out: Json = Object.fromEntries(pick.map((k) => [k, d[k]]));
  if (isRecord(d.items)) out.items = docSummary(d.items);
  return Object.keys(out).length ? out : '(no type, no format)';
}

/** The record schema of a list response schema (`tokens` items, through allOf), when it is an object schema. */
export function listItemsSchema(listSchema: unknown): Json | undefined {
  const list = flatten(listSchema);
  const tokens = flatten(isRecord(list?.properties) ? list.properties.tokens : undefined);
  const items = flatten(tokens?.items);
  return items && declaredType(items).types.includes('object') ? items : undefined;
}

/** The spec shapes a document schema is compared with, by the schemas/ file that holds them. */
export type SpecShape = 'list.json' | 'token.json' | 'rpc-status.json';

/**
 * Compare a (dereferenced) document schema with a spec shape from schemas/: every property the
 * spec's schema names must be there with a compatible type (fail otherwise); formats weaker or
 * other than the spec's, undeclared types and nullability are advisory; extra fields are notes.
 * `required` lists are not compared: generated documents have none and the spec's table has no
 * Required column for 2.1-2.3.
 */
export function compareWithSpec(docSchema: unknown, shape: SpecShape): Finding[] {
  const out: Finding[] = [];
  compareNode(specSchema(shape), docSchema, '', out, 0);
  // The root has no name: findings about it read "(root)".
  return out.map((f) => (f.path === '' ? { ...f, path: '(root)', message: f.message.replace(/^: /, 'the schema: ') } : f));
}

// ---------------------------------------------------------------------------------------
// Validating a live value against the document's own schema

const DOC_ID = 'https://openapi.document.local/doc.json';

/**
 * OpenAPI 2.0/3.0 schemas as JSON Schema 2020-12: `nullable`/`x-nullable` become a null type,
 * boolean exclusiveMinimum/Maximum become numeric ones. 3.1 schemas already are 2020-12.
 */
function asJsonSchema(node: unknown, legacy: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => asJsonSchema(n, legacy));
  if (!isRecord(node)) return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, asJsonSchema(v, legacy)]));
  if (!legacy) return out;
  if ((out.nullable === true || out['x-nullable'] === true) && typeof out.type === 'string') out.type = [out.type, 'null'];
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[flag] === true && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else if (typeof out[flag] === 'boolean') delete out[flag];
  }
  return out;
}

/**
 * Validate `value` against the schema at `pointer` of the bundled document, with the same
 * formats the suite's own schemas use (so `date-time` means the same thing on both sides).
 * Unknown keywords and formats of the document are ignored, not errors: it is the team's text.
 */
export function validateWithDocument(analysis: Analysis, pointer: string, value: unknown): SchemaVerdict | { cannot: string } {
  if (!analysis.bundled) return { cannot: 'the document could not be bundled' };
  const legacy = !(analysis.version ?? '').startsWith('3.1');
  // The first problem only: Ajv collecting every error of every array item is quadratic in their
  // number, and the suite's own schemas (rest.list.schema) list them all anyway.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, allowUnionTypes: true, logger: false });
  addFormats(ajv);
  for (const [name, fn] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: fn });
  const schema = asJsonSchema(analysis.bundled, legacy) as Json;
  delete schema.$schema;
  delete schema.$id;
  const at = locate(schema, pointer);
  if (at === undefined) return { cannot: `nothing at ${pointer} in the bundled document` };
  try {
    ajv.addSchema(schema, DOC_ID);
    const validate = ajv.compile({ $ref: `${DOC_ID}#${at.split('/').map(encodeURIComponent).join('/')}` });
    if (validate(value)) return { valid: true, errors: [] };
    return { valid: false, errors: formatErrors(validate.errors ?? [], value) };
  } catch (err) {
    return { cannot: `the document's schema could not be compiled: ${(err as Error).message}` };
  }
}

/**
 * The pointer of what `pointer` reaches in `doc` when every internal $ref on the way (a
 * response or media type written as a reference) is followed; undefined when nothing is there.
 */
function locate(doc: Json, pointer: string): string | undefined {
  let at = '';
  let node: unknown = doc;
  const tokens = pointer.split('/').slice(1);
  for (let i = 0; i < tokens.length; i++) {
    for (let hops = 0; isRecord(node) && typeof node.$ref === 'string' && hops < 8; hops++) {
      if (!node.$ref.startsWith('#')) return undefined;
      at = node.$ref.slice(1);
      node = nodeAt(doc, at);
    }
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    node = (node as Json)[tokens[i]!.replace(/~1/g, '/').replace(/~0/g, '~')];
    at = `${at}/${tokens[i]}`;
  }
  return node === undefined ? undefined : at;
}

function nodeAt(doc: Json, pointer: string): unknown {
  let node: unknown = doc;
  for (const t of pointer.split('/').slice(1)) {
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    node = (node as Json)[decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
