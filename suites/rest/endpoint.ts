/**
 * GET {base_url}/v1/tokenized-stocks as a whole (spec 4.1, 2.2, 5.1): status, media type, body
 * shape, and that it answers without credentials. Number and order of records are never
 * assumed (4.1 rule 2); an empty list is a valid list.
 */
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { expectJsonMediaType, expectSchema } from '../../src/harness/expect';
import { fetchList, getList, LIST_PATH, listOf } from '../../src/harness/records';

export const listStatus = check(
  {
    id: 'rest.list.status-200',
    section: '4.1',
    level: 'required',
    needs: ['rest'],
    title: `GET ${LIST_PATH} answers HTTP 200`,
  },
  async (ctx) => {
    const res = await getList(ctx);
    if (res.status !== 200) fail(`GET ${LIST_PATH}: expected HTTP 200, got ${res.status}`, { expected: 200, actual: res.status });
  },
);

export const listContentType = check(
  {
    id: 'rest.list.content-type',
    section: '4.1',
    level: 'required',
    needs: ['rest'],
    title: `the 200 answer of GET ${LIST_PATH} is application/json (parameters such as charset allowed)`,
  },
  async (ctx) => {
    const res = await getList(ctx);
    if (res.status !== 200) fail(`GET ${LIST_PATH}: expected HTTP 200, got ${res.status}; the media type of the 200 answer cannot be judged`, { expected: 200, actual: res.status });
    expectJsonMediaType(res, `GET ${LIST_PATH}`);
  },
);

export const listEnvelope = check(
  {
    id: 'rest.list.tokens-array',
    section: '2.2',
    level: 'required',
    needs: ['rest'],
    title: 'the 200 body is an object whose "tokens" member is an array (its only required member; extra members tolerated)',
  },
  async (ctx) => {
    const tokens = await fetchList(ctx);
    ctx.note(`${tokens.length} record(s) listed`);
  },
);

export const listSchema = check(
  {
    id: 'rest.list.schema',
    section: '2.2',
    level: 'required',
    needs: ['rest'],
    title: 'the 200 body validates against the list schema v1ListTokenizedEquityTokensResponse (records included; an empty list is valid)',
  },
  async (ctx) => {
    const res = await getList(ctx);
    if (res.status !== 200) fail(`GET ${LIST_PATH}: expected HTTP 200, got ${res.status}`, { section: '4.1', expected: 200, actual: res.status });
    if (res.json === undefined) fail(`GET ${LIST_PATH}: the 200 body is not JSON (${res.jsonError ?? 'unparseable'})`, { section: '4.1', expected: 'a JSON body', actual: res.text.slice(0, 200) });
    expectSchema('list', res.json, `the body of GET ${LIST_PATH}`);
  },
);

export const listNoCredentials = check(
  {
    id: 'rest.list.no-credentials',
    section: '5.1',
    level: 'required',
    needs: ['rest'],
    title: `GET ${LIST_PATH} succeeds without any API key or configured header (no security scheme applies)`,
  },
  async (ctx) => {
    // Sent with none of the run's --header/--rest-header values (only Accept: application/json).
    const res = await getList(ctx, true);
    if (res.status !== 200) {
      fail(`GET ${LIST_PATH} without configured headers: expected HTTP 200, got ${res.status}`, { expected: 200, actual: res.status });
    }
    // A 200 that is not the list (e.g. a login page) is not a success either.
    const tokens = listOf(res, `GET ${LIST_PATH} without configured headers`);
    ctx.note(`answered 200 with ${tokens.length} record(s) and no configured header sent`);
  },
);

export const endpointChecks = [listStatus, listContentType, listEnvelope, listSchema, listNoCredentials];
