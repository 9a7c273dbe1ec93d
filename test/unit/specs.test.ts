import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import openrpcMetaSchema from '@open-rpc/meta-schema';
import { parse as parseYaml } from 'yaml';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json';
import SwaggerParser from '@apidevtools/swagger-parser';
import { SCHEMA_DIR, rawSchemaAt, validateRef } from '../../src/harness/schemas';
import { localSchemaResolver } from '../support/schemas';

const REPO = path.resolve(__dirname, '../..');
const SPEC_DIR = path.join(REPO, 'specs');
const OPENAPI_FILE = path.join(SPEC_DIR, 'tokenized-stocks.openapi.yaml');
const OPENRPC_FILE = path.join(SPEC_DIR, 'node-rpc.openrpc.json');

/**
 * swagger-parser runs in-process. The `$id`s of schemas/ live under a host that does not
 * exist: localSchemaResolver (test/support/schemas.ts) maps them to files, and http is
 * off so the test can never reach the network.
 */
const PARSER_OPTIONS = { resolve: { conformance: localSchemaResolver, http: false } } as unknown as SwaggerParser.Options;

async function attempt(f: () => Promise<unknown>): Promise<{ ok: boolean; error?: string }> {
  try {
    await f();
    return { ok: true };
  } catch (e) {
    return { ok: false, error: String((e as Error).message) };
  }
}

interface SwaggerOutcome {
  validate: { ok: boolean; error?: string };
  validateBroken: { ok: boolean; error?: string };
  dereferenced: { openapi: string; components: { schemas: Record<string, unknown> } };
}

async function runSwaggerParser(): Promise<SwaggerOutcome> {
  const broken = parseYaml(fs.readFileSync(OPENAPI_FILE, 'utf8')) as { info: { version?: string } };
  delete broken.info.version;
  return {
    validate: await attempt(() => SwaggerParser.validate(OPENAPI_FILE, PARSER_OPTIONS)),
    validateBroken: await attempt(() => SwaggerParser.validate(OPENAPI_FILE, broken as never, PARSER_OPTIONS)),
    dereferenced: (await SwaggerParser.dereference(OPENAPI_FILE, PARSER_OPTIONS)) as unknown as SwaggerOutcome['dereferenced'],
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function readJson(file: string): JsonObject {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject;
}

/** Every `$ref` value in a document, with the JSON path where it sits. */
function refsIn(node: unknown, at = ''): Array<{ at: string; ref: string }> {
  if (!node || typeof node !== 'object') return [];
  const out: Array<{ at: string; ref: string }> = [];
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') out.push({ at, ref: v });
    else out.push(...refsIn(v, `${at}/${k}`));
  }
  return out;
}

/** Drop the identity keywords, which say where a schema lives, not what it says. */
function withoutIdentity(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIdentity);
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k]) => k !== '$id' && k !== '$schema')
        .map(([k, v]) => [k, withoutIdentity(v)]),
    );
  }
  return node;
}

/**
 * A small, independent dereferencer over schemas/: replaces each `$ref` by its target (file
 * relative to schemas/, or '#...' within the same file) with the `$ref`'s siblings laid over
 * it, as JSON Schema 2020-12 allows and as the OpenAPI parser merges them.
 */
function derefSchemaFile(node: unknown, file: string): unknown {
  if (Array.isArray(node)) return node.map((x) => derefSchemaFile(x, file));
  if (!node || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const siblings = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, derefSchemaFile(v, file)]));
  if (typeof $ref !== 'string') return siblings;
  const [refFile, fragment = ''] = $ref.split('#', 2) as [string, string?];
  const targetFile = refFile === '' ? file : refFile;
  const target = rawSchemaAt(`${targetFile}#${fragment}`);
  return { ...(derefSchemaFile(target, targetFile) as object), ...siblings };
}

