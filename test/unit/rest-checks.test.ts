/**
 * The REST and cross checks can fail, and pass only on conformant answers: each test serves a
 * small target from a loopback HTTP server (node:http) and runs the real checks through
 * runChecks, asserting each verdict.
 */
import http from 'node:http';
import { getAddress } from 'viem';
import type { Check } from '../../src/harness/check';
import { Redactor } from '../../src/harness/redact';
import { runChecks, type CheckResult, type RunEnv } from '../../src/harness/runner';
import { violatedSection } from '../../src/harness/result';
import { codeChecks as crossChecks } from '../../suites/cross/code';
import { erc20Checks } from '../../suites/cross/erc20';
import { INT64_AS_STRING_HINT } from '../../suites/rest/fields';
import { listEnvelope, listStatus } from '../../suites/rest/endpoint';
import { omitsTokens, withDefaultTokens } from '../../src/harness/records';
import { checks as restChecks } from '../../suites/rest';
import { EMPTY_LIST } from '../../src/harness/records';
import { closeServer, listenLoopback } from '../support/loopback';
import { decided } from '../support/runs';

// ---- a tiny target ---------------------------------------------------------------------

interface Answer {
  status: number;
  contentType?: string;
  body: string;
}
type Handler = (req: { method: string; path: string; headers: http.IncomingHttpHeaders; body: string }) => Answer;

const seen: { method: string; path: string; headers: http.IncomingHttpHeaders }[] = [];
let handler: Handler = () => json(500, { code: 13, message: 'no handler', details: [] });
let server: http.Server;
let url: string;

function json(status: number, value: unknown, contentType = 'application/json'): Answer {
  return { status, contentType, body: typeof value === 'string' ? value : JSON.stringify(value) };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ method: req.method ?? '', path, headers: req.headers });
      const a = handler({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(a.status, a.contentType ? { 'content-type': a.contentType } : {});
      res.end(a.body);
    });
  });
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));
beforeEach(() => {
  seen.length = 0;
});

const rpcStatus = (code: number, message: string) => ({ code, message, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'X' }] });

/** A target: the list at /v1/tokenized-stocks, rpcStatus errors elsewhere, optional JSON-RPC at /rpc. */
function target(opts: {
  list: () => Answer;
  write?: (method: string) => Answer;
  unknown?: () => Answer;
  requireKey?: string;
  code?: (address: string, block: string) => unknown;
  /** eth_call: the ERC-20 decimals() each address answers (the other views are refused). */
  decimals?: (address: string) => number;
}): Handler {
  return ({ method, path, headers, body }) => {
    if (path === '/rpc' && (opts.code || opts.decimals)) {
      const call = JSON.parse(body) as { id: number; method: string; params: string[] };
      const tx = call.params[0] as unknown as { to: string; data: string };
      const decimalsSelector = '0x313ce567';
      if (call.method === 'eth_call' && opts.decimals && tx.data === decimalsSelector)
        return json(200, { jsonrpc: '2.0', id: call.id, result: `0x${opts.decimals(tx.to).toString(16).padStart(64, '0')}` });
      if (call.method === 'eth_call') return json(200, { jsonrpc: '2.0', id: call.id, error: { code: 3, message: 'execution reverted' } });
      if (!opts.code) return json(200, { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'method not found' } });
      if (call.method !== 'eth_getCode') return json(200, { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'method not found' } });
      return json(200, { jsonrpc: '2.0', id: call.id, result: opts.code(call.params[0], call.params[1]) });
    }
    if (opts.requireKey && headers['x-api-key'] !== opts.requireKey) return json(401, rpcStatus(16, 'missing API key'));
    if (path === '/v1/tokenized-stocks') {
      if (method === 'GET') return opts.list();
      return opts.write ? opts.write(method) : json(405, rpcStatus(12, 'method not allowed'), 'application/json; charset=utf-8');
    }
    return opts.unknown ? opts.unknown() : json(404, rpcStatus(5, 'not found'));
  };
}

// ---- records ---------------------------------------------------------------------------

const ISINS = ['US0378331005', 'US5949181045', 'US88160R1014', 'US02079K3059'];
const address = (n: number) => getAddress(`0x${(0xabcdef0000 + n).toString(16).padStart(40, '7')}`);

function record(n: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contract_address: address(n),
    symbol: `TK${n}x`,
    name: `Token ${n} Inc.`,
    decimals: 18,
    icon_url: `https://icons.example.com/${n}.png`,
    total_supply: 1000.5 * (n + 1),
    isin: ISINS[n % ISINS.length],
    multiplier: 1.0,
    paused_features: [],
    nav_price: 187.25,
    nav_price_updated_at: new Date(Date.now() - 3_600_000).toISOString(),
    ...over,
  };
}

const listOf =
  (tokens: unknown[], extra: Record<string, unknown> = {}) =>
  () =>
    json(200, { tokens, ...extra });

// ---- running ---------------------------------------------------------------------------

function env(over: Partial<RunEnv> = {}, settings: Partial<RunEnv['settings']> = {}): RunEnv {
  return {
    baseUrl: url,
    restHeaders: {},
    rpcHeaders: {},
    settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 5000, ...settings },
    redactor: new Redactor(),
    signal: new AbortController().signal,
    ...over,
  };
}

async function run(h: Handler, checks: Check[] = restChecks, e: RunEnv = env()): Promise<Record<string, CheckResult>> {
  handler = h;
  const results = decided(await runChecks(checks, e, { concurrency: 4 }));
  return Object.fromEntries(results.map((r) => [r.id, r]));
}

const statuses = (by: Record<string, CheckResult>) => Object.fromEntries(Object.values(by).map((r) => [r.id, r.status]));

