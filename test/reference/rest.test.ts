// The REST listing at {base_url}: records built from chain state, rpcStatus errors, and the
// scenario controls (library and dev HTTP endpoints) showing up in the next answer. Requests
// go through supertest against the reference's own node http.Server (in-process, already
// listening on 127.0.0.1, so supertest neither starts nor stops it).
import request from 'supertest';
import { getAddress } from 'viem';
import { startReference, type ReferenceTarget } from '../../src/reference';
import type { TokenRecord } from '../../src/reference/listing';
import { isValidIsin, rpc } from './helpers';

const FIELDS = [
  'contract_address',
  'decimals',
  'icon_url',
  'isin',
  'multiplier',
  'name',
  'nav_price',
  'nav_price_updated_at',
  'paused_features',
  'symbol',
  'total_supply',
];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let ref: ReferenceTarget;

// How fast the reference starts is measured by `npm run bench` (startup), not asserted here.
beforeAll(async () => {
  ref = await startReference({ blockTimeMs: 1000, controls: true });
});

afterAll(() => ref?.stop());

const RPC_STATUS = { code: expect.any(Number), message: expect.any(String), details: [] };

async function list(): Promise<TokenRecord[]> {
  const res = await request(ref.restServer).get('/v1/tokenized-stocks').expect(200).expect('Content-Type', 'application/json');
  const body = res.body as { tokens: TokenRecord[] };
  expect(Object.keys(body)).toEqual(['tokens']);
  return body.tokens;
}

/** POST to a dev endpoint; a string body is sent as it is (for malformed JSON). */
function dev(path: string, body: unknown) {
  return request(ref.restServer)
    .post(`/_dev/${path}`)
    .set('Content-Type', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body));
}

async function bySymbol(symbol: string): Promise<TokenRecord> {
  const found = (await list()).find((t) => t.symbol === symbol);
  if (!found) throw new Error(`${symbol} not listed`);
  return found;
}

describe('GET /v1/tokenized-stocks', () => {
  test('lists at least 6 well-formed records whose contracts have code', async () => {
    const tokens = await list();
    expect(tokens.length).toBeGreaterThanOrEqual(6);
    for (const t of tokens) {
      expect(Object.keys(t).sort()).toEqual(FIELDS);
      expect(getAddress(t.contract_address)).toBe(t.contract_address);
      expect(t.symbol).toMatch(/^[A-Z.]{1,10}$/);
      expect(t.name.length).toBeGreaterThan(0);
      expect(Number.isInteger(t.decimals)).toBe(true);
      expect(new URL(t.icon_url).protocol).toBe('https:');
      expect(typeof t.total_supply).toBe('number');
      expect(isValidIsin(t.isin)).toBe(true);
      expect(t.multiplier).toBeGreaterThan(0);
      expect(t.paused_features.every((f) => Number.isInteger(f))).toBe(true);
      expect(t.nav_price).toBeGreaterThan(0);
      expect(t.nav_price_updated_at).toMatch(RFC3339);
      expect(Number.isNaN(Date.parse(t.nav_price_updated_at))).toBe(false);
      expect(await rpc(ref.rpcUrl, 'eth_getCode', [t.contract_address, 'latest'])).not.toBe('0x');
    }
    // The listing is meant to be interesting: mixed decimals, a non-trivial multiplier, a pause.
    expect(new Set(tokens.map((t) => t.decimals)).size).toBeGreaterThan(1);
    expect(tokens.some((t) => t.multiplier !== 1)).toBe(true);
    expect(tokens.some((t) => t.paused_features.length > 0)).toBe(true);
    expect(tokens.map((t) => t.contract_address).sort()).toEqual(ref.tokens.map((t) => t.address).sort());
  });

  test('HEAD answers like GET without a body', async () => {
    const get = await request(ref.restServer).get('/v1/tokenized-stocks').expect(200);
    const head = await request(ref.restServer).head('/v1/tokenized-stocks').expect(200).expect('Content-Type', 'application/json');
    expect(head.text ?? '').toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  test('the same server answers at baseUrl, where the suite reaches it', async () => {
    expect(ref.baseUrl).toBe(`http://127.0.0.1:${(ref.restServer.address() as { port: number }).port}`);
    const res = await fetch(`${ref.baseUrl}/v1/tokenized-stocks`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tokens: unknown[] }).tokens.length).toBe(ref.tokens.length);
  });

  test('an unknown path is 404 with an rpcStatus body', async () => {
    for (const path of ['/v1/tokenized-stock', '/', '/v2/tokenized-stocks', '/_dev/nothing']) {
      const res = await request(ref.restServer).get(path).expect(404).expect('Content-Type', 'application/json');
      expect(res.body).toEqual({ ...RPC_STATUS, code: 5 });
    }
  });

  test('other methods are 405 with an rpcStatus body and an Allow header', async () => {
    const agent = request(ref.restServer);
    const calls = [
      agent.post('/v1/tokenized-stocks').send({}),
      agent.put('/v1/tokenized-stocks').send({}),
      agent.patch('/v1/tokenized-stocks').send({}),
      agent.delete('/v1/tokenized-stocks'),
    ];
    for (const call of calls) {
      const res = await call.expect(405).expect('Content-Type', 'application/json').expect('Allow', /GET/);
      expect(res.body).toEqual({ ...RPC_STATUS, code: 12 });
    }
  });
});

