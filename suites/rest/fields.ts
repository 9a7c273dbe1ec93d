/**
 * Spec 2.1, the field table: each of the 11 fields of every record has its Type and Format.
 * The table has no "required" column and the list is protobuf JSON, which leaves out default
 * values: an absent field is read as its proto3 default (records.ts, PROTO3_DEFAULTS) and judged
 * like a sent one, so an absent isin ("") is no ISIN, an absent paused_features ([]) is fine, and
 * an absent nav_price_updated_at (a Timestamp, no default) is no time. A JSON null is no default.
 * One check per field, listed in FIELD_CHECKS (the schema's `required`, in table order); each
 * field is judged by its own sub-schema `token.json#/properties/<field>`, so the shape is
 * written once, in schemas/token.json. Formats judged there include the ISIN check digit,
 * EIP-55 for mixed-case addresses and RFC 3339 date-times.
 */
import { check, type Check } from '../../src/harness/check';
import { eip55, hasAddressShape, hasIsinShape, isIsin } from '../../src/harness/formats';
import { isValidRecord, rawSchemaAt, validateRef } from '../../src/harness/schemas';
import { isRecord, show } from '../../src/harness/json';
import { bad, fieldOf, judgeRecords, OK, PROTO3_DEFAULTS, type Judgement } from '../../src/harness/records';
import { misnamedAs } from '../../src/harness/field-names';

type Schema = { type?: string; format?: string; $ref?: string; title?: string; items?: Schema };

/** "string (date-time)", "array of integer (int64)", "EVM address": the 2.1 Type/Format columns as the schema has them. */
function describeType(schema: Schema, base = 'token.json'): string {
  if (schema.$ref) {
    const ref = schema.$ref.startsWith('#') ? `${base}${schema.$ref}` : schema.$ref;
    const target = rawSchemaAt(ref) as Schema;
    return target.title ?? describeType(target, ref.split('#')[0]);
  }
  const type = schema.type === 'array' && schema.items ? `array of ${describeType(schema.items, base)}` : String(schema.type ?? 'value');
  return schema.format ? `${type} (${schema.format})` : type;
}

/**
 * The usual cause of an int64 field sent as a JSON string ("18"): the proto3 JSON mapping, which
 * grpc-gateway's default marshaler (runtime.JSONPb, over protojson) follows, writes int64 and
 * uint64 as strings, and no protojson MarshalOptions field changes that. 2.1 and the published
 * OpenAPI document type decimals and paused_features as integer, so the string stays a failure;
 * the hint names the ways out.
 */
export const INT64_AS_STRING_HINT =
  'protobuf JSON (protojson, the default runtime.JSONPb marshaler of grpc-gateway) writes int64 values as strings, and no protojson MarshalOptions field changes that. Serve these fields as JSON numbers: declare them int32/uint32 in the .proto, or register a marshaler that writes int64 as numbers with runtime.WithMarshalerOption(runtime.MIMEWildcard, …).';

/** An int64 field given as a decimal string, the proto3 JSON encoding of int64. */
function int64AsString(field: string, value: unknown): boolean {
  const isInt = (v: unknown) => typeof v === 'string' && /^-?[0-9]+$/.test(v);
  if (field === 'decimals') return isInt(value);
  return field === 'paused_features' && Array.isArray(value) && value.some(isInt);
}

/** Extra words for a failure, when the schema message alone does not say what is wrong. */
function hint(field: string, value: unknown): string {
  if (field === 'isin' && hasIsinShape(value) && !isIsin(value)) {
    const digit = [...'0123456789'].find((d) => isIsin(value.slice(0, 11) + d));
    return `: the ISO 6166 check digit is wrong (${value.slice(0, 11)}${digit ?? '?'} would be valid)`;
  }
  if (int64AsString(field, value)) return ': an int64 written as a JSON string (the proto3 JSON encoding of int64), where 2.1 types it integer';
  if (field === 'contract_address' && hasAddressShape(value)) {
    return `: mixed case that is not the EIP-55 checksum (checksummed: ${eip55(value.toLowerCase())}; all-lowercase is also accepted)`;
  }
  return '';
}

