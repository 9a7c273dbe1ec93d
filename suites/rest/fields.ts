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
import { rawSchemaAt, validateRef } from '../../src/harness/schemas';
import { isRecord, show } from '../../src/harness/json';
import { bad, fieldOf, judgeRecords, OK, PROTO3_DEFAULTS } from '../../src/harness/records';

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

/** Extra words for a failure, when the schema message alone does not say what is wrong. */
function hint(field: string, value: unknown): string {
  if (field === 'isin' && hasIsinShape(value) && !isIsin(value)) {
    const digit = [...'0123456789'].find((d) => isIsin(value.slice(0, 11) + d));
    return `: the ISO 6166 check digit is wrong (${value.slice(0, 11)}${digit ?? '?'} would be valid)`;
  }
  if (field === 'contract_address' && hasAddressShape(value)) {
    return `: mixed case that is not the EIP-55 checksum (checksummed: ${eip55(value.toLowerCase())}; all-lowercase is also accepted)`;
  }
  return '';
}

/** One check per field of the 2.1 table, in table order (a test keeps it equal to TOKEN_FIELDS). */
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

function fieldCheck([id, field, statements]: (typeof FIELD_CHECKS)[number]): Check {
  const ref = `token.json#/properties/${field}`;
  const type = describeType(rawSchemaAt(ref) as Schema);
  const absent = Object.hasOwn(PROTO3_DEFAULTS, field) ? `absent = proto3 default ${show(PROTO3_DEFAULTS[field])}` : 'present: a Timestamp has no default';
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rest'],
      title: `every record's ${field} is ${type}`,
    },
    (ctx) =>
      judgeRecords(ctx, { expected: `${field} is ${type} (${absent})`, field }, (record) => {
        if (!isRecord(record)) return bad('the record is not an object', record);
        const f = fieldOf(record, field);
        if ('missing' in f) return bad(`${field} is absent, and as a google.protobuf.Timestamp it has no default: no time is given`, record);
        const verdict = validateRef(ref, f.value);
        if (verdict.valid) return OK;
        return bad(`${field} is not of type ${type}${hint(field, f.value)} [${verdict.errors.join('; ')}]`, f.value);
      }),
  );
}

export const fieldChecks: Check[] = FIELD_CHECKS.map(fieldCheck);
