/**
 * GET {base_url}/v1/tokenized-stocks as a whole (spec 4.1, 2.2, 5.1): status, media type, body
 * shape, and that it answers without credentials. Number and order of records are never
 * assumed (4.1 rule 2); an empty list is a valid list. rest.list.status-200 and
 * rest.list.tokens-array are the roots the other list checks are blocked by (records.ts); the
 * whole-body schema check is blocked by the field checks whose rules its records break.
 */
import { check } from '../../src/harness/check';
import { blocked, fail } from '../../src/harness/verdict';
import { brokenFieldChecks } from './fields';
import { errorAnswerProblem, errorBodyProblem } from './errors';
import { expectJsonMediaType } from '../../src/harness/expect';
import { validate } from '../../src/harness/schemas';
import { misnamedFields, misnamedWords, USE_PROTO_NAMES_HINT } from '../../src/harness/field-names';
import {
  expectListStatus,
  getList,
  getListOrBlocked,
  LIST_PATH,
  listLength,
  listOf,
  listWithDefaults,
  noteSample,
  omitsTokens,
  tokensOf,
} from '../../src/harness/records';

/** The check that states a list demanding credentials (5.1), by which the status check is then blocked. */
const listNoCredentialsId = 'rest.list.no-credentials';

export const listStatus = check(
  {
    id: 'rest.list.status-200',
    // 4.1.2 and 7.1 too: the list's own error answer (an unexpected failure) is an rpcStatus (2.3.1).
    statements: ['4.1.1', '4.1.2', '7.1', '2.3.1'],
    level: 'required',
    needs: ['rest'],
    title: `GET ${LIST_PATH} answers HTTP 200`,
  },
  async (ctx) => {
    const res = await getList(ctx);
    // Credentials demanded: the list is public (5.1), a rule rest.list.no-credentials states once.
    if (res.status === 401 || res.status === 403)
      blocked(listNoCredentialsId, `GET ${LIST_PATH}: HTTP ${res.status}: credentials demanded of a public list`, {
        violated: ['5.1.1'],
        expected: 200,
        actual: res.status,
      });
    if (res.status !== 200) {
      // The failure answered in place of the list is an unexpected failure of the REST list (7):
      // its body is an application/json rpcStatus (4.1 "any other status"), or that is broken too.
      const problem = errorAnswerProblem(res);
      // The body itself not an rpcStatus breaks 2.3's shape too (a wrong media type alone does not).
      const body = errorBodyProblem(res) !== undefined;
      fail(
        `GET ${LIST_PATH}: expected HTTP 200, got ${res.status}${problem ? `; and the error answer is not an application/json rpcStatus: ${problem}` : ''}`,
        {
          violated: problem ? ['4.1.1', '4.1.2', '7.1', ...(body ? ['2.3.1'] : [])] : ['4.1.1'],
          expected: 200,
          actual: res.status,
        },
      );
    }
  },
);

export const listContentType = check(
  {
    id: 'rest.list.content-type',
    statements: ['4.1.1'],
    level: 'required',
    needs: ['rest'],
    title: `the 200 answer of GET ${LIST_PATH} is application/json`,
  },
  async (ctx) => {
    const res = await getListOrBlocked(ctx);
    expectListStatus(res, `GET ${LIST_PATH} (the media type of a 200 answer cannot be judged)`);
    expectJsonMediaType(res, `GET ${LIST_PATH}`);
  },
);

export const listEnvelope = check(
  {
    id: 'rest.list.tokens-array',
    // 4.1.1 too: a 200 body that is not JSON is this check's to state (records.ts, LIST_ROOT.envelope).
    statements: ['2.2.1', '4.1.1'],
    level: 'required',
    needs: ['rest'],
    title: 'the 200 body is an object whose "tokens" member is an array',
  },
  async (ctx) => {
    const res = await getListOrBlocked(ctx);
    const tokens = listOf(res, `GET ${LIST_PATH}`);
    noteSample(ctx, tokens);
    // grpc-gateway leaves an empty repeated field out: {} is the proto3 JSON of an empty list.
    if (omitsTokens(res.json)) ctx.note('the body has no "tokens" member: read as the proto3 default, an empty list (no record exposed)');
    ctx.note(`${listLength(tokens)} record(s) listed`);
  },
);

/** AIP-158's page token, in proto names and in grpc-gateway's default camelCase. */
const PAGE_TOKEN_FIELDS = ['next_page_token', 'nextPageToken'] as const;