// ---- tests -----------------------------------------------------------------------------

describe('REST checks against a conformant target', () => {
  it('pass with reordered records and keys, extra fields, a lowercase address, a +00:00 offset and charset', async () => {
    const reversedKeys = Object.fromEntries(Object.entries(record(1)).reverse());
    const tokens = [
      record(3, { extra_field: { nested: true } }),
      reversedKeys,
      record(0, { contract_address: address(0).toLowerCase(), nav_price_updated_at: '2024-01-02T15:04:05.123+00:00', paused_features: [0, 2, 7] }),
      record(2, { multiplier: 1.0523, decimals: 6, nav_price: 0 }),
    ];
    const by = await run(target({ list: () => json(200, { tokens, next_page_token: '' }, 'application/json; charset=utf-8') }));
    // The rest.openapi.* checks judge a published document, not this target (test/unit/openapi.test.ts).
    const notPassed = Object.values(by).filter((r) => r.status !== 'passed' && !r.needs.includes('openapi'));
    expect(notPassed.map((r) => [r.id, r.status, r.cause, r.reason, r.outOfScope])).toEqual([
      ['rest.token.nav-price-updated-at.max-age', 'skipped', 'out-of-scope', 'no --nav-max-age given', { flag: '--nav-max-age', words: 'no --nav-max-age' }],
    ]);
    expect(restChecks.length).toBeGreaterThanOrEqual(25);
  });

  it('report the per-record checks skipped (not passed) on an empty list, which is itself valid', async () => {
    const by = await run(target({ list: listOf([]) }));
    for (const id of [
      'rest.list.status-200',
      'rest.list.content-type',
      'rest.list.tokens-array',
      'rest.list.schema',
      'rest.list.no-credentials',
      'rest.readonly.post',
      'rest.error.unknown-path',
    ]) {
      expect([id, by[id].status]).toEqual([id, 'passed']);
    }
    const perRecord = Object.values(by).filter((r) => r.id.startsWith('rest.token.') && r.id !== 'rest.token.nav-price-updated-at.max-age');
    expect(perRecord.length).toBeGreaterThanOrEqual(15);
    for (const r of perRecord) expect([r.id, r.status, r.reason]).toEqual([r.id, 'skipped', EMPTY_LIST]);
  });
});

describe("fields under protojson's names (a grpc-gateway without UseProtoNames)", () => {
  it('contractAddress in place of contract_address: one failure naming both and the fix, every check reading it blocked by it, never "absent, read as its proto3 default"', async () => {
    const camel = (n: number) => {
      const { contract_address, ...rest } = record(n);
      return { contractAddress: contract_address, ...rest };
    };
    const by = await run(
      target({ list: listOf([0, 1, 2, 3, 4, 5, 6].map(camel)), code: () => '0x6080' }),
      [...restChecks, ...crossChecks],
      env({ rpcUrl: `${url}/rpc` }),
    );
    const failed = Object.values(by).filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.id)).toEqual(['rest.list.schema']);
    expect(failed[0]).toMatchObject({
      reason: "the records name fields protojson's way, not as the 2.1 table does: contractAddress, not contract_address (7 records)",
      violated: ['2.1.1'],
      hint: expect.stringContaining('UseProtoNames: true'),
    });
    for (const id of ['rest.token.field.contract-address', 'rest.token.contract-address.unique', 'cross.token.has-code.latest', 'cross.token.has-code.pending'])
      expect([id, by[id].status, by[id].blockedBy]).toEqual([id, 'inconclusive', 'rest.list.schema']);
    expect(Object.values(by).some((r) => /read as its proto3 default/.test(`${r.reason} ${(r.notes ?? []).join(' ')}`))).toBe(false);
    // The other fields are judged as usual.
    expect(by['rest.token.field.isin'].status).toBe('passed');
  });
});

