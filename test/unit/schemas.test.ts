import * as fs from 'node:fs';
import * as path from 'node:path';
import { SCHEMA_BASE, SCHEMA_DIR, SCHEMA_REFS, rawSchemaAt, validate, validateRef, type SchemaName } from '../../src/harness/schemas';
import { TOKEN_FIELDS, localSchemaResolver, schemaOf } from '../support/schemas';

const TOKEN = Object.freeze({
  contract_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  symbol: 'AAPLx',
  name: 'Apple Inc.',
  decimals: 18,
  icon_url: 'https://example.com/icons/aapl.png',
  total_supply: 1234.5,
  isin: 'US0378331005',
  multiplier: 1.0,
  paused_features: [] as number[],
  nav_price: 189.25,
  nav_price_updated_at: '2024-05-01T13:30:00Z',
});

function token(patch: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...structuredClone(TOKEN), ...patch };
}

function without(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

const RECEIPT = Object.freeze({
  transactionHash: '0x' + 'ab'.repeat(32),
  blockNumber: '0x1b4',
  status: '0x1',
  gasUsed: '0x5208',
  type: '0x2',
});

/**
 * Schemas the checks validate by name, and the files no check names but that still hold a shape
 * of the spec (2.1 record, 2.3 protobufAny, 2.5 transaction) or a format, by ref.
 */
const BY_REF = {
  token: 'token.json',
  protobufAny: 'protobuf-any.json',
  transaction: 'transaction.json',
  address: 'hex.json#/$defs/address',
  blockParam: 'hex.json#/$defs/blockParam',
} as const;
type Shape = SchemaName | keyof typeof BY_REF;
function validateShape(name: Shape, value: unknown) {
  return name in BY_REF ? validateRef(BY_REF[name as keyof typeof BY_REF], value) : validate(name as SchemaName, value);
}

function expectValid(name: Shape, value: unknown): void {
  const v = validateShape(name, value);
  expect(v.errors).toEqual([]);
  expect(v.valid).toBe(true);
}

/** Asserts the value is invalid with at least one error, and returns the errors. */
function invalidErrors(name: Shape, value: unknown): string[] {
  const v = validateShape(name, value);
  expect(v.valid).toBe(false);
  expect(v.errors.length).toBeGreaterThan(0);
  return v.errors;
}

function expectInvalid(name: Shape, value: unknown): void {
  invalidErrors(name, value);
}

describe('schema files', () => {
  const files = fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json'));

  test('the canonical set exists (other files may sit beside it)', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'hex.json',
        'jsonrpc-response.json',
        'list.json',
        'protobuf-any.json',
        'receipt.json',
        'rpc-status.json',
        'token.json',
        'transaction.json',
      ]),
    );
  });

  test.each(files)('%s compiles in strict mode', (f) => {
    expect(() => validateRef(f, null)).not.toThrow();
  });

  test.each(files)('%s is draft 2020-12 with an $id named after the file', (f) => {
    const s = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8')) as Record<string, unknown>;
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(s.$id).toBe(SCHEMA_BASE + f);
  });

  test.each([...Object.keys(SCHEMA_REFS), ...Object.keys(BY_REF)] as Shape[])('%s compiles in strict mode', (name) => {
    expect(() => validateShape(name, null)).not.toThrow();
  });

  test('every relative $ref in every file resolves', () => {
    const refs: Array<[string, string]> = [];
    const walk = (node: unknown, file: string): void => {
      if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') refs.push([file, v]);
          else walk(v, file);
        }
      }
    };
    for (const f of files) walk(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8')), f);
    expect(refs.length).toBeGreaterThan(10);
    for (const [file, ref] of refs) {
      const target = ref.startsWith('#') ? file + ref : ref;
      expect(() => rawSchemaAt(target)).not.toThrow();
      expect(() => validateRef(target, null)).not.toThrow();
    }
  });
});

