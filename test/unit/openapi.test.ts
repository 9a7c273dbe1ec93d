/**
 * --openapi: the team's published document judged against the spec. The comparison is tested on
 * its own (findings per fixture, derived from schemas/), then the real rest.openapi.* checks run
 * through runChecks on each fixture (file and URL) and, with a loopback REST target, the live list
 * is validated against the document. Fixtures in test/fixtures/openapi/ follow what
 * protoc-gen-openapiv2 writes (Swagger 2.0, converted to 3.0; a 3.1 variant).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/cli/config';
import { analyse, DocumentUnavailable, loadDocument } from '../../src/harness/openapi-document';
import { compareWithSpec, findListOperation, listItemsSchema, responsesOf, validateWithDocument, type Finding } from '../../src/harness/openapi';
import { Redactor } from '../../src/harness/redact';
import { runChecks, type CheckResult, type RunEnv } from '../../src/harness/runner';
import { violatedSection } from '../../src/harness/result';
import { TOKEN_FIELDS } from '../support/schemas';
import { openapiChecks } from '../../suites/rest/openapi';
import { largeListRecord } from '../../bench/large-list';

const FIXTURES = path.resolve(__dirname, '../fixtures/openapi');
const fixture = (name: string) => path.join(FIXTURES, name);
const readFixture = (name: string): any => JSON.parse(readFileSync(fixture(name), 'utf8'));

const tmp = mkdtempSync(path.join(os.tmpdir(), 'openapi-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let written = 0;
/** A mutated copy of the conformant 3.0 fixture, as a file. */
function variant(mutate: (doc: any) => void, base = 'generated-3.0.json'): string {
  const doc = readFixture(base);
  mutate(doc);
  const file = path.join(tmp, `variant-${++written}.json`);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}
const tokenProps = (doc: any) => doc.components.schemas.v1TokenizedEquityToken.properties;
const listGet = (doc: any) => doc.paths['/v1/tokenized-stocks'].get;

// ---- the comparison --------------------------------------------------------------------

async function findingsOf(file: string): Promise<{ list: Finding[]; record: Finding[]; errors: Finding[] }> {
  const a = await analyse({ text: readFileSync(file, 'utf8'), source: file });
  const doc = a.dereferenced!;
  const responses = responsesOf(doc, findListOperation(doc)!);
  const ok = responses.find((r) => r.status === '200')!;
  return {
    list: compareWithSpec(ok.schema, 'list.json'),
    record: compareWithSpec(listItemsSchema(ok.schema), 'token.json'),
    errors: responses.filter((r) => r.status !== '200').flatMap((r) => compareWithSpec(r.schema, 'rpc-status.json')),
  };
}
const graded = (fs: Finding[], severity: Finding['severity']) =>
  fs
    .filter((f) => f.severity === severity)
    .map((f) => f.path)
    .sort();