describe('specs/tokenized-stocks.openapi.yaml (OpenAPI 3.1)', () => {
  const raw = parseYaml(fs.readFileSync(OPENAPI_FILE, 'utf8')) as JsonObject;
  let swagger: SwaggerOutcome;
  beforeAll(async () => {
    swagger = await runSwaggerParser();
  });

  test('swagger-parser validate() passes (structure and OAS 3.1 schema)', () => {
    expect(swagger.validate).toEqual({ ok: true });
    expect(swagger.dereferenced.openapi).toBe('3.1.0');
  });

  test('the validation is not vacuous: a document without info.version fails', () => {
    expect(swagger.validateBroken.ok).toBe(false);
  });

  test('header: OpenAPI 3.1.0, document version 1.0.0 (spec 9.1)', () => {
    expect(raw.openapi).toBe('3.1.0');
    expect((raw.info as JsonObject).version).toBe('1.0.0');
  });

  test('one path, one operation: GET /v1/tokenized-stocks listTokenizedStocks (spec 4.1)', () => {
    const paths = raw.paths as JsonObject;
    expect(Object.keys(paths)).toEqual(['/v1/tokenized-stocks']);
    const item = paths['/v1/tokenized-stocks'] as JsonObject;
    expect(Object.keys(item)).toEqual(['get']);
    const op = item.get as JsonObject;
    expect(op.operationId).toBe('listTokenizedStocks');
    expect(op.parameters ?? []).toEqual([]);
    expect(op.requestBody).toBeUndefined();
    expect(item.parameters).toBeUndefined();
  });

  test('no security scheme applies (spec 5.1)', () => {
    const op = ((raw.paths as JsonObject)['/v1/tokenized-stocks'] as JsonObject).get as JsonObject;
    expect(op.security).toEqual([]);
    expect(raw.security).toEqual([]);
    expect((raw.components as JsonObject).securitySchemes).toBeUndefined();
  });

  test('200 is application/json list response; default is application/json rpcStatus (spec 4.1, 7)', () => {
    const op = ((raw.paths as JsonObject)['/v1/tokenized-stocks'] as JsonObject).get as JsonObject;
    const responses = op.responses as Record<string, JsonObject>;
    expect(Object.keys(responses).sort()).toEqual(['200', 'default']);
    const schemaRef = (r: JsonObject): Json => (((r.content as JsonObject)['application/json'] as JsonObject).schema as JsonObject).$ref;
    expect(Object.keys(responses['200']!.content as JsonObject)).toEqual(['application/json']);
    expect(Object.keys(responses.default!.content as JsonObject)).toEqual(['application/json']);
    expect(schemaRef(responses['200']!)).toBe('#/components/schemas/v1ListTokenizedEquityTokensResponse');
    expect(schemaRef(responses.default!)).toBe('#/components/schemas/rpcStatus');
  });

  const COMPONENT_FILES: Record<string, string> = {
    v1ListTokenizedEquityTokensResponse: 'list.json',
    v1TokenizedEquityToken: 'token.json',
    rpcStatus: 'rpc-status.json',
    protobufAny: 'protobuf-any.json',
  };

  test('component schemas are bare $refs into ../schemas/ (no shape is written in the YAML)', () => {
    const schemas = (raw.components as JsonObject).schemas as JsonObject;
    expect(Object.keys(schemas).sort()).toEqual(Object.keys(COMPONENT_FILES).sort());
    for (const [name, file] of Object.entries(COMPONENT_FILES)) {
      expect(schemas[name]).toEqual({ $ref: `../schemas/${file}` });
    }
    // The only other refs are the responses' pointers to those components.
    for (const { ref } of refsIn(raw)) {
      expect(ref.startsWith('#/components/schemas/') || ref.startsWith('../schemas/')).toBe(true);
    }
  });

  test('one source of truth: dereferenced components deep-equal the schemas/ files (modulo $id/$schema)', () => {
    const api = swagger.dereferenced;
    for (const [name, file] of Object.entries(COMPONENT_FILES)) {
      const fromSpec = withoutIdentity(api.components.schemas[name]);
      const fromFile = withoutIdentity(derefSchemaFile(readJson(path.join(SCHEMA_DIR, file)), file));
      expect(fromSpec).toEqual(fromFile);
    }
    // And the file is what the harness validates with (spot check through the spec's component).
    const token = api.components.schemas.v1TokenizedEquityToken as { required: string[] };
    expect(token.required).toHaveLength(11);
  });
});