describe('token (v1TokenizedEquityToken, spec 2.1)', () => {
  test('TOKEN_FIELDS is the 2.1 table, in table order', () => {
    expect(TOKEN_FIELDS).toEqual([
      'contract_address',
      'symbol',
      'name',
      'decimals',
      'icon_url',
      'total_supply',
      'isin',
      'multiplier',
      'paused_features',
      'nav_price',
      'nav_price_updated_at',
    ]);
    expect(Object.isFrozen(TOKEN_FIELDS)).toBe(true);
  });

  test('every required field has a property schema, and vice versa', () => {
    const s = rawSchemaAt('token.json') as { required: string[]; properties: Record<string, unknown> };
    expect(Object.keys(s.properties)).toEqual(s.required);
  });

  test('a complete record is valid', () => expectValid('token', token()));

  test('unknown extra fields are tolerated', () => {
    expectValid('token', token({ chain_id: 1, exchange: 'XNAS', nested: { a: [1] } }));
  });

  test.each([...TOKEN_FIELDS])('missing %s is invalid and named', (field) => {
    const errors = invalidErrors('token', without(token(), field));
    expect(errors).toContain(`(root) must have required property '${field}'`);
  });

  test.each([...TOKEN_FIELDS])('%s: null is invalid', (field) => {
    expectInvalid('token', token({ [field]: null }));
  });

  test('judgement stays out of the schema: raw 1e18 multiplier, 0 multiplier, odd decimals are shape-valid', () => {
    expectValid('token', token({ multiplier: 1e18 }));
    expectValid('token', token({ multiplier: 0 }));
    expectValid('token', token({ multiplier: -1 }));
    expectValid('token', token({ decimals: 300 }));
    expectValid('token', token({ decimals: -1 }));
    expectValid('token', token({ total_supply: 0, nav_price: 0 }));
    expectValid('token', token({ nav_price_updated_at: '1970-01-01T00:00:00Z' }));
    expectValid('token', token({ symbol: '', name: '' }));
    expectValid('token', token({ paused_features: [0, 1, 2, 255] }));
    expectValid('token', token({ decimals: 6.0 })); // JSON 6.0 is the integer 6
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['bad ISIN check digit', { isin: 'US0378331006' }, '/isin must match format "isin" (got "US0378331006")'],
    ['lowercase ISIN', { isin: 'us0378331005' }, '/isin must match format "isin"'],
    ['ISIN as a number', { isin: 378331005 }, '/isin must be string'],
    ['address with a broken checksum', { contract_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }, '/contract_address must match format "evm-address"'],
    ['short address', { contract_address: '0x1234' }, '/contract_address must match format "evm-address"'],
    ['fractional decimals', { decimals: 18.5 }, '/decimals must be integer'],
    ['decimals as a string', { decimals: '18' }, '/decimals must be integer'],
    ['relative icon_url', { icon_url: 'icons/aapl.png' }, '/icon_url must match format "url"'],
    ['total_supply as a string', { total_supply: '1234.5' }, '/total_supply must be number'],
    ['multiplier as a string', { multiplier: '1000000000000000000' }, '/multiplier must be number'],
    ['nav_price as a string', { nav_price: '189.25' }, '/nav_price must be number'],
    ['paused_features not an array', { paused_features: 1 }, '/paused_features must be array'],
    ['paused_features with a fraction', { paused_features: [1.5] }, '/paused_features/0 must be integer'],
    ['paused_features with a string', { paused_features: ['1'] }, '/paused_features/0 must be integer'],
    ['date-time without offset', { nav_price_updated_at: '2024-05-01T13:30:00' }, '/nav_price_updated_at must match format "date-time"'],
    ['date-time February 30', { nav_price_updated_at: '2024-02-30T13:30:00Z' }, '/nav_price_updated_at must match format "date-time"'],
    ['date-time as epoch seconds', { nav_price_updated_at: 1714570200 }, '/nav_price_updated_at must be string'],
    ['symbol as a number', { symbol: 1 }, '/symbol must be string'],
  ])('%s is invalid', (_what, patch, expected) => {
    const errors = invalidErrors('token', token(patch));
    expect(errors.some((e) => e.startsWith(expected))).toBe(true);
  });

  test('a non-object is invalid', () => {
    for (const v of [null, [], 'token', 1]) expectInvalid('token', v);
  });

  // The scheme is judged by rest.token.icon-url.resource-url; the field's format (url) takes every
  // absolute URI, so an icon under ipfs:// is not failed twice, nor passed by one check and failed by the other.
  test.each([
    'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/aapl.png',
    'ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U',
    'data:image/png;base64,iVBORw0KGgo=',
    'javascript:alert(1)',
  ])('icon_url %s is shape-valid (a URI): its scheme is a value rule', (icon_url) => expectValid('token', token({ icon_url })));

  test.each(['<img src="https://example.com/a.png">', '/icons/a.png', ''])('icon_url %j is no URI at all', (icon_url) =>
    expectInvalid('token', token({ icon_url })),
  );

  test("date-time is our RFC 3339 format, not ajv-formats' (which accepts a space separator)", () => {
    expect(validateRef('token.json#/properties/nav_price_updated_at', '2024-05-01 13:30:00Z').valid).toBe(false);
    expect(validateRef('token.json#/properties/nav_price_updated_at', '2024-05-01T13:30:00+05:30').valid).toBe(true);
  });

  test('single fields validate through token.json#/properties/<field>', () => {
    expect(validateRef('token.json#/properties/isin', 'US88160R1014')).toEqual({ valid: true, errors: [] });
    expect(validateRef('token.json#/properties/isin', 'US88160R1015')).toEqual({
      valid: false,
      errors: ['(root) must match format "isin" (got "US88160R1015")'],
    });
    expect(validateRef('token.json#/properties/contract_address', '0x52908400098527886E0F7030069857D2E4169EE7').valid).toBe(true);
    expect(validateRef('token.json#/properties/paused_features', [1, 2]).valid).toBe(true);
    for (const field of TOKEN_FIELDS) {
      expect(validateRef(`token.json#/properties/${field}`, (TOKEN as Record<string, unknown>)[field]).valid).toBe(true);
    }
  });
});