describe('scenario controls', () => {
  test('library controls are visible in the next REST answer', async () => {
    await ref.controls.corporateAction('MSFT', 1.05);
    expect((await bySymbol('MSFT')).multiplier).toBe(1.05);

    const at = new Date('2025-06-02T13:30:00Z');
    await ref.controls.publishRound('AAPL', 231.12345678, at);
    const aapl = await bySymbol('AAPL');
    expect(aapl.nav_price).toBe(231.12345678);
    expect(aapl.nav_price_updated_at).toBe('2025-06-02T13:30:00Z');

    await ref.controls.pause('AAPL', 3);
    expect((await bySymbol('AAPL')).paused_features).toContain(3);
    await ref.controls.unpause('AAPL', 3);
    expect((await bySymbol('AAPL')).paused_features).not.toContain(3);

    await expect(ref.controls.corporateAction('NOPE', 2)).rejects.toThrow(/unknown symbol/);
  });

  test('dev HTTP endpoints change the listing and reject bad input as rpcStatus', async () => {
    expect((await dev('corporate-action', { symbol: 'NVDA', multiplier: 20 })).status).toBe(200);
    expect((await bySymbol('NVDA')).multiplier).toBe(20);

    expect((await dev('round', { symbol: 'TSLA', navPrice: 199.5, updatedAt: '2025-01-02T03:04:05Z' })).status).toBe(200);
    const tsla = await bySymbol('TSLA');
    expect([tsla.nav_price, tsla.nav_price_updated_at]).toEqual([199.5, '2025-01-02T03:04:05Z']);

    expect((await dev('pause', { symbol: 'NVDA', feature: 2 })).status).toBe(200);
    expect((await bySymbol('NVDA')).paused_features).toEqual([2]);
    expect((await dev('unpause', { symbol: 'NVDA', feature: 2 })).status).toBe(200);
    expect((await bySymbol('NVDA')).paused_features).toEqual([]);

    const before = Number(await rpc(ref.rpcUrl, 'eth_blockNumber'));
    await dev('seal', {}).expect(200, { ok: true });
    expect(Number(await rpc(ref.rpcUrl, 'eth_blockNumber'))).toBeGreaterThan(before);

    const unknown = await dev('pause', { symbol: 'ZZZZ', feature: 1 }).expect(404);
    expect(unknown.body).toEqual({ ...RPC_STATUS, code: 5 });
    const bad = await dev('corporate-action', { symbol: 'NVDA', multiplier: 'two' }).expect(400);
    expect(bad.body).toEqual({ ...RPC_STATUS, code: 3 });
    const malformed = await dev('round', '{nope').expect(400);
    expect(malformed.body).toEqual({ ...RPC_STATUS, code: 3 });
    await request(ref.restServer).get('/_dev/seal').expect(405).expect('Allow', 'POST');
  });
});

describe('without --controls', () => {
  test('the dev endpoints do not exist', async () => {
    const other = await startReference({ blockTimeMs: 1000 });
    try {
      const res = await request(other.restServer).post('/_dev/seal').send({}).expect(404);
      expect(res.body).toEqual({ ...RPC_STATUS, code: 5 });
    } finally {
      await other.stop();
    }
  });
});