/** One check per field of the 2.1 table, in table order (a test keeps it equal to the required fields of schemas/token.json). */
export const FIELD_CHECKS: Array<[id: string, field: string, statements: string[]]> = [
  ['rest.token.field.contract-address', 'contract_address', ['2.1.r1', '2.1.1']],
  ['rest.token.field.symbol', 'symbol', ['2.1.r2', '2.1.1']],
  ['rest.token.field.name', 'name', ['2.1.r3', '2.1.1']],
  ['rest.token.field.decimals', 'decimals', ['2.1.r4', '2.1.1']],
  ['rest.token.field.icon-url', 'icon_url', ['2.1.r5', '2.1.1']],
  ['rest.token.field.total-supply', 'total_supply', ['2.1.r6', '2.1.1']],
  ['rest.token.field.isin', 'isin', ['2.1.r7', '2.1.1']],
  ['rest.token.field.multiplier', 'multiplier', ['2.1.r8', '2.1.1']],
  ['rest.token.field.paused-features', 'paused_features', ['2.1.r9', '2.1.1']],
  ['rest.token.field.nav-price', 'nav_price', ['2.1.r10', '2.1.1']],
  ['rest.token.field.nav-price-updated-at', 'nav_price_updated_at', ['2.1.r11', '2.1.1']],
];

/** One record under the field check of `field`: its type and format, as token.json#/properties/<field> has them. */
const fieldRefs = new Map<string, string>();
/** A field's schema ref, one string per field: asked once per record, a new string each time would be hashed each time. */
const fieldRef = (field: string): string => fieldRefs.get(field) ?? fieldRefs.set(field, `token.json#/properties/${field}`).get(field)!;

export function judgeField(record: unknown, field: string): Judgement {
  if (!isRecord(record)) return bad('the record is not an object', record);
  // A record valid as sent under the record schema has every field, each valid under its own sub-schema.
  if (isValidRecord(record)) return OK;
  const f = fieldOf(record, field);
  // Under protojson's name the field is not absent: the schema check states that, once.
  if ('missing' in f)
    return misnamedAs(record, field) ? f.missing : bad(`${field} is absent, and as a google.protobuf.Timestamp it has no default: no time is given`, record);
  const verdict = validateRef(fieldRef(field), f.value);
  if (verdict.valid) return OK;
  return bad(
    `${field} is not of type ${describeType(rawSchemaAt(`token.json#/properties/${field}`) as Schema)}${hint(field, f.value)} [${verdict.errors.join('; ')}]`,
    f.value,
    int64AsString(field, f.value) ? INT64_AS_STRING_HINT : undefined,
  );
}

/**
 * The field checks (FIELD_CHECKS order) that some record breaks: what a record schema failure
 * of the list is made of, since the record schema is these fields' sub-schemas and nothing more.
 */
export function brokenFieldChecks(tokens: readonly unknown[]): string[] {
  return FIELD_CHECKS.filter(([, field]) => tokens.some((record) => 'bad' in judgeField(record, field))).map(([id]) => id);
}

function fieldCheck([id, field, statements]: (typeof FIELD_CHECKS)[number]): Check {
  const type = describeType(rawSchemaAt(`token.json#/properties/${field}`) as Schema);
  const absent = Object.hasOwn(PROTO3_DEFAULTS, field) ? `absent = proto3 default ${show(PROTO3_DEFAULTS[field])}` : 'present: a Timestamp has no default';
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rest'],
      title: `every record's ${field} is ${type}`,
    },
    // The row of the field's table entry is what a wrong type breaks (2.1.1 restates it for every field).
    (ctx) => judgeRecords(ctx, { expected: `${field} is ${type} (${absent})`, field, violated: [statements[0]!] }, (record) => judgeField(record, field)),
  );
}

export const fieldChecks: Check[] = FIELD_CHECKS.map(fieldCheck);