describe('list (v1ListTokenizedEquityTokensResponse, spec 2.2)', () => {
  test('an empty list is valid', () => expectValid('list', { tokens: [] }));
  test('a list of records is valid', () => expectValid('list', { tokens: [token(), token({ symbol: 'TSLAx', isin: 'US88160R1014' })] }));
  test('extra top-level fields are tolerated', () => expectValid('list', { tokens: [], next_page_token: '' }));
  test('missing tokens is invalid', () => {
    expect(invalidErrors('list', {})).toEqual(["(root) must have required property 'tokens'"]);
  });
  test('tokens not an array is invalid', () => {
    expectInvalid('list', { tokens: null });
    expectInvalid('list', { tokens: {} });
  });
  test('a bare array is invalid', () => expectInvalid('list', [token()]));
  test('errors point at the offending record and field, with the value', () => {
    const errors = invalidErrors('list', { tokens: [token(), token({ isin: 'US0378331006' })] });
    expect(errors).toEqual(['/tokens/1/isin must match format "isin" (got "US0378331006")']);
  });
  test('a record missing a field is named by index', () => {
    const errors = invalidErrors('list', { tokens: [without(token(), 'nav_price')] });
    expect(errors).toEqual(["/tokens/0 must have required property 'nav_price'"]);
  });
  test('all errors are reported, not only the first', () => {
    const errors = invalidErrors('list', { tokens: [token({ decimals: 'x', isin: 'x' })] });
    expect(errors.some((e) => e.startsWith('/tokens/0/decimals'))).toBe(true);
    expect(errors.some((e) => e.startsWith('/tokens/0/isin'))).toBe(true);
  });
});