describe('specs/node-rpc.openrpc.json (OpenRPC)', () => {
  const doc = readJson(OPENRPC_FILE);
  type ContentDescriptor = { name: string; required?: boolean; schema: Record<string, unknown> };
  type Method = {
    name: string;
    paramStructure?: string;
    params: ContentDescriptor[];
    result: ContentDescriptor;
    errors?: Array<{ $ref?: string; code?: number; message?: string }>;
    examples?: Array<{ params: Array<{ name: string; value: unknown }>; result: { name: string; value: unknown } }>;
  };
  const methods = doc.methods as unknown as Method[];
  const method = (name: string): Method => {
    const m = methods.find((x) => x.name === name);
    if (!m) throw new Error(`no method ${name}`);
    return m;
  };

  test('validates against @open-rpc/meta-schema', () => {
    // The meta-schema's JSON Schema parts point at https://meta.json-schema.tools, which is
    // not shipped with @open-rpc/meta-schema. A stand-in is built from Ajv's bundled draft-07
    // meta-schema (that vocabulary is a draft-07 dialect), with the one pointer the
    // referenceObject uses (#/definitions/JSONSchemaObject/properties/$ref).
    // It is referenced both with and without the trailing slash, which Ajv keeps apart.
    const standIn = (id: string): object => ({
      ...draft07MetaSchema,
      $id: id,
      definitions: {
        ...draft07MetaSchema.definitions,
        JSONSchemaObject: { type: 'object', properties: { $ref: { type: 'string', format: 'uri-reference' } } },
      },
    });
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addMetaSchema(standIn('https://meta.json-schema.tools/'));
    ajv.addSchema(standIn('https://meta.json-schema.tools'));
    const validateDoc = ajv.compile(openrpcMetaSchema as object);
    const ok = validateDoc(doc);
    expect(validateDoc.errors ?? []).toEqual([]);
    expect(ok).toBe(true);

    // The validator is not vacuous: a broken document fails.
    expect(validateDoc({ ...doc, openrpc: '9.9.9' })).toBe(false);
    expect(validateDoc({ ...doc, methods: [{ name: 'eth_getCode' }] })).toBe(false);
    expect(validateDoc({ ...doc, methods: [{ ...methods[0], result: { name: 'x', schema: { $ref: 7 } } }] })).toBe(false);
  });

  test('the methods are exactly the four of the spec (1.3, 4.3-4.6)', () => {
    expect(methods.map((m) => m.name).sort()).toEqual(['eth_estimateGas', 'eth_getBlockReceipts', 'eth_getCode', 'eth_getTransactionCount'].sort());
    for (const m of methods) expect(m.paramStructure).toBe('by-position');
  });

  test('params by position, names and required flags as in the spec tables', () => {
    const shape = (m: Method): Array<[string, boolean, unknown]> => m.params.map((p) => [p.name, p.required === true, p.schema.$ref]);
    const BLOCK = '../schemas/hex.json#/$defs/blockParam';
    const ADDRESS = '../schemas/hex.json#/$defs/address';
    expect(shape(method('eth_getBlockReceipts'))).toEqual([['block', true, BLOCK]]);
    expect(shape(method('eth_estimateGas'))).toEqual([
      ['transaction', true, '../schemas/transaction.json'],
      ['block', false, BLOCK],
    ]);
    expect(method('eth_estimateGas').params[1]!.schema.default).toBe('latest');
    expect(shape(method('eth_getTransactionCount'))).toEqual([
      ['address', true, ADDRESS],
      ['block', true, BLOCK],
    ]);
    expect(shape(method('eth_getCode'))).toEqual([
      ['address', true, ADDRESS],
      ['block', true, BLOCK],
    ]);
  });

  test('results: receipts array, gas quantity, nonce quantity, code bytes', () => {
    expect(method('eth_getBlockReceipts').result.schema).toEqual({
      type: 'array',
      items: { $ref: '../schemas/receipt.json' },
    });
    expect(method('eth_estimateGas').result.schema).toEqual({ $ref: '../schemas/hex.json#/$defs/quantity' });
    expect(method('eth_getTransactionCount').result.schema).toEqual({ $ref: '../schemas/hex.json#/$defs/quantity' });
    expect(method('eth_getCode').result.schema).toEqual({ $ref: '../schemas/hex.json#/$defs/bytes' });
  });

  test('eth_estimateGas declares -32000 "execution reverted" (4.4, 7)', () => {
    const errors = method('eth_estimateGas').errors ?? [];
    const resolved = errors.map((e) => {
      if (!e.$ref) return e;
      const name = e.$ref.replace('#/components/errors/', '');
      return ((doc.components as JsonObject).errors as JsonObject)[name] as { code: number; message: string };
    });
    expect(resolved).toContainEqual({ code: -32000, message: 'execution reverted' });
  });

  test('eth_getBlockReceipts records the 403 refusal on public nodes (4.3)', () => {
    expect((method('eth_getBlockReceipts') as unknown as Record<string, unknown>)['x-public-node-http-status']).toBe(403);
  });

  test('every schema $ref points into schemas/ (or the document) and resolves', () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThanOrEqual(10);
    for (const { ref } of refs) {
      if (ref.startsWith('#/')) continue;
      expect(ref.startsWith('../schemas/')).toBe(true);
      const target = ref.slice('../schemas/'.length);
      expect(() => rawSchemaAt(target)).not.toThrow();
      expect(() => validateRef(target, null)).not.toThrow();
    }
  });

  test('examples agree with the schemas they illustrate', () => {
    for (const m of methods) {
      for (const ex of m.examples ?? []) {
        ex.params.forEach((p, i) => {
          expect(p.name).toBe(m.params[i]!.name);
          const ref = m.params[i]!.schema.$ref as string;
          expect(validateRef(ref.slice('../schemas/'.length), p.value).errors).toEqual([]);
        });
        const ref = m.result.schema.$ref as string;
        expect(validateRef(ref.slice('../schemas/'.length), ex.result.value).errors).toEqual([]);
      }
    }
    expect(method('eth_getCode').examples?.[0]?.result.value).toBe('0x');
  });
});
