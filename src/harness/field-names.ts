/**
 * The names of a record's fields. 2.1 names them in snake_case (`contract_address`); protojson,
 * grpc-gateway's default marshaler, writes each field under its lowerCamelCase JSON name
 * (`contractAddress`) unless the gateway sets UseProtoNames. A record holding `contractAddress`
 * in place of `contract_address` has not left the field out (it is not its proto3 default): it
 * spelled its name another way. That is one fault, stated once by the list's schema check
 * (FIELD_NAMES_ROOT, 2.1.1) with the option that fixes it; every check reading such a field is
 * blocked by it, never failed again as if the value were absent.
 */
import { isRecord } from './json';
import { rawSchemaAt } from './schemas';
import { blocked } from './verdict';

/** The check that states a misnamed field: the record schema (2.1.1: every field of the table). */
export const FIELD_NAMES_ROOT = 'rest.list.schema';

/** What fixes it on a grpc-gateway, said once with the failure. */
export const USE_PROTO_NAMES_HINT =
  "grpc-gateway writes protojson's lowerCamelCase JSON names (contractAddress) unless its marshaler is told to keep the .proto names: runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{UseProtoNames: true}})";

let fields: readonly string[] | undefined;
/** The fields of the 2.1 table, as schemas/token.json lists them. */
const tableFields = (): readonly string[] => (fields ??= (rawSchemaAt('token.json') as { required: string[] }).required);

const names = new Map<string, string>();
/** protojson's JSON name of a field: lowerCamelCase (contract_address → contractAddress); asked once per record and field, so remembered. */
export function jsonName(field: string): string {
  let name = names.get(field);
  if (name === undefined) names.set(field, (name = field.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())));
  return name;
}

/** The name a record gives `field` in its place (protojson's), or undefined: it has the field, or not that spelling either. */
export function misnamedAs(record: unknown, field: string): string | undefined {
  if (!isRecord(record) || Object.hasOwn(record, field)) return undefined;
  const name = jsonName(field);
  return name !== field && Object.hasOwn(record, name) ? name : undefined;
}

/** Each field of the table (or of `among`) some record names protojson's way, with how many records do. */
export function misnamedFields(tokens: readonly unknown[], among: readonly string[] = tableFields()): Array<{ field: string; name: string; records: number }> {
  return tableFields()
    .filter((field) => among.includes(field))
    .map((field) => ({ field, name: jsonName(field), records: tokens.filter((t) => misnamedAs(t, field) !== undefined).length }))
    .filter((m) => m.records > 0);
}

/** The misnamed fields in words: "contractAddress, not contract_address (7 records); iconUrl, not icon_url (7 records)". */
export function misnamedWords(misnamed: ReturnType<typeof misnamedFields>): string {
  return misnamed.map((m) => `${m.name}, not ${m.field} (${m.records} record${m.records === 1 ? '' : 's'})`).join('; ');
}

/**
 * Blocked by FIELD_NAMES_ROOT when some record names one of `read` protojson's way: for a check
 * that judged no record of these fields, that is why (never "no record has a contract_address").
 */
export function blockedIfMisnamed(tokens: readonly unknown[], read: readonly string[]): void {
  // Only the fields read are counted: a check that met no misnamed field walks no record here.
  const misnamed = misnamedFields(tokens, read);
  if (misnamed.length === 0) return;
  blocked(FIELD_NAMES_ROOT, `the records name ${misnamedWords(misnamed)}: judged by ${FIELD_NAMES_ROOT}`, {
    violated: ['2.1.1'],
    expected: misnamed.map((m) => m.field).join(', '),
    actual: misnamed.map((m) => m.name).join(', '),
  });
}