describe('rpcStatus and protobufAny (spec 2.3, 7)', () => {
  test.each<[string, unknown]>([
    ['code and message', { code: 5, message: 'not found' }],
    ['empty details', { code: 13, message: 'internal', details: [] }],
    [
      'details carrying @type and more',
      { code: 3, message: 'bad', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'X', metadata: {} }] },
    ],
    ['int32 bounds', { code: -2147483648, message: '' }],
    ['int32 bounds', { code: 2147483647, message: '' }],
    ['extra fields', { code: 2, message: 'unknown', error: 'unknown', http_status: 500 }],
  ])('%s is valid', (_what, v) => expectValid('rpcStatus', v));

  test.each<[string, unknown]>([
    ['details item lacking @type', { code: 5, message: 'x', details: [{}] }],
    ['details item with a non-string @type', { code: 5, message: 'x', details: [{ '@type': 1 }] }],
    ['details item not an object', { code: 5, message: 'x', details: ['type.googleapis.com/x'] }],
    ['details not an array', { code: 5, message: 'x', details: { '@type': 'x' } }],
    ['missing code', { message: 'x' }],
    ['missing message', { code: 5 }],
    ['code beyond int32', { code: 2147483648, message: 'x' }],
    ['code below int32', { code: -2147483649, message: 'x' }],
    ['fractional code', { code: 5.5, message: 'x' }],
    ['code as a string', { code: '5', message: 'x' }],
    ['message not a string', { code: 5, message: null }],
    ['not an object', 'Internal Server Error'],
  ])('%s is invalid', (_what, v) => expectInvalid('rpcStatus', v));

  test('a details item lacking @type is named', () => {
    expect(validate('rpcStatus', { code: 5, message: 'x', details: [{ a: 1 }] }).errors).toEqual(["/details/0 must have required property '@type'"]);
  });

  test('the decision on required fields is documented in the schema', () => {
    const s = schemaOf('rpcStatus') as { required: string[]; $comment: string };
    expect(s.required).toEqual(['code', 'message']);
    expect(s.$comment).toMatch(/details is optional/);
  });

  test('protobufAny on its own', () => {
    expectValid('protobufAny', { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [] });
    expectInvalid('protobufAny', {});
    expectInvalid('protobufAny', { '@type': null });
    expectInvalid('protobufAny', []);
  });
});

describe('receipt (spec 2.4)', () => {
  test('the five shown fields as hex are valid', () => expectValid('receipt', { ...RECEIPT }));
  test('other receipt fields are tolerated, whatever their shape', () => {
    expectValid('receipt', {
      ...RECEIPT,
      blockHash: '0x' + 'cd'.repeat(32),
      logs: [],
      logsBloom: '0x' + '00'.repeat(256),
      contractAddress: null,
      cumulativeGasUsed: '0x5208',
      effectiveGasPrice: '0x3b9aca00',
      from: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
      to: null,
    });
  });
  test.each(Object.keys(RECEIPT))('missing %s is invalid', (field) => {
    expect(invalidErrors('receipt', without({ ...RECEIPT }, field))).toContain(`(root) must have required property '${field}'`);
  });
  test.each<[string, Record<string, unknown>]>([
    ['blockNumber as a decimal number', { blockNumber: 436 }],
    ['gasUsed as a decimal string', { gasUsed: '21000' }],
    ['status with a leading zero', { status: '0x01' }],
    ['status as a boolean', { status: true }],
    ['type uppercase', { type: '0X2' }],
    ['transactionHash uppercase', { transactionHash: '0x' + 'AB'.repeat(32) }],
    ['transactionHash too short', { transactionHash: '0x' + 'ab'.repeat(31) }],
    ['transactionHash without prefix', { transactionHash: 'ab'.repeat(32) }],
  ])('%s is invalid', (_what, patch) => expectInvalid('receipt', { ...RECEIPT, ...patch }));
  test('a decimal number is reported with its value', () => {
    expect(validate('receipt', { ...RECEIPT, blockNumber: 436 }).errors).toEqual(['/blockNumber must be string (got 436)']);
  });
});