export const listAllRecords = check(
  {
    id: 'rest.list.all-records',
    statements: ['4.1.4', '2.2.1'],
    level: 'required',
    needs: ['rest'],
    title: 'the 200 body holds every record: it names no further page',
  },
  async (ctx) => {
    const res = await getListOrBlocked(ctx);
    const tokens = listOf(res, `GET ${LIST_PATH}`);
    const body = res.json as Record<string, unknown>;
    // 4.1 defines no query parameter, so a page a token names cannot be fetched: the answer the
    // spec defines is the whole list (2.2: the records exposed). An empty token is AIP-158's "last page".
    for (const field of PAGE_TOKEN_FIELDS) {
      const token = body[field];
      if (typeof token === 'string' && token !== '')
        fail(
          `GET ${LIST_PATH} answered ${listLength(tokens)} record(s) and a non-empty "${field}": the list is paginated, and 4.1 defines no request parameter to fetch the other pages with, so the records it names cannot be reached; the 200 answer must hold every record exposed (4.1, 2.2)`,
          { violated: ['4.1.4'], expected: `every record in one answer ("${field}" empty or absent)`, actual: { records: listLength(tokens), [field]: token } },
        );
    }
    ctx.note(`${listLength(tokens)} record(s), and no token naming a further page`);
  },
);

export const listSchema = check(
  {
    id: 'rest.list.schema',
    statements: ['2.2.1', '2.1.1'],
    level: 'required',
    needs: ['rest'],
    title: 'the 200 body matches the list schema v1ListTokenizedEquityTokensResponse',
  },
  async (ctx) => {
    const res = await getListOrBlocked(ctx);
    expectListStatus(res, `GET ${LIST_PATH}`);
    const tokens = tokensOf(res, `GET ${LIST_PATH}`);
    noteSample(ctx, tokens);
    // Fields under protojson's lowerCamelCase names are one fault of the marshaler, stated here once with its fix.
    const misnamed = misnamedFields(tokens);
    if (misnamed.length > 0) {
      fail(`the records name fields protojson's way, not as the 2.1 table does: ${misnamedWords(misnamed)}`, {
        violated: ['2.1.1'],
        expected: misnamed.map((m) => m.field),
        actual: misnamed.map((m) => m.name),
        hint: USE_PROTO_NAMES_HINT,
      });
    }
    // Protobuf JSON leaves out default values: the records are validated as the gateway meant them.
    const verdict = validate('list', listWithDefaults(res.json));
    if (verdict.valid) return;
    // The problems, not the body: a list of thousands of records would be the whole report.
    const problems = `${verdict.errors.length + (verdict.omitted ?? 0)} problem(s): ${verdict.errors.slice(0, 5).join('; ')}`;
    // A record's schema is its fields' sub-schemas, each judged by its own field check: the
    // field check owns that failure, and this one names it as its cause instead of failing again.
    const owners = brokenFieldChecks(tokens);
    if (owners.length > 0) {
      blocked(owners[0]!, `the records break the field rules judged by ${owners.join(', ')}: ${problems}`, {
        violated: ['2.1.1'],
        expected: 'schema list',
        actual: verdict.errors.slice(0, 50),
      });
    }
    fail(`the body of GET ${LIST_PATH} (absent fields read as their proto3 defaults) does not match schema "list": ${problems}`, {
      violated: ['2.1.1'],
      expected: 'schema list',
      actual: verdict.errors.slice(0, 50),
    });
  },
);

export const listNoCredentials = check(
  {
    id: 'rest.list.no-credentials',
    statements: ['5.1.1'],
    level: 'required',
    needs: ['rest'],
    title: `GET ${LIST_PATH} succeeds without any API key or configured header`,
  },
  async (ctx) => {
    // Sent with none of the run's --header/--rest-header values (only Accept: application/json).
    const res = await getListOrBlocked(ctx, true);
    const what = `GET ${LIST_PATH} without configured headers`;
    // 401/403 ask for credentials: this rule's own evidence, whatever else the list does.
    if (res.status === 401 || res.status === 403)
      fail(`${what}: expected HTTP 200, got ${res.status} (credentials demanded)`, { expected: 200, actual: res.status });
    if (res.status !== 200) {
      // Another error is this rule's only when the list is served with the configured headers.
      const configured = await getListOrBlocked(ctx);
      if (configured.status === 200)
        fail(`${what}: expected HTTP 200, got ${res.status}, while the same GET with the configured headers answers 200`, {
          expected: 200,
          actual: res.status,
        });
      expectListStatus(res, what);
    }
    // A 200 that is not the list (e.g. a login page) is not a success either.
    const tokens = tokensOf(res, what);
    ctx.note(`answered 200 with ${listLength(tokens)} record(s) and no configured header sent`);
  },
);

export const endpointChecks = [listStatus, listContentType, listEnvelope, listAllRecords, listSchema, listNoCredentials];
