/**
 * Spec 2.1, the field table: every record carries each of the 11 fields with its Type and
 * Format. One check per field, generated from TOKEN_FIELDS (the schema's `required`, in table
 * order); each field is judged by its own sub-schema `token.json#/properties/<field>`, so the
 * shape is written once, in schemas/token.json. Formats judged there include the ISIN check
 * digit, EIP-55 for mixed-case addresses and RFC 3339 date-times.
 */
import { check, type Check } from '../../src/harness/check';
import { isIsin } from '../../src/harness/formats';
import { rawSchemaAt, TOKEN_FIELDS, validateRef } from '../../src/harness/schemas';
import { bad, fieldOf, isRecord, judgeRecords, OK } from '../../src/harness/records';

type Schema = { type?: string; format?: string; $ref?: string; title?: string; items?: Schema };

/** "string (date-time)", "array of integer (int64)", "EVM address": the 2.1 Type/Format columns as the schema has them. */
function describe(schema: Schema, base = 'token.json'): string {
  if (schema.$ref) {
    const ref = schema.$ref.startsWith('#') ? `${base}${schema.$ref}` : schema.$ref;
    const target = rawSchemaAt(ref) as Schema;
    return target.title ?? describe(target, ref.split('#')[0]);
  }
  const type = schema.type === 'array' && schema.items ? `array of ${describe(schema.items, base)}` : String(schema.type ?? 'value');
  return schema.format ? `${type} (${schema.format})` : type;
}

let checksum: ((a: string) => string) | undefined;
/** Extra words for a failure, when the schema message alone does not say what is wrong. */
function hint(field: string, value: unknown): string {
  if (field === 'isin' && typeof value === 'string' && /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/.test(value) && !isIsin(value)) {
    const digit = [...'0123456789'].find((d) => isIsin(value.slice(0, 11) + d));
    return `: the ISO 6166 check digit is wrong (${value.slice(0, 11)}${digit ?? '?'} would be valid)`;
  }
  if (field === 'contract_address' && typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    checksum ??= (require('viem/utils') as { getAddress: (a: string) => string }).getAddress;
    return `: mixed case that is not the EIP-55 checksum (checksummed: ${checksum(value.toLowerCase())}; all-lowercase is also accepted)`;
  }
  return '';
}

function fieldCheck(field: string): Check {
  const ref = `token.json#/properties/${field}`;
  const type = describe(rawSchemaAt(ref) as Schema);
  return check(
    {
      id: `rest.token.field.${field.replace(/_/g, '-')}`,
      section: '2.1',
      level: 'required',
      needs: ['rest'],
      title: `every record has the field ${field}: ${type}`,
    },
    (ctx) =>
      judgeRecords(ctx, { expected: `${field} is present: ${type}` }, (record) => {
        if (!isRecord(record)) return bad('the record is not an object', record);
        const f = fieldOf(record, field);
        if ('missing' in f) return bad(`${field} is missing`, record);
        const verdict = validateRef(ref, f.value);
        if (verdict.valid) return OK;
        return bad(`${field} is not of type ${type}${hint(field, f.value)} [${verdict.errors.join('; ')}]`, f.value);
      }),
  );
}

export const fieldChecks: Check[] = TOKEN_FIELDS.map(fieldCheck);