describe('REST checks against a broken target', () => {
  it('fail each broken rule, naming the record and the value, and pass the rules that hold', async () => {
    const dup = address(1);
    const tokens = [
      record(0, { isin: 'US0378331006' }), // check digit should be 5
      record(1, { multiplier: 1e18 }), // the raw fixed-point value
      record(2, { contract_address: dup.toLowerCase() }), // same address as record 1, other case
    ];
    const by = await run(
      target({
        list: listOf(tokens),
        write: (method) => (method === 'POST' ? json(200, { tokens: [] }) : json(405, rpcStatus(12, 'read-only'))),
        unknown: () => ({ status: 404, contentType: 'text/html', body: '<html><body>Not Found</body></html>' }),
      }),
    );
    expect(statuses(by)).toMatchObject({
      'rest.token.field.isin': 'failed',
      'rest.token.multiplier.normalized': 'failed',
      'rest.token.contract-address.unique': 'failed',
      'rest.error.unknown-path': 'failed',
      'rest.readonly.post': 'failed',
      // the record schema's failure is the isin field check's: named as its cause, not failed again
      'rest.list.schema': 'inconclusive',
      // what holds still passes
      'rest.readonly.put': 'passed',
      'rest.readonly.delete': 'passed',
      'rest.error.write-methods': 'passed',
      'rest.list.status-200': 'passed',
      'rest.list.tokens-array': 'passed',
      'rest.token.field.symbol': 'passed',
      'rest.token.field.multiplier': 'passed',
      'rest.token.multiplier.positive': 'passed',
      'rest.token.decimals.range': 'passed',
    });
    expect(by['rest.token.field.isin'].reason).toMatch(
      /tokens\[0\] \(0x[0-9a-fA-F]{40}\).*check digit is wrong \(US0378331005 would be valid\).*"US0378331006"/,
    );
    expect(by['rest.token.multiplier.normalized'].reason).toMatch(/tokens\[1\].*raw 18-decimal.*adjusted it would be 1\).*1000000000000000000/);
    expect(by['rest.token.contract-address.unique'].reason).toContain(`${dup.toLowerCase()} in tokens[1] (${dup}), tokens[2] (${dup.toLowerCase()})`);
    expect(by['rest.error.unknown-path'].reason).toMatch(/HTTP 404: Content-Type is "text\/html", not application\/json; the body is not JSON/);
    expect(by['rest.readonly.post']).toMatchObject({ section: '4.1', actual: { kind: 'integer', value: '200' } });
    expect(violatedSection(by['rest.readonly.post'])).toBe(by['rest.readonly.post'].section);
    expect(by['rest.list.schema']).toMatchObject({ cause: 'blocked', blockedBy: 'rest.token.field.isin' });
    expect(by['rest.readonly.post'].exchanges[0].curl).toMatch(/-X POST/);
  });

  it.each([
    ['throttled (429)', json(429, rpcStatus(8, 'slow down'))],
    ['a gateway down (503)', json(503, rpcStatus(14, 'unavailable'))],
    ['refused credentials (401)', json(401, rpcStatus(16, 'unauthenticated'))],
  ])('rest.error.write-methods keeps an error answer of the wrong shape seen before the next method was %s', async (_, after) => {
    const [check] = restChecks.filter((c) => c.id === 'rest.error.write-methods');
    const by = await run(
      target({
        list: listOf([record(0)]),
        write: (method) => (method === 'POST' ? { status: 405, contentType: 'text/html', body: '<h1>405</h1>' } : after),
      }),
      [check],
    );
    expect(by['rest.error.write-methods']).toMatchObject({ status: 'failed', violated: ['4.1.2', '2.3.1'] });
    expect(by['rest.error.write-methods'].reason).toMatch(
      /POST \/v1\/tokenized-stocks -> HTTP 405: the error answer is not an application\/json rpcStatus: Content-Type is "text\/html"/,
    );
  });

  it.each([['next_page_token'], ['nextPageToken']])('fail rest.list.all-records (4.1, 2.2) on a first page with a non-empty %s, and only it', async (field) => {
    const by = await run(target({ list: listOf([record(0), record(1), record(2)], { [field]: 'CgNBQVBMEAM=' }) }));
    expect(by['rest.list.all-records']).toMatchObject({ status: 'failed', violated: ['4.1.4'] });
    expect(by['rest.list.all-records'].reason).toContain(`3 record(s) and a non-empty "${field}"`);
    expect(
      Object.values(by)
        .filter((r) => r.status === 'failed')
        .map((r) => r.id),
    ).toEqual(['rest.list.all-records']);
  });

  it('fail the envelope check (2.2) when tokens is not an array, and block every per-record check on it', async () => {
    const by = await run(target({ list: listOf([], { tokens: { a: record(0) } }) }));
    expect(by['rest.list.tokens-array']).toMatchObject({ status: 'failed' });
    expect(violatedSection(by['rest.list.tokens-array'])).toBe('2.2');
    expect(by['rest.token.field.isin']).toMatchObject({ status: 'inconclusive', cause: 'blocked', blockedBy: 'rest.list.tokens-array' });
    expect(by['rest.token.field.isin'].reason).toMatch(
      /^blocked by rest\.list\.tokens-array: GET \/v1\/tokenized-stocks: the 200 body is not a v1ListTokenizedEquityTokensResponse/,
    );
    expect(violatedSection(by['rest.token.field.isin'])).toBe(by['rest.token.field.isin'].section);
    expect(by['rest.list.schema']).toMatchObject({ status: 'inconclusive', blockedBy: 'rest.list.tokens-array' });
    expect(by['rest.list.status-200'].status).toBe('passed');
    expect(
      Object.values(by)
        .filter((r) => r.status === 'failed')
        .map((r) => r.id),
    ).toEqual(['rest.list.tokens-array']);
  });

  it('fail the media type (4.1) of a 200 list served as text/plain', async () => {
    const by = await run(target({ list: () => json(200, { tokens: [record(0)] }, 'text/plain') }));
    expect(by['rest.list.content-type']).toMatchObject({ status: 'failed', section: '4.1' });
    expect(by['rest.list.status-200'].status).toBe('passed');
  });

  it('judge values: decimals range, negative supply and NAV, future timestamp, non-http icon, int64 and negative flags', async () => {
    const tokens = [
      record(0, { decimals: 300, total_supply: -1, paused_features: [1e19] }),
      record(1, { nav_price: -0.5, icon_url: 'ftp://icons.example.com/1.png', paused_features: [-3] }),
      record(2, { nav_price_updated_at: new Date(Date.now() + 3_600_000).toISOString(), multiplier: 0 }),
    ];
    const by = await run(target({ list: listOf(tokens) }));
    expect(statuses(by)).toMatchObject({
      'rest.token.decimals.range': 'failed',
      'rest.token.total-supply.non-negative': 'failed',
      'rest.token.nav-price.non-negative': 'failed',
      'rest.token.nav-price-updated-at.not-future': 'failed',
      'rest.token.icon-url.resource-url': 'failed',
      'rest.token.paused-features.int64-range': 'failed',
      'rest.token.paused-features.non-negative': 'failed',
      'rest.token.multiplier.positive': 'failed',
      'rest.token.multiplier.normalized': 'passed',
      'rest.token.field.nav-price-updated-at': 'passed',
    });
    expect(by['rest.token.paused-features.non-negative'].level).toBe('advisory');
    expect(by['rest.token.decimals.range'].reason).toMatch(/tokens\[0\] .*decimals is outside 0\.\.255 \(got 300\)/);
    expect(by['rest.token.nav-price-updated-at.not-future'].reason).toMatch(/tokens\[2\] .*60 min in the future/);
  });

  it('leave a wrongly typed value to its field check instead of failing the value rules too', async () => {
    const by = await run(target({ list: listOf([record(0, { decimals: '18', multiplier: '1.0' }), record(1)]) }));
    expect(statuses(by)).toMatchObject({
      'rest.token.field.decimals': 'failed',
      'rest.token.field.multiplier': 'failed',
      'rest.token.decimals.range': 'passed',
      'rest.token.multiplier.normalized': 'passed',
    });
    expect(by['rest.token.decimals.range'].notes?.join(' ')).toMatch(/1 of 2 records not judged/);
  });

  it('apply --nav-max-age as an advisory staleness bound', async () => {
    const tokens = [record(0, { nav_price_updated_at: new Date(Date.now() - 2 * 86_400_000).toISOString() }), record(1)];
    const by = await run(target({ list: listOf(tokens) }), restChecks, env({}, { navMaxAgeSec: 36 * 3600 }));
    expect(by['rest.token.nav-price-updated-at.max-age']).toMatchObject({ status: 'failed', level: 'advisory' });
    expect(by['rest.token.nav-price-updated-at.max-age'].reason).toMatch(/tokens\[0\] .*48\.0 h ago/);
    expect(by['rest.token.nav-price-updated-at.not-future'].status).toBe('passed');
  });
});