describe('transaction (spec 2.5)', () => {
  test('the empty object is valid (every field optional)', () => expectValid('transaction', {}));
  test('every field filled is valid', () => {
    expectValid('transaction', {
      from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      to: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
      gas: '0x5208',
      gasPrice: '0x3b9aca00',
      maxFeePerGas: '0x77359400',
      maxPriorityFeePerGas: '0x0',
      value: '0xde0b6b3a7640000',
      data: '0xa9059cbb',
    });
  });
  test('a deployment (no to) is valid', () => expectValid('transaction', { from: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', data: '0x6080604052' }));
  test('other call-object fields are tolerated', () => expectValid('transaction', { input: '0x', nonce: '0x1', chainId: '0x1', accessList: [] }));
  test.each<[string, Record<string, unknown>]>([
    ['from with a bad checksum', { from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }],
    ['to too short', { to: '0x1234' }],
    ['value as a number', { value: 1 }],
    ['value with a leading zero', { value: '0x01' }],
    ['gas as a decimal string', { gas: '21000' }],
    ['data of odd length', { data: '0x0' }],
    ['data uppercase', { data: '0xA9059CBB' }],
  ])('%s is invalid', (_what, v) => expectInvalid('transaction', v));
  test('an array is invalid', () => expectInvalid('transaction', []));
});

describe('jsonrpcResponse (spec 4.2)', () => {
  test.each<[string, unknown]>([
    ['success', { jsonrpc: '2.0', id: 1, result: '0x0' }],
    ['success with a null result', { jsonrpc: '2.0', id: 1, result: null }],
    ['success with an array result', { jsonrpc: '2.0', id: 7, result: [{ ...RECEIPT }] }],
    ['string id', { jsonrpc: '2.0', id: 'a', result: '0x' }],
    ['error', { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'execution reverted' } }],
    ['error with data', { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'execution reverted', data: '0x08c379a0' } }],
    ['error with a null id', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }],
    ['error with extra members', { jsonrpc: '2.0', id: 1, error: { code: 3, message: 'execution reverted: x', data: '0x', details: 'x' } }],
  ])('%s is valid', (_what, v) => expectValid('jsonrpcResponse', v));

  test.each<[string, unknown]>([
    ['both result and error', { jsonrpc: '2.0', id: 1, result: '0x0', error: { code: -32000, message: 'x' } }],
    ['neither result nor error', { jsonrpc: '2.0', id: 1 }],
    ['wrong jsonrpc version', { jsonrpc: '1.0', id: 1, result: '0x0' }],
    ['jsonrpc as a number', { jsonrpc: 2.0, id: 1, result: '0x0' }],
    ['missing jsonrpc', { id: 1, result: '0x0' }],
    ['missing id', { jsonrpc: '2.0', result: '0x0' }],
    ['id as an object', { jsonrpc: '2.0', id: {}, result: '0x0' }],
    ['error code as a string', { jsonrpc: '2.0', id: 1, error: { code: '-32000', message: 'x' } }],
    ['error code fractional', { jsonrpc: '2.0', id: 1, error: { code: -32000.5, message: 'x' } }],
    ['error without message', { jsonrpc: '2.0', id: 1, error: { code: -32000 } }],
    ['error as a string', { jsonrpc: '2.0', id: 1, error: 'execution reverted' }],
    ['a batch array', [{ jsonrpc: '2.0', id: 1, result: '0x0' }]],
  ])('%s is invalid', (_what, v) => expectInvalid('jsonrpcResponse', v));

  test('both result and error says which branches matched', () => {
    expect(validate('jsonrpcResponse', { jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'x' } }).errors).toEqual([
      '(root) must match exactly one schema in oneOf but matches 2 (#0, #1) (got an object)',
    ]);
  });

  test('the error object validates on its own', () => {
    expect(validateRef('jsonrpc-response.json#/$defs/error', { code: -32000, message: 'execution reverted' }).valid).toBe(true);
    expect(validateRef('jsonrpc-response.json#/$defs/error', { code: -32000 }).valid).toBe(false);
  });
});

