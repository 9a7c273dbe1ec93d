/**
 * Where the list operation is in an API team's OpenAPI document (any server prefix, Swagger 2.0
 * or OpenAPI 3.x), and what it declares: its responses by status and media type, its security.
 * Observation only; suites/rest/openapi.ts judges.
 */
import { isRecord } from './json';

type Json = Record<string, unknown>;

export const LIST_OPERATION_PATH = '/v1/tokenized-stocks';

export interface FoundOperation {
  /** The path key as written in the document. */
  path: string;
  /** JSON pointer of the operation in the document. */
  pointer: string;
  operation: Json;
  /** A server path prefix the path was combined with ('' when none). */
  prefix: string;
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Path prefixes the document's servers (3.x) or basePath (2.0) put in front of every path. */
function serverPrefixes(doc: Json): string[] {
  const prefixes = new Set<string>(['']);
  if (typeof doc.basePath === 'string') prefixes.add(doc.basePath.replace(/\/+$/, ''));
  for (const s of Array.isArray(doc.servers) ? doc.servers : []) {
    // Server variables are placeholders: only a literal URL's path can be combined.
    if (!isRecord(s) || typeof s.url !== 'string' || s.url.includes('{')) continue;
    try {
      prefixes.add(new URL(s.url, 'http://relative.invalid').pathname.replace(/\/+$/, ''));
    } catch {
      // An unparseable server URL adds no prefix.
    }
  }
  return [...prefixes];
}

/** GET /v1/tokenized-stocks in the document, under a server prefix if need be. */
export function findListOperation(doc: Json): FoundOperation | undefined {
  const paths = isRecord(doc.paths) ? doc.paths : {};
  for (const prefix of serverPrefixes(doc)) {
    for (const [p, item] of Object.entries(paths)) {
      if (`${prefix}${p}`.replace(/\/+$/, '') !== LIST_OPERATION_PATH || !isRecord(item) || !isRecord(item.get)) continue;
      return { path: p, pointer: `/paths/${escapePointer(p)}/get`, operation: item.get, prefix };
    }
  }
  return undefined;
}

export interface DeclaredResponse {
  /** '200', 'default', '404', '4XX', … */
  status: string;
  /** Media types the response declares (3.x content, or 2.0 produces when it has a schema). */
  mediaTypes: string[];
  /** The schema of its JSON media type (dereferenced), when it has one. */
  schema?: unknown;
  /** JSON pointer of that schema in the (bundled) document, for validating against it. */
  schemaPointer?: string;
}

const JSON_MEDIA = /^application\/json\s*(;.*)?$/i;

/** The responses an operation declares, each with its JSON schema if any. */
export function responsesOf(doc: Json, found: FoundOperation): DeclaredResponse[] {
  const responses = isRecord(found.operation.responses) ? found.operation.responses : {};
  const swagger2 = typeof doc.swagger === 'string';
  const produces = Array.isArray(found.operation.produces) ? found.operation.produces : Array.isArray(doc.produces) ? doc.produces : ['application/json'];
  return Object.entries(responses).map(([status, r]) => {
    const at = `${found.pointer}/responses/${escapePointer(status)}`;
    if (!isRecord(r)) return { status, mediaTypes: [] };
    if (swagger2) {
      if (r.schema === undefined) return { status, mediaTypes: [] };
      const mediaTypes = produces.filter((m): m is string => typeof m === 'string');
      return { status, mediaTypes, ...(mediaTypes.some((m) => JSON_MEDIA.test(m)) ? { schema: r.schema, schemaPointer: `${at}/schema` } : {}) };
    }
    const content = isRecord(r.content) ? r.content : {};
    const mediaTypes = Object.keys(content);
    const json = mediaTypes.find((m) => JSON_MEDIA.test(m));
    const media = json ? content[json] : undefined;
    return {
      status,
      mediaTypes,
      ...(isRecord(media) && media.schema !== undefined ? { schema: media.schema, schemaPointer: `${at}/content/${escapePointer(json!)}/schema` } : {}),
    };
  });
}

/** The security requirements in force for an operation (its own, else the document's). */
export function securityOf(doc: Json, found: FoundOperation): unknown[] {
  const own = found.operation.security;
  if (Array.isArray(own)) return own;
  return Array.isArray(doc.security) ? doc.security : [];
}
