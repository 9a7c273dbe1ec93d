// What only the tests read of schemas/: the product validates through src/harness/schemas.ts and
// never needs a raw schema by name, the token fields as a list, or a resolver for other parsers.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rawSchemaAt, SCHEMA_BASE, SCHEMA_DIR, SCHEMA_REFS, type SchemaName } from '../../src/harness/schemas';

/** The raw (frozen) schema of a name; a fragment name gives its sub-schema. */
export function schemaOf(name: SchemaName): object {
  const ref = SCHEMA_REFS[name];
  if (ref === undefined) throw new Error(`unknown schema name ${String(name)}`);
  return rawSchemaAt(ref);
}

/** The 11 fields of a tokenized equity token (spec 2.1), in table order, read from token.json's `required`. */
export const TOKEN_FIELDS: readonly string[] = Object.freeze([...((rawSchemaAt('token.json') as { required?: string[] }).required ?? [])]);

/**
 * A resolver for @apidevtools/json-schema-ref-parser (and so swagger-parser) that serves the
 * `$id` URIs under SCHEMA_BASE from `schemas/`. Parsers that honour `$id` (json-schema-ref-parser
 * 16+) resolve a relative `$ref` inside list.json ('token.json') against list.json's `$id`, to
 * https://conformance.local/schemas/token.json, a host that does not exist. Use it as
 * `SwaggerParser.validate(file, { resolve: { conformance: localSchemaResolver } })`.
 */
export const localSchemaResolver = Object.freeze({
  order: 1,
  canRead(file: { url: string }): boolean {
    return file.url.startsWith(SCHEMA_BASE);
  },
  read(file: { url: string }): string {
    const name = decodeURIComponent(file.url.slice(SCHEMA_BASE.length).split('#')[0] ?? '');
    if (!/^[A-Za-z0-9._-]+\.json$/.test(name)) throw new Error(`not a schema file: ${file.url}`);
    return fs.readFileSync(path.join(SCHEMA_DIR, name), 'utf8');
  },
});
