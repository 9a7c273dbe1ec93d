/**
 * The work on an OpenAPI document's text that can be made arbitrarily expensive by the text
 * itself: parsing (JSON or YAML), measuring its references, and swagger-parser's validation,
 * dereferencing and bundling. It runs in a worker thread (see analyse() in ./openapi-document), so the
 * main thread stays free to handle signals and a document that exhausts time or memory kills
 * only its worker.
 *
 * Nothing leaves the document: a `$ref` that is not a fragment of the document itself (a file,
 * a URL, a relative path) is refused before any resolver runs, and swagger-parser's file and
 * http resolvers are off as well. References that fan out (a schema referring twice to one that
 * refers twice to the next, …) expand exponentially when dereferenced: the expanded size is
 * computed first over the reference graph, linear in the document, and a document past
 * MAX_EXPANDED_NODES is refused with that count instead of being expanded.
 */
import type SwaggerParser from '@apidevtools/swagger-parser';
import { isRecord, show } from './json';

type Json = Record<string, unknown>;

export interface Analysis {
  /** `2.0`, `3.0.3`, `3.1.0`, … as the document declares it (`swagger` or `openapi`). */
  version?: string;
  /** Not JSON or YAML, or not an object: nothing else could be read. */
  parseError?: string;
  /** Why the document was not expanded at all: an external reference, or an expansion past the limit. */
  refused?: string;
  /** swagger-parser's validate() message when the document is not a valid OpenAPI/Swagger document. */
  invalid?: string;
  /** The document with every $ref replaced by its target (may be circular); absent when that failed. */
  dereferenced?: Json;
  dereferenceError?: string;
  /** The document with its internal $refs kept: what Ajv validates with. */
  bundled?: Json;
  /** The analysis could not be finished within the suite's own limits (time, memory): nothing is judged. */
  unfinished?: string;
}

/**
 * Nodes (objects, arrays, values) the document may have once every $ref is replaced by its
 * target. Generated documents of real APIs expand to some thousands; swagger-parser handles a
 * million in a few seconds.
 */
const MAX_EXPANDED_NODES = 1_000_000;
/** JSON nested deeper than this is refused (no OpenAPI document needs it; recursion would). */
const MAX_DEPTH = 500;

// Never resolve outside the document: no file, no network, whatever the base.
const PARSER_OPTIONS = { resolve: { external: false, file: false, http: false } } as unknown as SwaggerParser.Options;

export async function analyseText(text: string, base: string): Promise<Analysis> {
  let parsed: unknown;
  try {
    parsed = /^\s*[{[]/.test(text) ? JSON.parse(text) : (require('yaml') as typeof import('yaml')).parse(text);
  } catch (err) {
    // The parsers' messages quote the text, which may be any file the user named (a secret):
    // only where it broke, never what is there.
    const at = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
    return { parseError: `not JSON or YAML (${text.length} characters${at ? `, unreadable at line ${at.line} column ${at.col}` : ''})` };
  }
  if (!isRecord(parsed)) return { parseError: `not an object (${kindOf(parsed)})` };
  const version = typeof parsed.openapi === 'string' ? parsed.openapi : typeof parsed.swagger === 'string' ? parsed.swagger : undefined;
  const out: Analysis = { ...(version ? { version } : {}) };
  const refused = refuseReferences(parsed);
  if (refused) return { ...out, refused };
  // swagger-parser mutates what it is given: each step gets its own copy.
  const attempt = async <T>(f: () => Promise<T>): Promise<{ value?: T; error?: string }> => {
    try {
      return { value: await f() };
    } catch (err) {
      return { error: String((err as Error).message ?? err).trim() };
    }
  };
  const SwaggerParser = require('@apidevtools/swagger-parser') as typeof import('@apidevtools/swagger-parser');
  const validated = await attempt(() => SwaggerParser.validate(base, structuredClone(parsed) as never, PARSER_OPTIONS));
  const dereferenced = await attempt(() => SwaggerParser.dereference(base, structuredClone(parsed) as never, PARSER_OPTIONS));
  const bundled = await attempt(() => SwaggerParser.bundle(base, structuredClone(parsed) as never, PARSER_OPTIONS));
  if (validated.error) out.invalid = validated.error;
  if (dereferenced.value) out.dereferenced = dereferenced.value as unknown as Json;
  else out.dereferenceError = dereferenced.error;
  if (bundled.value) out.bundled = bundled.value as unknown as Json;
  return out;
}

/** What a parsed value is, without any of its content: a type and a length. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length} item(s)`;
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  return `a ${typeof value}`;
}

function decodePointer(pointer: string): string[] | undefined {
  try {
    return pointer
      .split('/')
      .slice(1)
      .map((t) => decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~'));
  } catch {
    return undefined;
  }
}

/**
 * Why the document must not be expanded, or undefined: the first reference outside the
 * document, or the expanded size past MAX_EXPANDED_NODES. The size of a node is 1 plus its
 * members'; a $ref counts as its target's size, memoized per target (one pass over the
 * document however the references fan out). A reference back into a node being measured is a
 * cycle, which dereferencing turns into a shared object rather than an expansion: it counts 1.
 */
function refuseReferences(doc: Json): string | undefined {
  const sizes = new Map<unknown, number>();
  const measuring = new Set<unknown>();
  let problem: string | undefined;
  const target = (ref: string): unknown => {
    const tokens = decodePointer(ref.slice(1));
    let node: unknown = doc;
    for (const t of tokens ?? []) node = isRecord(node) || Array.isArray(node) ? (node as Json)[t] : undefined;
    return tokens ? node : undefined;
  };
  const size = (node: unknown, at: string, depth: number): number => {
    if (problem || node === null || typeof node !== 'object') return 1;
    if (depth > MAX_DEPTH) return (void (problem = `nested (or chained by $ref) deeper than ${MAX_DEPTH} levels at ${at.slice(0, 200)}`), 1);
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (measuring.has(node)) return 1;
    measuring.add(node);
    let n = 1;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      if (!ref.startsWith('#')) {
        problem = `it refers outside itself ("$ref": ${show(ref, 120)} at ${at.slice(0, 200) || '/'}): only references inside the document ("#/…") are followed; the suite reads no other file or URL`;
        return 1;
      }
      const to = target(ref);
      if (to !== undefined) n += size(to, ref.slice(1), depth + 1);
    }
    for (const [k, v] of Object.entries(node as Json)) {
      if (k !== '$ref') n += size(v, `${at}/${k}`, depth + 1);
      if (n > MAX_EXPANDED_NODES) break;
    }
    measuring.delete(node);
    sizes.set(node, n);
    if (n > MAX_EXPANDED_NODES && !problem) {
      problem = `its $refs expand it past ${MAX_EXPANDED_NODES.toLocaleString('en-US')} nodes (at ${at.slice(0, 200) || '/'}): references that fan out multiply at each level; it was not expanded`;
    }
    return n;
  };
  size(doc, '', 0);
  return problem;
}
