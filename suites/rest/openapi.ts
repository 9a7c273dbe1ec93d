/**
 * The API team's own published OpenAPI document (--openapi <file|url>), judged against the spec:
 * valid (swagger-parser), the list operation of 4.1 with the list shape of 2.2, every field of
 * 2.1 with a compatible type, error responses of the rpcStatus shape (2.3, 7), no security scheme
 * (5.1), and, with --base-url, the live list validated against the document as well as against
 * the suite's own schemas. The spec's shapes come from schemas/ (list.json, token.json,
 * rpc-status.json, protobuf-any.json), never a second field table.
 *
 * What the spec does not rule on is advisory: a looser or narrower format, an undeclared type, the
 * document's version string and operationId, and the live answer disagreeing with the document
 * where it still matches the spec. Without --base-url the document is judged alone.
 */
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, inconclusive, skip } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { getList, LIST_PATH, listWithDefaults } from '../../src/harness/records';
import { validate } from '../../src/harness/schemas';
import { analyse } from '../../src/harness/openapi-document';
import type { Analysis } from '../../src/harness/openapi-analysis';
import {
  compareWithSpec,
  findListOperation,
  listItemsSchema,
  responsesOf,
  securityOf,
  validateWithDocument,
  type DeclaredResponse,
  type Finding,
  type FoundOperation,
} from '../../src/harness/openapi';

type Json = Record<string, unknown>;

/** The analysis of the document the run was given (read or fetched once, before the checks). */
async function documentOf(ctx: CheckContext<'openapi'>): Promise<Analysis> {
  const analysis = await analyse(ctx.openapi);
  if (analysis.unfinished) inconclusive(`${analysis.unfinished}: not judged`, { cause: 'limit' });
  return analysis;
}

/** The dereferenced document, for the checks that compare it; rest.openapi.valid judges what stops them. */
async function readableDocument(ctx: CheckContext<'openapi'>): Promise<{ analysis: Analysis; doc: Json }> {
  const analysis = await documentOf(ctx);
  if (analysis.parseError) inconclusive(`not compared: the document could not be read (${analysis.parseError}); see rest.openapi.valid`);
  if (analysis.refused) inconclusive(`not compared: the document was refused (${analysis.refused}); see rest.openapi.valid`);
  if (!analysis.dereferenced)
    inconclusive(`not compared: the document's $refs could not be resolved (${analysis.dereferenceError ?? 'unknown reason'}); see rest.openapi.valid`);
  if (analysis.invalid) ctx.note('the document does not validate (see rest.openapi.valid); compared as far as it reads');
  return { analysis, doc: analysis.dereferenced };
}

const NO_LIST_OPERATION = `not compared: the document has no GET ${LIST_PATH}; see rest.openapi.list-operation`;

async function listOperationOf(ctx: CheckContext<'openapi'>): Promise<{ analysis: Analysis; doc: Json; found: FoundOperation; responses: DeclaredResponse[] }> {
  const { analysis, doc } = await readableDocument(ctx);
  const found = findListOperation(doc);
  if (!found) inconclusive(NO_LIST_OPERATION);
  return { analysis, doc, found, responses: responsesOf(doc, found) };
}

/** The 200 JSON schema of the list operation; inconclusive when absent (list-operation fails then). */
function okSchemaOf(responses: DeclaredResponse[]): DeclaredResponse & { schema: unknown; schemaPointer: string } {
  const ok = responses.find((r) => r.status === '200');
  if (!ok?.schema || !ok.schemaPointer)
    inconclusive(`not compared: the document gives no application/json schema for the 200 answer of GET ${LIST_PATH}; see rest.openapi.list-operation`);
  return ok as DeclaredResponse & { schema: unknown; schemaPointer: string };
}

function failOn(findings: Finding[], what: string, violated?: readonly string[]): void {
  const bad = findings.filter((f) => f.severity === 'fail');
  if (bad.length === 0) return;
  fail(`${what}: ${bad.length} disagreement(s) with the spec: ${bad.map((f) => f.message).join(' | ')}`, {
    violated,
    expected: Object.fromEntries(bad.map((f) => [f.path, f.expected ?? null])),
    actual: Object.fromEntries(bad.map((f) => [f.path, f.actual ?? null])),
  });
}

