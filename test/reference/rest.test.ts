// The REST listing at {base_url}: records built from chain state, rpcStatus errors, and the
// scenario controls (library and dev HTTP endpoints) showing up in the next answer.
import { getAddress } from 'viem';
import { startReference, type ReferenceTarget } from '../../src/reference';
import type { TokenRecord } from '../../src/reference/listing';
import { isValidIsin, post, rpc } from './helpers';

const FIELDS = [
  'contract_address', 'decimals', 'icon_url', 'isin', 'multiplier', 'name',
  'nav_price', 'nav_price_updated_at', 'paused_features', 'symbol', 'total_supply',
];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let ref: ReferenceTarget;

beforeAll(async () => {
  const t = performance.now();
  ref = await startReference({ blockTimeMs: 1000, controls: true });
  const ms = performance.now() - t;
  console.log(`reference start-up: ${ms.toFixed(0)} ms (self-reported ${ref.startupMs} ms)`);
  expect(ms).toBeLessThan(3000);
});

afterAll(() => ref?.stop());

async function list(): Promise<TokenRecord[]> {
  const res = await fetch(`${ref.baseUrl}/v1/tokenized-stocks`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  const body = (await res.json()) as { tokens: TokenRecord[] };
  expect(Object.keys(body)).toEqual(['tokens']);
  return body.tokens;
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
    const res = await fetch(`${ref.baseUrl}/v1/tokenized-stocks`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('');
  });

  test('an unknown path is 404 with an rpcStatus body', async () => {
    for (const path of ['/v1/tokenized-stock', '/', '/v2/tokenized-stocks', '/_dev/nothing']) {
      const res = await fetch(`${ref.baseUrl}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ code: 5, message: expect.any(String), details: [] });
    }
  });

  test('other methods are 405 with an rpcStatus body and an Allow header', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${ref.baseUrl}/v1/tokenized-stocks`, { method, body: method === 'DELETE' ? undefined : '{}' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toContain('GET');
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ code: 12, message: expect.any(String), details: [] });
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
    const dev = (path: string, body: unknown) => post(`${ref.baseUrl}/_dev/${path}`, body);
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
    expect((await dev('seal', {})).status).toBe(200);
    expect(Number(await rpc(ref.rpcUrl, 'eth_blockNumber'))).toBeGreaterThan(before);

    const unknown = await dev('pause', { symbol: 'ZZZZ', feature: 1 });
    expect([unknown.status, unknown.body.code]).toEqual([404, 5]);
    const bad = await dev('corporate-action', { symbol: 'NVDA', multiplier: 'two' });
    expect([bad.status, bad.body.code, bad.body.details]).toEqual([400, 3, []]);
    const malformed = await dev('round', '{nope');
    expect([malformed.status, malformed.body.code]).toEqual([400, 3]);
  });
});

describe('without --controls', () => {
  test('the dev endpoints do not exist', async () => {
    const other = await startReference({ blockTimeMs: 1000 });
    try {
      const res = await post(`${other.baseUrl}/_dev/seal`, {});
      expect([res.status, res.body.code]).toEqual([404, 5]);
    } finally {
      await other.stop();
    }
  });
});