describe('one root cause, one failure', () => {
  const rpcStatus500 = () => json(500, rpcStatus(13, 'internal'));

  it('a list answering 500 fails rest.list.status-200 once; every check that needs the list is blocked by it', async () => {
    const by = await run(target({ list: rpcStatus500 }));
    const failed = Object.values(by).filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.id)).toEqual(['rest.list.status-200']);
    const blocked = Object.values(by).filter((r) => r.status === 'inconclusive');
    expect(blocked.length).toBeGreaterThanOrEqual(25);
    for (const r of blocked) {
      expect([r.id, r.blockedBy]).toEqual([r.id, 'rest.list.status-200']);
      expect(r.reason).toMatch(/^blocked by rest\.list\.status-200: GET \/v1\/tokenized-stocks.*expected HTTP 200, got 500/);
      expect(r.exchangeCount).toBeGreaterThan(0); // what was seen is kept
    }
    for (const id of [
      'rest.list.content-type',
      'rest.list.tokens-array',
      'rest.list.schema',
      'rest.list.no-credentials',
      'rest.token.field.isin',
      'rest.token.symbol.non-empty',
    ]) {
      expect([id, by[id].status]).toEqual([id, 'inconclusive']);
    }
    // What does not need the list is judged as usual.
    for (const id of ['rest.readonly.post', 'rest.error.write-methods', 'rest.error.unknown-path']) expect([id, by[id].status]).toEqual([id, 'passed']);
  });

  it('a list longer than the suite reads of one answer (16 MiB) is not judged (its limit), never "no answer": the spec bounds no list (4.1, 8)', async () => {
    // 60,000 conformant records, about 20 MB: the target answered, in full.
    const body = JSON.stringify({ tokens: Array.from({ length: 60_000 }, () => record(1)) });
    expect(body.length).toBeGreaterThan(16 * 1024 * 1024);
    const by = await run(target({ list: () => json(200, body) }), [listStatus, listEnvelope]);
    for (const id of ['rest.list.status-200', 'rest.list.tokens-array'])
      expect([id, by[id].status, by[id].cause, by[id].reason]).toEqual([
        id,
        'inconclusive',
        'limit',
        expect.stringContaining('more than this suite reads of one answer'),
      ]);
  });

  it('when the root check is not selected, the first blocked check states the failure once, citing the root rule', async () => {
    const only = restChecks.filter((c) => c.id.startsWith('rest.token.'));
    const by = await run(target({ list: rpcStatus500 }), only);
    const failed = Object.values(by).filter((r) => r.status === 'failed');
    expect(failed).toHaveLength(1);
    const [standIn] = failed;
    expect(standIn).toMatchObject({ id: only[0].id, level: 'required', actual: { kind: 'http-status', value: 500 } });
    expect(violatedSection(standIn)).toBe('4.1');
    expect(standIn.reason).toMatch(/expected HTTP 200, got 500 \(stated here: rest\.list\.status-200, which judges that rule, was not selected\)/);
    const others = Object.values(by).filter((r) => r.id !== standIn.id && r.status !== 'skipped');
    expect(others.length).toBeGreaterThan(10);
    for (const r of others) expect([r.id, r.status, r.blockedBy]).toEqual([r.id, 'inconclusive', standIn.id]);
  });

  it('a list body that is not JSON fails rest.list.tokens-array (4.1) and blocks the record checks on it', async () => {
    const by = await run(target({ list: () => ({ status: 200, contentType: 'application/json', body: '{"tokens": [' }) }));
    expect(by['rest.list.tokens-array']).toMatchObject({ status: 'failed' });
    expect(violatedSection(by['rest.list.tokens-array'])).toBe('4.1');
    expect(by['rest.token.field.name']).toMatchObject({ status: 'inconclusive', blockedBy: 'rest.list.tokens-array' });
    expect(by['rest.list.schema']).toMatchObject({ status: 'inconclusive', blockedBy: 'rest.list.tokens-array' });
    expect(by['rest.list.status-200'].status).toBe('passed');
    expect(by['rest.list.content-type'].status).toBe('passed');
  });

  it('a JSON list under a wrong media type fails rest.list.content-type alone: the records it shows are judged', async () => {
    const by = await run(target({ list: () => json(200, { tokens: [record(0), record(1)] }, 'text/html') }));
    expect(
      Object.values(by)
        .filter((r) => r.status === 'failed')
        .map((r) => r.id),
    ).toEqual(['rest.list.content-type']);
    expect(by['rest.token.field.isin'].status).toBe('passed');
  });
});