function noteAll(ctx: CheckContext, findings: Finding[], severities: Finding['severity'][]): void {
  for (const f of findings) if (severities.includes(f.severity)) ctx.note(f.message);
}

/** The findings about the token records, which rest.openapi.token-fields judges, are not the envelope's. */
const isRecordFinding = (f: Finding) => f.path.startsWith('tokens[].');

export const documentValid = check(
  {
    id: 'rest.openapi.valid',
    statements: ['9.1.2'],
    level: 'required',
    needs: ['openapi'],
    title: 'the published description document is a valid OpenAPI document',
  },
  async (ctx) => {
    const analysis = await documentOf(ctx);
    if (analysis.parseError)
      fail(`the document cannot be read: ${analysis.parseError}`, { expected: 'an OpenAPI document in JSON or YAML', actual: analysis.parseError });
    if (analysis.refused)
      fail(`the document is refused: ${analysis.refused}`, { expected: 'a self-contained OpenAPI document of bounded size', actual: analysis.refused });
    if (analysis.invalid) {
      const lines = analysis.invalid
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      fail(`swagger-parser rejects the document: ${lines.slice(0, 8).join(' | ')}${lines.length > 8 ? ` | … ${lines.length - 8} more` : ''}`, {
        expected: `a valid OpenAPI ${analysis.version ?? '2.0/3.0/3.1'} document`,
        actual: lines.slice(0, 20),
      });
    }
    const paths = Object.keys((analysis.dereferenced?.paths as Json | undefined) ?? {});
    ctx.note(`${analysis.version?.startsWith('2') ? 'Swagger' : 'OpenAPI'} ${analysis.version ?? '?'}, ${paths.length} path(s)`);
  },
);

export const documentVersion = check(
  {
    id: 'rest.openapi.version',
    statements: ['9.1.2'],
    level: 'advisory',
    needs: ['openapi'],
    title: 'the document carries version 1.0.0 (info.version)',
  },
  async (ctx) => {
    const { doc } = await readableDocument(ctx);
    const version = (doc.info as Json | undefined)?.version;
    if (version !== '1.0.0') {
      const hint = version === 'version not set' ? "protoc-gen-openapiv2's default: set info.version with the openapiv2_swagger option" : undefined;
      fail(`info.version is ${show(version)}, not "1.0.0"`, { expected: '1.0.0', actual: version ?? null, hint });
    }
  },
);

export const listOperation = check(
  {
    id: 'rest.openapi.list-operation',
    statements: ['4.1.1', '4.1.r4', '2.2.1'],
    level: 'required',
    needs: ['openapi'],
    title: `the document has GET ${LIST_PATH} answering 200 with the list shape`,
  },
  async (ctx) => {
    const { doc } = await readableDocument(ctx);
    const found = findListOperation(doc);
    if (!found) {
      const paths = Object.keys((doc.paths as Json | undefined) ?? {});
      fail(`the document has no GET ${LIST_PATH}`, { violated: ['4.1.1'], expected: `paths["${LIST_PATH}"].get`, actual: paths.slice(0, 20) });
    }
    if (found.prefix) ctx.note(`found as ${found.path} under the server path ${found.prefix}`);
    const parameters = (Array.isArray(found.operation.parameters) ? found.operation.parameters : []) as Json[];
    const required = parameters.filter((p) => p?.required === true);
    if (required.length) {
      fail(
        `GET ${LIST_PATH} declares required parameter(s) ${required.map((p) => `${String(p.in)} ${String(p.name)}`).join(', ')}; 4.1 defines none, so a plain GET must be a complete request`,
        {
          violated: ['4.1.r4'],
          expected: 'no required parameter',
          actual: required.map((p) => ({ name: p.name, in: p.in })),
        },
      );
    }
    if (parameters.length)
      ctx.note(
        `optional parameter(s) beyond the spec's (none defined; pagination and filtering not shown): ${parameters.map((p) => String(p?.name)).join(', ')}`,
      );
    const responses = responsesOf(doc, found);
    const ok = responses.find((r) => r.status === '200');
    if (!ok) fail(`GET ${LIST_PATH} declares no 200 response`, { violated: ['4.1.1'], expected: '200', actual: responses.map((r) => r.status) });
    if (!ok.schema) {
      fail(`the 200 answer of GET ${LIST_PATH} has no application/json schema`, {
        violated: ['4.1.1'],
        expected: 'content application/json with a schema',
        actual: ok.mediaTypes.length ? ok.mediaTypes : 'no content',
      });
    }
    const findings = compareWithSpec(ok.schema, 'list.json').filter((f) => !isRecordFinding(f));
    failOn(findings, `the 200 schema of GET ${LIST_PATH}`, ['2.2.1']);
    noteAll(ctx, findings, ['note']);
  },
);