describe('comparing a document with schemas/', () => {
  test.each(['generated-3.0.json', 'generated-3.1.yaml', 'swagger-2.0.json'])('%s: nothing fails, nothing advisory', async (name) => {
    const { list, record, errors } = await findingsOf(fixture(name));
    for (const fs of [list, record, errors]) {
      expect(graded(fs, 'fail')).toEqual([]);
      expect(graded(fs, 'advisory')).toEqual([]);
    }
  });

  test('the generated 3.0 document: the spec-only formats (address, URL, ISIN) are notes, not advisories', async () => {
    const { record } = await findingsOf(fixture('generated-3.0.json'));
    expect(graded(record, 'note')).toEqual(['contract_address', 'icon_url', 'isin']);
    // 3.1 fixture states uri and isin: only the address is left without a format.
    expect(graded((await findingsOf(fixture('generated-3.1.yaml'))).record, 'note')).toEqual(['contract_address']);
  });

  test("the spec table's own spellings of its formats (address, URL, ISIN, in any case) are the spec's formats, not advisories", async () => {
    for (const [address, url, isin] of [
      ['address', 'URL', 'ISIN'],
      ['ADDRESS', 'url', 'isin'],
      ['evm-address', 'URI', 'Isin'],
    ]) {
      const { record } = await findingsOf(
        variant((d) => {
          const t = tokenProps(d);
          t.contract_address = { type: 'string', format: address };
          t.icon_url = { type: 'string', format: url };
          t.isin = { type: 'string', format: isin };
        }),
      );
      expect([address, url, isin, record.filter((f) => f.severity !== 'note')]).toEqual([address, url, isin, []]);
      expect(graded(record, 'note')).toEqual([]);
    }
  });

  // Derived from token.json, not a second table: removing any one field is found.
  test.each(TOKEN_FIELDS.map((f) => [f]))('a document without %s fails on exactly that field', async (field) => {
    const { record, list } = await findingsOf(variant((d) => delete tokenProps(d)[field]));
    expect(graded(record, 'fail')).toEqual([field]);
    expect(graded(list, 'fail')).toEqual([`tokens[].${field}`]);
  });

  test('renamed (lowerCamelCase) fields fail as renamed, with the likely cause said once', async () => {
    const { record } = await findingsOf(fixture('renamed-field.json'));
    const fails = record.filter((f) => f.severity === 'fail');
    expect(fails.map((f) => f.path).sort()).toEqual(['contract_address', 'icon_url', 'nav_price', 'nav_price_updated_at', 'paused_features', 'total_supply']);
    expect(fails.find((f) => f.path === 'contract_address')).toMatchObject({ expected: 'contract_address', actual: 'contractAddress' });
    expect(fails.filter((f) => f.message.includes('json_names_for_fields'))).toHaveLength(1);
  });

  test('another type fails; the int64-as-string rendering says why', async () => {
    expect(graded((await findingsOf(fixture('wrong-type.json'))).record, 'fail')).toEqual(['nav_price']);
    const int64 = (await findingsOf(fixture('int64-as-string.json'))).record.filter((f) => f.severity === 'fail');
    expect(int64.map((f) => f.path).sort()).toEqual(['decimals', 'paused_features[]']);
    expect(int64[0]!.message).toMatch(/protojson quotes 64-bit integers/);
    const numberForInteger = await findingsOf(variant((d) => (tokenProps(d).decimals = { type: 'number', format: 'double' })));
    expect(graded(numberForInteger.record, 'fail')).toEqual(['decimals']);
  });

  test('looser and narrower formats, an undeclared type, null and closed objects are advisory', async () => {
    expect(graded((await findingsOf(fixture('looser-format.json'))).record, 'advisory')).toEqual(['nav_price_updated_at', 'total_supply']);
    const doc = variant((d) => {
      const t = tokenProps(d);
      t.decimals = { type: 'integer', format: 'int32' }; // narrower
      t.nav_price = { type: 'integer' }; // narrower type, no format
      t.multiplier = { description: 'no type' };
      t.symbol = { type: 'string', nullable: true };
      t.isin = { type: 'string', format: 'date' }; // another format for a spec-only one
      d.components.schemas.v1TokenizedEquityToken.additionalProperties = false;
    });
    const { record } = await findingsOf(doc);
    expect(graded(record, 'fail')).toEqual([]);
    expect(graded(record, 'advisory')).toEqual(['(root)', 'decimals', 'isin', 'multiplier', 'nav_price', 'nav_price', 'symbol']);
  });

  test('rpcStatus: a missing message or details of the wrong shape fail; a code without int32 is advisory', async () => {
    const { errors } = await findingsOf(
      variant((d) => {
        const s = d.components.schemas.rpcStatus.properties;
        delete s.message;
        s.code = { type: 'integer' };
        d.components.schemas.protobufAny.properties['@type'] = { type: 'integer' };
      }),
    );
    expect(graded(errors, 'fail')).toEqual(['details[].@type', 'message']);
    expect(graded(errors, 'advisory')).toEqual(['code']);
  });
});

// ---- the checks ------------------------------------------------------------------------