describe('protobuf JSON: an absent field is its proto3 default, judged by the same rules', () => {
  const omit = (r: Record<string, unknown>, ...fields: string[]) => Object.fromEntries(Object.entries(r).filter(([k]) => !fields.includes(k)));

  it('pass records that omit default values the rules accept: [] paused_features, 0 decimals, supply and NAV, noting each', async () => {
    const tokens = [
      omit(record(0), 'paused_features'),
      omit(record(1, { decimals: 0, total_supply: 0, nav_price: 0 }), 'paused_features', 'decimals', 'total_supply', 'nav_price'),
      record(2, { paused_features: [3] }),
    ];
    const by = await run(target({ list: listOf(tokens) }));
    const notPassed = Object.values(by).filter(
      (r) => r.status !== 'passed' && r.id !== 'rest.token.nav-price-updated-at.max-age' && !r.needs.includes('openapi'),
    );
    expect(notPassed.map((r) => [r.id, r.status, r.reason])).toEqual([]);
    expect(by['rest.token.field.paused-features'].notes?.join(' ')).toMatch(
      /2 of 3 records omit paused_features \(protobuf JSON leaves out default values\): read as its proto3 default \[\]: tokens\[0\] \(0x[0-9a-fA-F]{40}\), tokens\[1\]/,
    );
    expect(by['rest.token.decimals.range'].notes?.join(' ')).toMatch(/1 of 3 records omit decimals.*proto3 default 0/);
    expect(by['rest.list.schema'].status).toBe('passed');
  });

  it.each<[string, (r: Record<string, unknown>) => Record<string, unknown>, string, RegExp]>([
    ['isin omitted', (r) => omit(r, 'isin'), 'rest.token.field.isin', /isin is absent, read as its proto3 default "": isin is not of type string \(isin\)/],
    [
      'contract_address omitted',
      (r) => omit(r, 'contract_address'),
      'rest.token.field.contract-address',
      /tokens\[1\]: contract_address is absent, read as its proto3 default ""/,
    ],
    [
      'nav_price_updated_at omitted',
      (r) => omit(r, 'nav_price_updated_at'),
      'rest.token.field.nav-price-updated-at',
      /nav_price_updated_at is absent, and as a google\.protobuf\.Timestamp it has no default: no time is given/,
    ],
    [
      'multiplier omitted',
      (r) => omit(r, 'multiplier'),
      'rest.token.multiplier.positive',
      /multiplier is absent, read as its proto3 default 0: multiplier is not greater than 0/,
    ],
    [
      'icon_url omitted',
      (r) => omit(r, 'icon_url'),
      'rest.token.field.icon-url',
      /icon_url is absent, read as its proto3 default "": icon_url is not of type string \(url\)/,
    ],
    ['symbol ""', (r) => ({ ...r, symbol: '' }), 'rest.token.symbol.non-empty', /tokens\[1\] .*symbol is empty: not a ticker symbol/],
    ['symbol omitted', (r) => omit(r, 'symbol'), 'rest.token.symbol.non-empty', /symbol is absent, read as its proto3 default "": symbol is empty/],
    ['name "  "', (r) => ({ ...r, name: '  ' }), 'rest.token.name.non-empty', /name is empty: not the name of the underlying equity/],
    [
      'decimals null (null is no default)',
      (r) => ({ ...r, decimals: null }),
      'rest.token.field.decimals',
      /decimals is not of type integer \(int64\).*\(got null\)/,
    ],
    [
      'decimals "18" (the int64-as-string of protojson)',
      (r) => ({ ...r, decimals: '18' }),
      'rest.token.field.decimals',
      /decimals is not of type integer \(int64\)/,
    ],
  ])('fail %s', async (_what, change, id, reason) => {
    const by = await run(target({ list: listOf([record(0), change(record(1))]) }));
    expect(by[id]).toMatchObject({ status: 'failed', section: '2.1' });
    expect(by[id].reason).toMatch(reason);
    // An empty ticker breaks the row of the table (2.1.r2), not the agreement with the chain's symbol() (2.1.2).
    if (id === 'rest.token.symbol.non-empty') expect(by[id].violated).toEqual(['2.1.r2']);
  });

  it('keep the field checks to the type: an omitted multiplier is a number (0), which the value rule fails', async () => {
    const by = await run(target({ list: listOf([omit(record(0), 'multiplier')]) }));
    expect(by['rest.token.field.multiplier'].status).toBe('passed');
    expect(by['rest.token.multiplier.positive'].status).toBe('failed');
    // The whole-body schema reads the same default: 0 is a number.
    expect(by['rest.list.schema'].status).toBe('passed');
  });

  it('leave an absent field without a default to its field check: the whole-body schema names it as its cause', async () => {
    const by = await run(target({ list: listOf([omit(record(0), 'nav_price_updated_at', 'paused_features')]) }));
    expect(by['rest.token.field.nav-price-updated-at'].status).toBe('failed');
    expect(by['rest.list.schema']).toMatchObject({ status: 'inconclusive', cause: 'blocked', blockedBy: 'rest.token.field.nav-price-updated-at' });
    expect(by['rest.list.schema'].reason).toMatch(/must have required property 'nav_price_updated_at'/);
    expect(by['rest.list.schema'].reason).not.toMatch(/paused_features/);
  });

  it('state the schema failure once, citing 2.1, when the field check that owns it is not selected', async () => {
    const only = restChecks.filter((c) => c.id === 'rest.list.schema');
    const by = await run(target({ list: listOf([record(0, { decimals: '18' })]) }), only);
    expect(by['rest.list.schema']).toMatchObject({ status: 'failed' });
    expect(violatedSection(by['rest.list.schema'])).toBe('2.1');
    expect(by['rest.list.schema'].reason).toMatch(/judged by rest\.token\.field\.decimals.*decimals must be integer/);
  });
});