export const operationId = check(
  {
    id: 'rest.openapi.operation-id',
    statements: ['4.1.r3'],
    level: 'advisory',
    needs: ['openapi'],
    title: `GET ${LIST_PATH} has the operation id listTokenizedStocks`,
  },
  async (ctx) => {
    const { found } = await listOperationOf(ctx);
    const id = found.operation.operationId;
    if (id !== 'listTokenizedStocks') {
      const hint =
        typeof id === 'string' && /_ListTokenizedStocks$/.test(id)
          ? 'protoc-gen-openapiv2 writes Service_Method; generated clients will name the call differently'
          : undefined;
      fail(`operationId is ${show(id)}, not "listTokenizedStocks"`, { expected: 'listTokenizedStocks', actual: id ?? null, hint });
    }
  },
);

export const noSecurity = check(
  {
    id: 'rest.openapi.no-security',
    statements: ['5.1.1'],
    level: 'required',
    needs: ['openapi'],
    title: `the document requires no security scheme for GET ${LIST_PATH}`,
  },
  async (ctx) => {
    const { doc, found } = await listOperationOf(ctx);
    const security = securityOf(doc, found);
    const optional = security.some((req) => typeof req === 'object' && req !== null && Object.keys(req).length === 0);
    if (security.length > 0 && !optional) {
      fail(
        `the document requires ${security.map((r) => Object.keys(r as Json).join('+')).join(' or ')} for GET ${LIST_PATH}; 5.1: no API key, no security scheme applies`,
        {
          expected: 'security: [] (or a requirement list containing {})',
          actual: security,
        },
      );
    }
  },
);

export const tokenFields = check(
  {
    id: 'rest.openapi.token-fields',
    statements: ['2.1.1'],
    level: 'required',
    needs: ['openapi'],
    title: "the document's records have every field of 2.1 with a compatible type",
  },
  async (ctx) => {
    const { responses } = await listOperationOf(ctx);
    const ok = okSchemaOf(responses);
    const record = listItemsSchema(ok.schema);
    if (!record) inconclusive(`not compared: the 200 schema has no "tokens" array of objects; see rest.openapi.list-operation`);
    const findings = compareWithSpec(record, 'token.json');
    failOn(findings, 'the record schema of the 200 answer');
    noteAll(ctx, findings, ['note']);
  },
);

/** The error answers the document declares for the list operation, each compared with rpc-status.json. */
function errorFindings(responses: DeclaredResponse[]): { declared: DeclaredResponse[]; problems: Finding[]; notes: string[] } {
  const declared = responses.filter((r) => r.status !== '200');
  const problems: Finding[] = [];
  const notes: string[] = [];
  for (const r of declared) {
    const at = `responses.${r.status}`;
    if (r.schema !== undefined) {
      for (const f of compareWithSpec(r.schema, 'rpc-status.json')) problems.push({ ...f, path: `${at}: ${f.path}`, message: `${at}: ${f.message}` });
    } else if (r.mediaTypes.length > 0) {
      problems.push({
        path: at,
        severity: 'fail',
        message: `${at}: declared as ${r.mediaTypes.join(', ')}, not application/json`,
        expected: 'application/json rpcStatus',
        actual: r.mediaTypes,
      });
    } else {
      notes.push(`${at}: declared without a body schema (nothing to compare)`);
    }
  }
  return { declared, problems, notes };
}