const seen: { path: string; headers: http.IncomingHttpHeaders }[] = [];
let routes: Record<string, { status: number; type: string; body: string }> = {};
let server: http.Server;
let other: http.Server;
let base: string;
let otherBase: string;

function serve(): http.Server {
  return http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ path: p, headers: req.headers });
    const r = routes[p] ?? { status: 404, type: 'application/json', body: JSON.stringify({ code: 5, message: 'not found', details: [] }) };
    res.writeHead(r.status, { 'content-type': r.type });
    res.end(r.body);
  });
}
async function listen(s: http.Server): Promise<string> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
beforeAll(async () => {
  server = serve();
  other = serve();
  base = await listen(server);
  otherBase = await listen(other);
});
afterAll(async () => {
  for (const s of [server, other]) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});
beforeEach(() => {
  seen.length = 0;
  routes = {};
});

/** The run's environment, with the document loaded as main() loads it before the checks. */
async function env(openapi: string | undefined, over: Partial<RunEnv> = {}): Promise<RunEnv> {
  const redactor = over.redactor ?? new Redactor();
  const restHeaders = over.restHeaders ?? {};
  const doc = openapi ? await loadDocument(openapi, { baseUrl: over.baseUrl, headers: restHeaders, http: { timeoutMs: 5000, redactor } }) : undefined;
  return {
    restHeaders,
    rpcHeaders: {},
    settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 5000, ...(doc ? { openapi: doc } : {}) },
    redactor,
    signal: new AbortController().signal,
    ...over,
  };
}
async function run(e: Promise<RunEnv>): Promise<Record<string, CheckResult>> {
  const results = await runChecks(openapiChecks, await e, { concurrency: 4 });
  return Object.fromEntries(results.map((r) => [r.id, r]));
}
const statuses = (by: Record<string, CheckResult>) => Object.fromEntries(Object.values(by).map((r) => [r.id, r.status]));

const ALL_PASS_ALONE = {
  'rest.openapi.valid': 'passed',
  'rest.openapi.version': 'passed',
  'rest.openapi.list-operation': 'passed',
  'rest.openapi.operation-id': 'passed',
  'rest.openapi.no-security': 'passed',
  'rest.openapi.token-fields': 'passed',
  'rest.openapi.error-shape': 'passed',
  'rest.openapi.formats': 'passed',
  'rest.openapi.live-list': 'skipped',
};