describe('plausible values a real deployment gets wrong (2.1)', () => {
  const by1 = (id: string) => restChecks.filter((c) => c.id === id);

  it.each<[string, Record<string, unknown>]>([
    ['the Unix epoch', { nav_price_updated_at: '1970-01-01T00:00:00Z' }],
    ['a time before any EVM chain', { nav_price_updated_at: '2009-01-03T18:15:05Z' }],
    ['the epoch with an offset', { nav_price_updated_at: '1970-01-01T01:00:00+01:00' }],
  ])('fail a real nav_price updated at %s', async (_what, over) => {
    const by = await run(target({ list: listOf([record(0), record(1, over)]) }), by1('rest.token.nav-price-updated-at.onchain-era'));
    expect(by['rest.token.nav-price-updated-at.onchain-era']).toMatchObject({ status: 'failed', section: '2.1' });
    expect(by['rest.token.nav-price-updated-at.onchain-era'].reason).toMatch(
      /tokens\[1\] .*before any EVM chain published a block \(2015-07-30T15:26:28\.000Z\), while nav_price is 187\.25/,
    );
  });

  it('pass a record with no NAV (nav_price 0 or left out) at the epoch, and real times after 2015', async () => {
    const omitted = Object.fromEntries(Object.entries(record(1, { nav_price_updated_at: '1970-01-01T00:00:00Z' })).filter(([k]) => k !== 'nav_price'));
    const tokens = [
      record(0),
      omitted,
      record(2, { nav_price: 0, nav_price_updated_at: '1970-01-01T00:00:00Z' }),
      record(3, { nav_price_updated_at: '2015-08-01T00:00:00Z' }),
    ];
    const by = await run(target({ list: listOf(tokens) }), by1('rest.token.nav-price-updated-at.onchain-era'));
    expect(by['rest.token.nav-price-updated-at.onchain-era'].status).toBe('passed');
    expect(by['rest.token.nav-price-updated-at.onchain-era'].notes?.join(' ')).toMatch(/2 of 4 records not judged.*nav_price 0 is no published NAV/);
  });

  it('give bad input a verdict, not a crash: null, text and absent values are left to their field checks', async () => {
    const tokens = [record(0, { nav_price: null }), record(1, { nav_price_updated_at: null }), record(2, { nav_price: '5' }), { symbol: 'X' }, 'not a record'];
    const by = await run(target({ list: listOf(tokens) }), by1('rest.token.nav-price-updated-at.onchain-era'));
    expect(by['rest.token.nav-price-updated-at.onchain-era']).toMatchObject({ status: 'skipped', cause: 'nothing-to-judge' });
  });

  it.each([
    [1e-18, 'failed', /looks divided by 10\^18 twice \(adjusted once it would be 1\)/],
    [2.5e-18, 'failed', /adjusted once it would be 2\.5/],
    [1e-9, 'passed', undefined],
    [0.000125, 'passed', undefined],
  ])('judge a multiplier of %d as %s', async (multiplier, status, reason) => {
    const by = await run(target({ list: listOf([record(0), record(1, { multiplier })]) }), by1('rest.token.multiplier.normalized'));
    expect(by['rest.token.multiplier.normalized'].status).toBe(status);
    if (reason) expect(by['rest.token.multiplier.normalized'].reason).toMatch(reason);
  });

  const iconChecks = restChecks.filter((c) => c.id.startsWith('rest.token.icon-url.'));
  it.each([
    'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/aapl.png',
    'ipns://icons.example.eth/aapl.svg',
    'ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U',
    'data:image/png;base64,iVBORw0KGgo=',
    'data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E',
    'https://icons.example.com/aapl.png',
  ])('pass icon_url %s, required and advisory alike', async (icon_url) => {
    const by = await run(target({ list: listOf([record(0, { icon_url })]) }), iconChecks);
    expect(statuses(by)).toEqual({ 'rest.token.icon-url.resource-url': 'passed', 'rest.token.icon-url.not-plain-http': 'passed' });
  });

  it('pass a plain http: icon_url, flagging it as advisory only', async () => {
    const by = await run(target({ list: listOf([record(0, { icon_url: 'http://icons.example.com/a.png' })]) }), iconChecks);
    expect(by['rest.token.icon-url.resource-url'].status).toBe('passed');
    expect(by['rest.token.icon-url.not-plain-http']).toMatchObject({ status: 'failed', level: 'advisory' });
  });

  it.each(['javascript:alert(1)', 'data:text/html;base64,PHNjcmlwdD4=', 'ftp://icons.example.com/a.png', 'file:///etc/icon.png', 'ipfs://'])(
    'fail icon_url %j: a URI, but none an icon loads from',
    async (icon_url) => {
      const by = await run(target({ list: listOf([record(0), record(1, { icon_url })]) }), [...iconChecks, ...by1('rest.token.field.icon-url')]);
      expect(by['rest.token.icon-url.resource-url']).toMatchObject({ status: 'failed', section: '2.1' });
      expect(by['rest.token.field.icon-url'].status).toBe('passed');
      expect(by['rest.token.icon-url.not-plain-http'].status).toBe('passed');
    },
  );

  it.each([
    '<img src="https://icons.example.com/a.png">',
    'https://icons.example.com/a.png"><script>alert(1)</script>',
    'data:image/svg+xml,<svg onload="alert(1)"/>',
    '/icons/a.png',
    '',
  ])('leave icon_url %j, no URI at all, to the field check: one failure', async (icon_url) => {
    const by = await run(target({ list: listOf([record(0), record(1, { icon_url })]) }), [...iconChecks, ...by1('rest.token.field.icon-url')]);
    expect(
      Object.values(by)
        .filter((r) => r.status === 'failed')
        .map((r) => r.id),
    ).toEqual(['rest.token.field.icon-url']);
    expect(by['rest.token.icon-url.resource-url'].notes?.join(' ')).toMatch(/not a URI .*judged by rest\.token\.field\.icon-url/);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['decimals "18"', { decimals: '18' }, 'rest.token.field.decimals'],
    ['paused_features ["1"]', { paused_features: ['1'] }, 'rest.token.field.paused-features'],
  ])('fail %s with a hint naming the proto3 JSON int64 encoding and the marshaler option', async (_what, over, id) => {
    const by = await run(target({ list: listOf([record(0, over)]) }), by1(id));
    expect(by[id]).toMatchObject({ status: 'failed', hint: INT64_AS_STRING_HINT });
    expect(by[id].reason).toMatch(/an int64 written as a JSON string/);
    expect(INT64_AS_STRING_HINT).toMatch(/protojson.*runtime\.WithMarshalerOption\(runtime\.MIMEWildcard/);
  });

  it('give no int64 hint for a wrong type of another kind', async () => {
    const by = await run(target({ list: listOf([record(0, { decimals: 'eighteen' })]) }), by1('rest.token.field.decimals'));
    expect(by['rest.token.field.decimals'].status).toBe('failed');
    expect(by['rest.token.field.decimals'].hint).toBeUndefined();
  });
});

describe('one root cause, one failure: a wrong type fails its field check alone', () => {
  const decimalsOnly = [...restChecks, ...erc20Checks].filter((c) => /decimals|rest\.list\.schema/.test(c.id));

  it('decimals "18" against the chain\'s 18 fails rest.token.field.decimals and nothing else', async () => {
    const by = await run(target({ list: listOf([record(0, { decimals: '18' }), record(1)]), decimals: () => 18 }), decimalsOnly, env({ rpcUrl: `${url}/rpc` }));
    expect(
      Object.values(by)
        .filter((r) => r.status === 'failed')
        .map((r) => r.id),
    ).toEqual(['rest.token.field.decimals']);
    expect(by['cross.token.decimals.matches-chain'].status).toBe('passed');
    expect(by['rest.list.schema']).toMatchObject({ status: 'inconclusive', blockedBy: 'rest.token.field.decimals' });
  });

  it('a real disagreement ("17" against 18) still fails the cross check, beside the field check', async () => {
    const by = await run(target({ list: listOf([record(0, { decimals: '17' })]), decimals: () => 18 }), decimalsOnly, env({ rpcUrl: `${url}/rpc` }));
    expect(by['cross.token.decimals.matches-chain']).toMatchObject({ status: 'failed', section: '2.1' });
    expect(by['cross.token.decimals.matches-chain'].reason).toMatch(/REST "17", chain 18/);
    expect(by['rest.token.field.decimals'].status).toBe('failed');
  });

  it('a value of no comparable type (null, text) is not compared: noted, and skipped when nothing else is', async () => {
    const by = await run(
      target({ list: listOf([record(0, { decimals: null }), record(1, { decimals: 'eighteen' })]), decimals: () => 18 }),
      decimalsOnly,
      env({ rpcUrl: `${url}/rpc` }),
    );
    expect(by['cross.token.decimals.matches-chain']).toMatchObject({ status: 'skipped' });
    const mixed = await run(
      target({ list: listOf([record(0, { decimals: null }), record(1)]), decimals: () => 18 }),
      decimalsOnly,
      env({ rpcUrl: `${url}/rpc` }),
    );
    expect(mixed['cross.token.decimals.matches-chain'].status).toBe('passed');
    expect(mixed['cross.token.decimals.matches-chain'].notes?.join(' ')).toMatch(/1 record\(s\) not compared.*tokens\[0\].*null/);
  });
});

describe('rest.list.no-credentials (5.1)', () => {
  const only = restChecks.filter((c) => c.id === 'rest.list.no-credentials' || c.id === 'rest.list.status-200');

  it('sends none of the configured headers, and fails when the list needs a key', async () => {
    const by = await run(target({ list: listOf([record(0)]), requireKey: 'sekrit-key-1' }), only, env({ restHeaders: { 'x-api-key': 'sekrit-key-1' } }));
    expect(by['rest.list.status-200'].status).toBe('passed'); // with the configured key
    expect(by['rest.list.no-credentials']).toMatchObject({ status: 'failed', section: '5.1', actual: { kind: 'integer', value: '401' } });
    const anonymous = seen.filter((s) => s.headers['x-api-key'] === undefined);
    expect(anonymous).toHaveLength(1);
    expect(anonymous[0].headers.accept).toBe('application/json');
  });

  it('is blocked by rest.list.status-200 when the list fails with and without the headers alike', async () => {
    const by = await run(target({ list: () => json(500, rpcStatus(13, 'internal')) }), only, env({ restHeaders: { 'x-api-key': 'sekrit-key-1' } }));
    expect(by['rest.list.status-200'].status).toBe('failed');
    expect(by['rest.list.no-credentials']).toMatchObject({ status: 'inconclusive', blockedBy: 'rest.list.status-200' });
  });

  it('fails on an error answered only without the configured headers', async () => {
    const h = target({ list: listOf([record(0)]) });
    const by = await run(
      (req) => (req.path === '/v1/tokenized-stocks' && !req.headers['x-api-key'] ? json(500, rpcStatus(13, 'no tenant')) : h(req)),
      only,
      env({ restHeaders: { 'x-api-key': 'sekrit-key-1' } }),
    );
    expect(by['rest.list.no-credentials']).toMatchObject({ status: 'failed', section: '5.1', actual: { kind: 'integer', value: '500' } });
    expect(by['rest.list.no-credentials'].reason).toMatch(/while the same GET with the configured headers answers 200/);
  });

  it('passes when the list answers without a key', async () => {
    const by = await run(target({ list: listOf([record(0)]) }), only, env({ restHeaders: { 'x-api-key': 'sekrit-key-1' } }));
    expect(by['rest.list.no-credentials'].status).toBe('passed');
  });
});

describe('cross checks (REST x eth_getCode)', () => {
  const tokens = [record(0), record(1), record(2, { contract_address: address(2).toLowerCase() })];

  it('pass when every listed address has code, even a one-byte stub', async () => {
    const by = await run(
      target({ list: listOf(tokens), code: (a) => (a === address(1).toLowerCase() ? '0xef' : '0x6080604052') }),
      crossChecks,
      env({ rpcUrl: `${url}/rpc` }),
    );
    expect(statuses(by)).toEqual({ 'cross.token.has-code.latest': 'passed', 'cross.token.has-code.pending': 'passed' });
    expect(seen.filter((s) => s.path === '/rpc')).toHaveLength(6);
  });

  it('fail naming the record whose address has no code', async () => {
    const by = await run(
      target({ list: listOf(tokens), code: (a, block) => (a === address(2).toLowerCase() && block === 'latest' ? '0x' : '0x60') }),
      crossChecks,
      env({ rpcUrl: `${url}/rpc` }),
    );
    expect(by['cross.token.has-code.latest']).toMatchObject({ status: 'failed' });
    expect(by['cross.token.has-code.latest'].reason).toContain(`tokens[2] (${address(2).toLowerCase()})`);
    expect(by['cross.token.has-code.pending'].status).toBe('passed');
  });

  it('skip on an empty list, and without an RPC target', async () => {
    const by = await run(target({ list: listOf([]), code: () => '0x60' }), crossChecks, env({ rpcUrl: `${url}/rpc` }));
    expect(by['cross.token.has-code.latest']).toMatchObject({ status: 'skipped', reason: EMPTY_LIST });
    const without = await run(target({ list: listOf(tokens) }), crossChecks);
    expect(without['cross.token.has-code.latest']).toMatchObject({
      status: 'skipped',
      cause: 'out-of-scope',
      reason: 'needs --rpc-url (JSON-RPC target)',
      outOfScope: { flag: '--rpc-url', words: 'no --rpc-url' },
    });
  });

  it('state a list answering 500 once when run without the REST checks, the other blocked by it', async () => {
    const by = await run(target({ list: () => json(500, rpcStatus(13, 'internal')), code: () => '0x60' }), crossChecks, env({ rpcUrl: `${url}/rpc` }));
    expect(by['cross.token.has-code.latest']).toMatchObject({ status: 'failed' });
    expect(violatedSection(by['cross.token.has-code.latest'])).toBe('4.1');
    expect(by['cross.token.has-code.pending']).toMatchObject({ status: 'inconclusive', blockedBy: 'cross.token.has-code.latest' });
    expect(seen.filter((s) => s.path === '/rpc')).toHaveLength(0);
  });
});

describe('powerOfTenOff (cross.token.total-supply.normalized)', () => {
  const { powerOfTenOff } = require('../../suites/cross/erc20') as typeof import('../../suites/cross/erc20');
  it.each([
    [1_000_000e18, 1_000_000, 18],
    [1_000_000e6, 1_000_000, 6],
    [1234.5, 1234.5e12, -12],
  ])('%d vs chain %d is off by 10^%d', (rest, chain, k) => expect(powerOfTenOff(rest, chain)).toBe(k));
  it.each([
    [1_000_000, 1_000_000],
    [1_000_001, 1_000_000], // supply moved between reads: not a scale error
    [0, 5],
  ])('%d vs chain %d is no scale error', (rest, chain) => expect(powerOfTenOff(rest, chain)).toBeUndefined());
});

describe('numericValue (the cross checks compare values, not JSON types)', () => {
  const { numericValue } = require('../../suites/cross/erc20') as typeof import('../../suites/cross/erc20');
  it.each<[unknown, number]>([
    [18, 18],
    ['18', 18],
    ['-3', -3],
    ['1000.5', 1000.5],
    ['1e21', 1e21],
  ])('%j stands for %d', (v, n) => expect(numericValue(v)).toBe(n));
  it.each([null, undefined, '', ' 18', '18 ', '0x12', 'eighteen', '1_000', 'NaN', 'Infinity', true, [18], { n: 18 }])('%j stands for no number', (v) =>
    expect(numericValue(v)).toBeUndefined(),
  );
});

describe('a list body without "tokens" (grpc-gateway omits an empty repeated field)', () => {
  it('is an empty list when nothing else in it holds records; records under another name stay a missing "tokens"', () => {
    expect(withDefaultTokens({})).toEqual({ tokens: [] });
    expect(withDefaultTokens({ nextPageToken: '', warnings: [] })).toEqual({ nextPageToken: '', warnings: [], tokens: [] });
    // Evidence against an empty list: the records are there, under "data" (2.2 names the member "tokens").
    const misplaced = { data: [{ ticker: 'AAPL', contract_address: '0x0000000000000000000000000000000000000001' }] };
    expect(withDefaultTokens(misplaced)).toBe(misplaced);
    expect(omitsTokens(misplaced)).toBe(false);
    // A JSON null is no proto3 default: it stays the type error it is.
    expect(withDefaultTokens({ tokens: null })).toEqual({ tokens: null });
  });
});