export const errorShape = check(
  {
    id: 'rest.openapi.error-shape',
    statements: ['4.1.2', '7.1', '2.3.1'],
    level: 'required',
    needs: ['openapi'],
    title: 'every error response the document declares is an application/json rpcStatus',
  },
  async (ctx) => {
    const { responses } = await listOperationOf(ctx);
    const { declared, problems, notes } = errorFindings(responses);
    if (declared.length === 0)
      skip(`the document declares no response but 200 for GET ${LIST_PATH} (e.g. generated with disable_default_errors=true): no error shape to compare`);
    for (const n of notes) ctx.note(n);
    failOn(problems, `the error responses of GET ${LIST_PATH}`);
    noteAll(ctx, problems, ['note']);
    ctx.note(`compared: ${declared.map((r) => r.status).join(', ')}`);
  },
);

export const formats = check(
  {
    id: 'rest.openapi.formats',
    statements: ['2.1.1', '2.3.1'],
    level: 'advisory',
    needs: ['openapi'],
    title: "the document gives each field the spec's format, a type, and no null",
  },
  async (ctx) => {
    const { responses } = await listOperationOf(ctx);
    const ok = okSchemaOf(responses);
    const findings = [...compareWithSpec(ok.schema, 'list.json'), ...errorFindings(responses).problems];
    const advisory = findings.filter((f) => f.severity === 'advisory');
    if (advisory.length) {
      fail(`${advisory.length} field(s) stated less precisely than the spec: ${advisory.map((f) => f.message).join(' | ')}`, {
        expected: Object.fromEntries(advisory.map((f) => [f.path, f.expected ?? null])),
        actual: Object.fromEntries(advisory.map((f) => [f.path, f.actual ?? null])),
      });
    }
  },
);

export const liveList = check(
  {
    id: 'rest.openapi.live-list',
    statements: ['2.2.1', '4.1.1'],
    level: 'advisory',
    // openapi first: without a document, that is the reason to give.
    needs: ['openapi', 'rest'],
    title: "the live 200 answer also validates against the document's own 200 schema",
  },
  async (ctx) => {
    const { analysis, responses } = await listOperationOf(ctx);
    const ok = okSchemaOf(responses);
    const res = await getList(ctx);
    if (res.status !== 200 || res.json === undefined)
      inconclusive(
        `GET ${LIST_PATH} answered HTTP ${res.status}${res.json === undefined ? ' without a JSON body' : ''}: nothing to validate (rest.list.* judge the answer)`,
      );
    const byDocument = validateWithDocument(analysis, ok.schemaPointer, res.json);
    if ('cannot' in byDocument) inconclusive(`not validated: ${byDocument.cannot}`);
    // Judged as rest.list.schema judges it: protobuf JSON leaves out default values (an empty
    // paused_features, a 0, or `tokens` itself when no record is exposed), so absent fields are
    // read as their proto3 defaults before the spec's schema (whose `required` lists every field) is applied.
    const bySuite = validate('list', listWithDefaults(res.json));
    if (!byDocument.valid) {
      fail(
        `the live list does not validate against the document's own 200 schema: ${byDocument.errors.slice(0, 5).join('; ')}. Against the suite's schemas it is ${bySuite.valid ? 'valid: the document says more than the spec, or says it wrongly' : `invalid too (${bySuite.errors.slice(0, 3).join('; ')}; see rest.list.schema)`}`,
        { expected: `the document's schema at #${ok.schemaPointer}`, actual: byDocument.errors.slice(0, 20) },
      );
    }
    if (!bySuite.valid) {
      fail(
        `the live list validates against the document but not against the spec's list schema: ${bySuite.errors.slice(0, 5).join('; ')} (the document admits what 2.1/2.2 do not; see rest.list.schema)`,
        {
          expected: 'schema list (schemas/list.json)',
          actual: bySuite.errors.slice(0, 20),
        },
      );
    }
    const count = Array.isArray((res.json as Json).tokens) ? ((res.json as Json).tokens as unknown[]).length : 0;
    ctx.note(`${count} record(s) valid against both the document and the suite's schemas${count === 0 ? ' (an empty list validates trivially)' : ''}`);
  },
);

export const openapiChecks: Check[] = [documentValid, documentVersion, listOperation, operationId, noSecurity, tokenFields, errorShape, formats, liveList];