describe('rest.openapi.* on a document alone (no --base-url)', () => {
  test('without --openapi every check is skipped with the reason', async () => {
    const by = await run(env(undefined));
    for (const r of Object.values(by)) expect(r).toMatchObject({ status: 'skipped', reason: "needs --openapi (the API's published OpenAPI document)" });
  });

  test('the conformant generated 3.0 document passes; its Service_Method operationId is advisory; the live check needs --base-url', async () => {
    const by = await run(env(fixture('generated-3.0.json')));
    expect(statuses(by)).toEqual({ ...ALL_PASS_ALONE, 'rest.openapi.operation-id': 'failed' });
    expect(by['rest.openapi.operation-id']).toMatchObject({
      level: 'advisory',
      actual: { kind: 'text', preview: 'TokenizedStocksService_ListTokenizedStocks' },
    });
    expect(by['rest.openapi.live-list']!.reason).toBe('needs --base-url (REST target)');
    expect(by['rest.openapi.valid']!.notes).toEqual(['OpenAPI 3.0.3, 3 path(s)']);
  });

  test('the 3.1 variant passes every check', async () => {
    expect(statuses(await run(env(fixture('generated-3.1.yaml'))))).toEqual(ALL_PASS_ALONE);
  });

  test("protoc-gen-openapiv2's own Swagger 2.0 passes the required checks; 'version not set' is advisory", async () => {
    const by = await run(env(fixture('swagger-2.0.json')));
    expect(statuses(by)).toEqual({ ...ALL_PASS_ALONE, 'rest.openapi.version': 'failed', 'rest.openapi.operation-id': 'failed' });
    expect(by['rest.openapi.version']!.reason).toMatch(/"version not set"/);
    expect(by['rest.openapi.version']!.hint).toMatch(/openapiv2_swagger/);
  });

  test.each([
    ['renamed-field.json', 'rest.openapi.token-fields', /renamed: the document has "contractAddress"/],
    ['missing-field.json', 'rest.openapi.token-fields', /icon_url: missing from the document/],
    ['wrong-type.json', 'rest.openapi.token-fields', /nav_price: the document says string, the spec says number/],
    ['int64-as-string.json', 'rest.openapi.token-fields', /decimals: the document says string, the spec says integer/],
    ['invalid.json', 'rest.openapi.valid', /must have required property 'description'/],
  ])('%s fails %s (required) and nothing else required', async (name, id, reason) => {
    const by = await run(env(fixture(name)));
    expect(by[id]).toMatchObject({ status: 'failed', level: 'required' });
    expect(by[id]!.reason).toMatch(reason);
    const otherRequiredFailures = Object.values(by).filter((r) => r.id !== id && r.level === 'required' && r.status === 'failed');
    expect(otherRequiredFailures.map((r) => r.id)).toEqual([]);
  });

  test('a looser format fails only the advisory formats check', async () => {
    const by = await run(env(fixture('looser-format.json')));
    expect(by['rest.openapi.formats']).toMatchObject({ status: 'failed', level: 'advisory' });
    expect(by['rest.openapi.formats']!.reason).toMatch(/tokens\[\]\.nav_price_updated_at: looser: the document gives no format; the spec says date-time/);
    expect(by['rest.openapi.token-fields']!.status).toBe('passed');
  });

  test('a file that is not JSON or YAML is not loaded (a configuration error); a document that parses but is no OpenAPI fails valid', async () => {
    const file = path.join(tmp, 'garbage.yaml');
    writeFileSync(file, 'openapi: [3.0.3\n  : : {');
    await expect(env(file)).rejects.toThrow(DocumentUnavailable);
    await expect(env(file)).rejects.toThrow(/garbage\.yaml is not JSON or YAML \(\d+ characters/);
    writeFileSync(file, 'openapi: 3.0.3\ninfo: nothing\n');
    const by = await run(env(file));
    expect(by['rest.openapi.valid']!.status).toBe('failed');
    expect(by['rest.openapi.valid']!.reason).toMatch(/swagger-parser rejects the document/);
  });

  test('no list path: list-operation fails (4.1), the checks that need it are inconclusive', async () => {
    const by = await run(env(variant((d) => delete d.paths['/v1/tokenized-stocks'])));
    expect(by['rest.openapi.list-operation']).toMatchObject({ status: 'failed' });
    expect(violatedSection(by['rest.openapi.list-operation'])).toBe('4.1');
    expect(by['rest.openapi.token-fields']!.status).toBe('inconclusive');
    expect(by['rest.openapi.valid']!.status).toBe('passed');
  });

  test('the list path under a server prefix is found', async () => {
    const by = await run(
      env(
        variant((d) => {
          d.servers = [{ url: 'https://api.example.com/v1' }];
          d.paths = { '/tokenized-stocks': d.paths['/v1/tokenized-stocks'] };
        }),
      ),
    );
    expect(by['rest.openapi.list-operation']!.status).toBe('passed');
    expect(by['rest.openapi.list-operation']!.notes).toContain('found as /tokenized-stocks under the server path /v1');
  });

  test('a required query parameter fails (4.1 defines none); an optional one is a note', async () => {
    const required = await run(
      env(variant((d) => (listGet(d).parameters = [{ name: 'page_size', in: 'query', required: true, schema: { type: 'integer' } }]))),
    );
    expect(required['rest.openapi.list-operation']).toMatchObject({ status: 'failed' });
    expect(violatedSection(required['rest.openapi.list-operation'])).toBe('4.1');
    const optional = await run(
      env(variant((d) => (listGet(d).parameters = [{ name: 'page_size', in: 'query', required: false, schema: { type: 'integer' } }]))),
    );
    expect(optional['rest.openapi.list-operation']!.status).toBe('passed');
    expect(optional['rest.openapi.list-operation']!.notes!.join(' ')).toMatch(/optional parameter.*page_size/);
  });

  test('a 200 whose tokens is not an array fails list-operation (2.2); the record check cannot compare', async () => {
    const by = await run(env(variant((d) => (d.components.schemas.v1ListTokenizedEquityTokensResponse.properties.tokens = { type: 'string' }))));
    expect(by['rest.openapi.list-operation']).toMatchObject({ status: 'failed' });
    expect(violatedSection(by['rest.openapi.list-operation'])).toBe('2.2');
    expect(by['rest.openapi.token-fields']!.status).toBe('inconclusive');
  });

  test('a security requirement on the list fails no-security (5.1); an optional one passes', async () => {
    const secured = (doc: any) => {
      doc.components.securitySchemes = { ApiKey: { type: 'apiKey', name: 'X-API-Key', in: 'header' } };
      doc.security = [{ ApiKey: [] }];
    };
    const by = await run(env(variant(secured)));
    expect(by['rest.openapi.no-security']!.status).toBe('failed');
    expect(by['rest.openapi.no-security']!.reason).toMatch(/requires ApiKey/);
    const optional = await run(env(variant((d) => (secured(d), (listGet(d).security = [{}, { ApiKey: [] }])))));
    expect(optional['rest.openapi.no-security']!.status).toBe('passed');
  });

  test('error responses: a wrong rpcStatus or a non-JSON error fails; none declared is a skip', async () => {
    const noMessage = await run(env(variant((d) => delete d.components.schemas.rpcStatus.properties.message)));
    expect(noMessage['rest.openapi.error-shape']!.status).toBe('failed');
    expect(noMessage['rest.openapi.error-shape']!.reason).toMatch(/responses.default: message: missing/);
    const plain = await run(
      env(variant((d) => (listGet(d).responses['500'] = { description: 'oops', content: { 'text/plain': { schema: { type: 'string' } } } }))),
    );
    expect(plain['rest.openapi.error-shape']!.reason).toMatch(/responses.500: declared as text\/plain, not application\/json/);
    const none = await run(env(variant((d) => delete listGet(d).responses.default)));
    expect(none['rest.openapi.error-shape']!.status).toBe('skipped');
    expect(none['rest.openapi.error-shape']!.reason).toMatch(/disable_default_errors/);
  });
});

describe('rest.openapi.* on a document fetched by URL', () => {
  const text = readFileSync(fixture('generated-3.0.json'), 'utf8');

  test('the document is fetched once, shown with every check as one redacted exchange, without the run headers on another origin', async () => {
    routes['/openapi.json'] = { status: 200, type: 'application/json', body: readFileSync(fixture('invalid.json'), 'utf8') };
    const url = `${otherBase}/openapi.json?api_key=s3cr3tvalue`;
    const by = await run(env(url, { baseUrl: base, restHeaders: { 'X-Api-Key': 'headersecret' }, redactor: new Redactor().addUrl(url).add('headersecret') }));
    const valid = by['rest.openapi.valid']!;
    expect(valid.status).toBe('failed');
    expect(valid.exchanges).toHaveLength(1);
    expect(valid.exchanges[0]!.curl).toMatch(/^curl/);
    expect(JSON.stringify(valid)).not.toContain('s3cr3tvalue');
    const docFetches = seen.filter((s) => s.path === '/openapi.json');
    expect(docFetches).toHaveLength(1);
    expect(docFetches[0]!.headers['x-api-key']).toBeUndefined();
    for (const r of Object.values(by).filter((r) => r.id !== 'rest.openapi.live-list')) expect(r.exchangeCount).toBe(1);
  });

  test('on the REST target origin the configured headers go along', async () => {
    routes['/openapi.json'] = { status: 200, type: 'application/json', body: text };
    const by = await run(env(`${base}/openapi.json`, { baseUrl: base, restHeaders: { 'X-Api-Key': 'k' } }));
    expect(by['rest.openapi.token-fields']!.status).toBe('passed');
    expect(seen.filter((s) => s.path === '/openapi.json').every((s) => s.headers['x-api-key'] === 'k')).toBe(true);
  });

  test('YAML served as text/yaml reads the same', async () => {
    routes['/openapi.yaml'] = { status: 200, type: 'text/yaml', body: readFileSync(fixture('generated-3.1.yaml'), 'utf8') };
    const by = await run(env(`${otherBase}/openapi.yaml`));
    expect(statuses(by)).toEqual(ALL_PASS_ALONE);
  });

  test.each([
    ['answering 404', () => `${otherBase}/missing.json`, /GET answered HTTP 404/],
    [
      'answering a redirect',
      () => ((routes['/moved'] = { status: 302, type: 'text/plain', body: '' }), `${otherBase}/moved`),
      /HTTP 302 \(redirects are not followed/,
    ],
    [
      'serving HTML',
      () => ((routes['/index.html'] = { status: 200, type: 'text/html', body: '<html><body>{{ oops: [ }}</body></html>' }), `${otherBase}/index.html`),
      /\(text\/html\) is not JSON or YAML/,
    ],
    ['refusing connections', () => 'http://127.0.0.1:9/openapi.json', /no answer fetching it/],
  ])('a document URL %s cannot be loaded: a configuration error, before any check', async (_what, url, why) => {
    await expect(loadDocument(url(), { headers: {}, http: { timeoutMs: 5000, redactor: new Redactor() } })).rejects.toThrow(DocumentUnavailable);
    await expect(loadDocument(url(), { headers: {}, http: { timeoutMs: 5000, redactor: new Redactor() } })).rejects.toThrow(why);
  });
});

// ---- the live list against the document -----------------------------------------------

/** A conformant record (the one the large-list target serves), with some fields changed. */
const record = (n: number, over: Record<string, unknown> = {}): Record<string, unknown> => ({ ...largeListRecord(n), ...over });
const serveList = (tokens: unknown[]) => (routes['/v1/tokenized-stocks'] = { status: 200, type: 'application/json', body: JSON.stringify({ tokens }) });

describe('rest.openapi.live-list', () => {
  const live = async (doc: string) => (await run(env(doc, { baseUrl: base })))['rest.openapi.live-list']!;

  test('a conformant list is valid against the document and the suite', async () => {
    serveList([record(1), record(2, { extra: true })]);
    const r = await live(fixture('generated-3.0.json'));
    expect(r.status).toBe('passed');
    expect(r.notes).toContain("2 record(s) valid against both the document and the suite's schemas");
    expect((await live(fixture('generated-3.1.yaml'))).status).toBe('passed');
    expect((await live(fixture('swagger-2.0.json'))).status).toBe('passed');
  });

  test('default values left out as protobuf JSON does (an empty paused_features, 0 decimals, or no "tokens" at all) are valid against the suite, as rest.list.schema reads them', async () => {
    const { paused_features: _p, decimals: _d, ...omitted } = record(1);
    serveList([omitted, record(2)]);
    for (const doc of ['generated-3.0.json', 'swagger-2.0.json']) {
      const r = await live(fixture(doc));
      expect([doc, r.status, r.reason]).toEqual([doc, 'passed', '']);
    }
    routes['/v1/tokenized-stocks'] = { status: 200, type: 'application/json', body: '{}' };
    const empty = await live(fixture('generated-3.0.json'));
    expect([empty.status, empty.reason]).toEqual(['passed', '']);
  });

  test('a document stricter than the spec: the live list breaks the document only (advisory)', async () => {
    serveList([record(1, { extra: true })]);
    const r = await live(variant((d) => (d.components.schemas.v1TokenizedEquityToken.additionalProperties = false)));
    expect(r).toMatchObject({ status: 'failed', level: 'advisory' });
    expect(r.reason).toMatch(/does not validate against the document's own 200 schema: .*additional properties.*Against the suite's schemas it is valid/);
    expect(r.exchanges.some((e) => e.request.url.endsWith('/v1/tokenized-stocks'))).toBe(true);
  });

  test('int64 as strings: valid against the generated document, invalid against the spec', async () => {
    serveList([record(1, { decimals: '18', paused_features: ['1'] })]);
    const r = await live(fixture('int64-as-string.json'));
    expect(r.status).toBe('failed');
    expect(r.reason).toMatch(/validates against the document but not against the spec's list schema: .*decimals must be integer/);
  });

  test("OpenAPI 3.0 nullable is honoured; the date-time format is the suite's own", async () => {
    serveList([record(1, { nav_price: null })]);
    const nullable = await live(variant((d) => (tokenProps(d).nav_price.nullable = true)));
    expect(nullable.reason).toMatch(/validates against the document but not against the spec's/);
    serveList([record(1, { nav_price_updated_at: '2024-01-02 15:04:05' })]);
    const r = await live(fixture('generated-3.0.json'));
    expect(r.reason).toMatch(/does not validate against the document's own 200 schema: .*date-time/);
  });

  test('a list that is not a 200 JSON answer is not judged here', async () => {
    routes['/v1/tokenized-stocks'] = { status: 503, type: 'application/json', body: JSON.stringify({ code: 14, message: 'unavailable' }) };
    const r = await live(fixture('generated-3.0.json'));
    expect(r.status).toBe('inconclusive');
  });

  test('validateWithDocument follows a response written as a $ref', async () => {
    const file = variant((d) => {
      d.components.responses = { ListOk: listGet(d).responses['200'] };
      listGet(d).responses['200'] = { $ref: '#/components/responses/ListOk' };
    });
    const a = await analyse({ text: readFileSync(file, 'utf8'), source: file });
    const ok = responsesOf(a.dereferenced!, findListOperation(a.dereferenced!)!).find((r) => r.status === '200')!;
    expect(validateWithDocument(a, ok.schemaPointer!, { tokens: [record(1)] })).toEqual({ valid: true, errors: [] });
    expect(validateWithDocument(a, ok.schemaPointer!, { tokens: [record(1, { decimals: 'x' })] })).toMatchObject({ valid: false });
  });
});

// ---- configuration ---------------------------------------------------------------------

describe('--openapi (env OPENAPI)', () => {
  test('a file is resolved against the working directory; a missing one is a configuration error', () => {
    const rel = path.relative(process.cwd(), fixture('generated-3.0.json'));
    expect(loadConfig(['--openapi', rel], {}).openapi).toBe(fixture('generated-3.0.json'));
    expect(loadConfig([], { OPENAPI: rel }).openapi).toBe(fixture('generated-3.0.json'));
    expect(() => loadConfig(['--openapi', 'no/such/openapi.json'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--openapi', 'no/such/openapi.json'], {})).toThrow(/no readable file no\/such\/openapi.json/);
  });

  test('a URL is kept (credentials in it are refused, never echoed)', () => {
    expect(loadConfig(['--openapi', 'https://api.example.com/openapi.json'], {}).openapi).toBe('https://api.example.com/openapi.json');
    expect(() => loadConfig(['--openapi', 'https://user:pw-secret@api.example.com/openapi.json'], {})).toThrow(/credentials in the URL are not supported/);
    try {
      loadConfig(['--openapi', 'https://user:pw-secret@api.example.com/openapi.json'], {});
    } catch (err) {
      expect((err as Error).message).not.toContain('pw-secret');
    }
  });

  test('a document alone is judged alone: no embedded target', () => {
    expect(loadConfig(['--openapi', fixture('generated-3.0.json')], {}).embedded).toBe(false);
    expect(loadConfig([], {}).embedded).toBe(true);
  });
});