describe('hex types (spec 4.2-4.6)', () => {
  test('hexQuantity', () => {
    for (const q of ['0x0', '0x1', '0x5208']) expectValid('hexQuantity', q);
    for (const q of ['0x', '0x00', '0xA', 21000, null]) expectInvalid('hexQuantity', q);
  });
  test.each([
    ['hexQuantity', '0x1E', /must match format "hex-quantity" \(got "0x1E"\): a quantity is 0x and lowercase hex digits without leading zeros/],
    ['hexQuantity', '0x01e', /without leading zeros/],
    ['hexBytes', '0x60AB', /must match format "hex-bytes" \(got "0x60AB"\): bytes are 0x and an even number of lowercase hex digits/],
  ])('a %s failure %j says which encoding is meant', (name, value, words) => {
    expect(validate(name as 'hexQuantity', value).errors).toEqual([expect.stringMatching(words)]);
  });
  test('hexBytes', () => {
    for (const b of ['0x', '0x00', '0x6080604052']) expectValid('hexBytes', b);
    for (const b of ['0x0', '0xAB', '', 0]) expectInvalid('hexBytes', b);
  });
  test('address', () => {
    for (const a of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed']) expectValid('address', a);
    for (const a of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', '0x', null]) expectInvalid('address', a);
  });
  test('blockParam: the five tags and hex numbers', () => {
    for (const b of ['latest', 'pending', 'safe', 'finalized', 'earliest', '0x0', '0x1b4']) expectValid('blockParam', b);
  });
  test.each<[string, unknown]>([
    ['uppercase tag', 'PENDING'],
    ['unknown tag', 'committed'],
    ['hex with a leading zero', '0x01'],
    ['decimal string', '436'],
    ['number', 436],
    ['EIP-1898 object (not in the spec)', { blockNumber: '0x1' }],
    ['empty', ''],
  ])('blockParam: %s is invalid', (_what, v) => expectInvalid('blockParam', v));
  test('hash32 by ref', () => {
    expect(validateRef('hex.json#/$defs/hash32', '0x' + '0'.repeat(64)).valid).toBe(true);
    expect(validateRef('hex.json#/$defs/hash32', '0x' + '0'.repeat(63)).valid).toBe(false);
  });
});

describe('module API', () => {
  test('validateRef accepts relative refs and absolute $id URIs alike', () => {
    expect(validateRef(`${SCHEMA_BASE}token.json#/properties/isin`, 'US0378331005').valid).toBe(true);
    expect(validateRef('list.json', { tokens: [] }).valid).toBe(true);
    expect(validateRef(`${SCHEMA_BASE}list.json`, { tokens: [] }).valid).toBe(true);
  });
  test('a ref that points nowhere throws (a bug, not a verdict)', () => {
    expect(() => validateRef('nope.json', 1)).toThrow();
    expect(() => validateRef('token.json#/properties/nope', 1)).toThrow();
    expect(() => validate('nope' as SchemaName, 1)).toThrow();
  });
  test('schemaOf gives the raw, frozen schema; fragments give the sub-schema', () => {
    const t = rawSchemaAt('token.json') as Record<string, unknown>;
    expect(t.title).toBe('v1TokenizedEquityToken');
    expect(t.$id).toBe(`${SCHEMA_BASE}token.json`);
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t.properties)).toBe(true);
    expect(schemaOf('hexQuantity')).toMatchObject({ type: 'string', format: 'hex-quantity' });
    expect(rawSchemaAt('hex.json#/$defs/blockParam')).toHaveProperty('oneOf');
    expect(schemaOf('rpcStatus')).toMatchObject({ title: 'rpcStatus' });
    expect(schemaOf('jsonrpcResponse')).toHaveProperty('oneOf');
  });
  test('validation does not mutate the value', () => {
    const v = token();
    const before = JSON.stringify(v);
    validateShape('token', v);
    expect(JSON.stringify(v)).toBe(before);
  });
  test('long values are truncated in error text', () => {
    const [err] = validate('hexQuantity', '0x0' + 'f'.repeat(200)).errors;
    const quoted = /\(got (.*?)\)/.exec(err!)![1];
    expect(quoted.length).toBeLessThan(80);
    expect(quoted).toMatch(/…"?$/);
  });
  test('a number beyond a double is shown as read (Infinity), never as null', () => {
    expect(validate('hexQuantity', JSON.parse('1e400')).errors).toEqual(['(root) must be string (got Infinity)']);
  });
  test('values are shown for leaves and summarised for containers', () => {
    expect(validate('hexQuantity', { a: 1 }).errors).toEqual(['(root) must be string (got an object)']);
    expect(validate('hexQuantity', [1, 2]).errors).toEqual(['(root) must be string (got an array of 2)']);
  });
  test('localSchemaResolver serves $id URIs from schemas/ and nothing else', () => {
    expect(localSchemaResolver.canRead({ url: `${SCHEMA_BASE}token.json` })).toBe(true);
    expect(localSchemaResolver.canRead({ url: 'https://example.com/token.json' })).toBe(false);
    expect(JSON.parse(localSchemaResolver.read({ url: `${SCHEMA_BASE}token.json` })).$id).toBe(`${SCHEMA_BASE}token.json`);
    expect(() => localSchemaResolver.read({ url: `${SCHEMA_BASE}../package.json` })).toThrow();
  });
});
