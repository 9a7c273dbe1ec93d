// The fault catalogue's data: the JSON Patch its records apply to answers, the schema that
// validates the record files, and the loader that turns them into variants.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyPatch, type Transform } from '../faults/patch';
import { loadRecordFile, loadRecords, RECORDS_DIR } from '../faults/records';
import { Raw, type Envelope, type Json, type RestRequest, type RpcCall } from '../faults/proxy';

const LIST = {
  tokens: [
    { symbol: 'AAPL', decimals: 18, isin: 'US0378331005' },
    { symbol: 'MSFT', decimals: 6, isin: 'US5949181045' },
  ],
};

describe('applyPatch: RFC 6902 with `*` and `transform`', () => {
  it('applies add, remove, replace, copy, move and test as the RFC says', () => {
    expect(applyPatch(LIST, [{ op: 'remove', path: '/tokens/1/isin' }])).toEqual({ tokens: [LIST.tokens[0], { symbol: 'MSFT', decimals: 6 }] });
    expect(applyPatch(LIST, [{ op: 'copy', from: '/tokens/0', path: '/tokens/-' }])).toEqual({ tokens: [...LIST.tokens, LIST.tokens[0]] });
    expect(applyPatch(LIST, [{ op: 'move', from: '/tokens', path: '/data' }])).toEqual({ data: LIST.tokens });
    expect(applyPatch(LIST, [{ op: 'move', from: '/tokens', path: '' }])).toEqual(LIST.tokens);
    expect(applyPatch(LIST, [{ op: 'add', path: '/tokens/0', value: 1 }])).toEqual({ tokens: [1, ...LIST.tokens] });
    expect(
      applyPatch({ result: '0x' }, [
        { op: 'test', path: '/result', value: '0x' },
        { op: 'replace', path: '/result', value: null },
      ]),
    ).toEqual({ result: null });
  });

  it('a `*` segment stands for every element; `transform` keeps the value and changes its form', () => {
    expect(applyPatch(LIST, [{ op: 'transform', path: '/tokens/*/decimals', to: 'string' }])).toEqual({
      tokens: [
        { ...LIST.tokens[0], decimals: '18' },
        { ...LIST.tokens[1], decimals: '6' },
      ],
    });
    expect(applyPatch(LIST, [{ op: 'add', path: '/tokens/*/chain_id', value: 1 }])).toMatchObject({ tokens: [{ chain_id: 1 }, { chain_id: 1 }] });
    expect(applyPatch(LIST, [{ op: 'remove', path: '/tokens/*' }])).toEqual({ tokens: [] });
    expect(applyPatch({ result: '0x5208' }, [{ op: 'transform', path: '/result', to: 'number' }])).toEqual({ result: 21000 });
    expect(applyPatch(LIST, [{ op: 'transform', path: '/tokens/*/isin', to: 'lowercase' }])).toMatchObject({ tokens: [{ isin: 'us0378331005' }, {}] });
  });

  it.each([
    ['unprefixed-hex', '0xAbC1', 'abc1'],
    ['uppercase-hex', '0x60aBc1', '0x60ABC1'],
    ['uppercase-hex', '0x', '0x'],
    ['leading-zero', '0x5', '0x05'],
    ['decimal-string', '0x10', '16'],
    ['utc-offset', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00+00:00'],
    ['epoch-seconds', '2026-01-01T10:00:00Z', 1767261600],
    ['boolean', '0x1', true],
    ['boolean', '0x0', false],
    ['bitmask', [0, 3], 9],
    ['bitmask', [], 0],
  ] satisfies Array<[Transform, Json, Json]>)('`transform` to %s: %j becomes %j', (to, from, into) => {
    expect(applyPatch({ v: from }, [{ op: 'transform', path: '/v', to }])).toEqual({ v: into });
  });

  it('a `transform` that cannot read one element leaves the whole answer as it was', () => {
    expect(applyPatch({ result: [{ status: '0x1' }, { root: '0xab' }] }, [{ op: 'transform', path: '/result/*/status', to: 'boolean' }])).toBeUndefined();
  });

  it.each([
    ['unprefixed-hex', 'abc1'],
    ['uppercase-hex', 12],
    ['leading-zero', '0x'],
    ['decimal-string', '16'],
    ['utc-offset', '2026-01-01T10:00:00+02:00'],
    ['epoch-seconds', 'yesterday'],
    ['boolean', '0x2'],
    ['bitmask', [-1]],
  ] satisfies Array<[Transform, Json]>)('`transform` to %s does not apply to %j: the answer is left as it was', (to, from) => {
    expect(applyPatch({ v: from }, [{ op: 'transform', path: '/v', to }])).toBeUndefined();
  });

  it('applies whole or not at all, and never changes its input', () => {
    const before = JSON.stringify(LIST);
    expect(
      applyPatch(LIST, [
        { op: 'replace', path: '/tokens/0/symbol', value: 'X' },
        { op: 'remove', path: '/tokens/9' },
      ]),
    ).toBeUndefined();
    expect(
      applyPatch({ result: '0x6080' }, [
        { op: 'test', path: '/result', value: '0x' },
        { op: 'replace', path: '/result', value: null },
      ]),
    ).toBeUndefined();
    expect(applyPatch({ result: [] }, [{ op: 'copy', from: '/result/0', path: '/result/-' }])).toBeUndefined();
    expect(applyPatch({ error: { code: 3 } }, [{ op: 'remove', path: '/result' }])).toBeUndefined();
    applyPatch(LIST, [{ op: 'remove', path: '/tokens/*/isin' }]);
    expect(JSON.stringify(LIST)).toBe(before);
  });
});

describe('the record files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'records-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const FAULT = `section: '2.1'
title: t
records:
  - id: rest.x
    kind: fault
    section: '2.1'
    what: w
    only: [rest]
    when: { interface: rest, status: 200 }
    patch: [{ op: remove, path: /tokens/1/isin }]
    expect: { exit: 1 }
`;

  it('every file of the catalogue is valid, named after its section, and each fault is filed under the section it cites', () => {
    const files = readdirSync(RECORDS_DIR).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const f of files) expect(loadRecordFile(path.join(RECORDS_DIR, f)).problems).toEqual([]);
    const variants = loadRecords();
    expect(new Set(variants.map((v) => v.name)).size).toBe(variants.length);
    // A record without `when` judges the reference as it is (with its own flags): rpc.public-no-403.
    expect(variants.filter((v) => !v.rest && !v.rpc).map((v) => v.name)).toEqual(['rpc.public-no-403']);
  });

  it('a valid record loads as a variant', () => {
    const { variants, problems } = loadRecordFile(write('2.1-x.yaml', FAULT));
    expect(problems).toEqual([]);
    expect(variants).toMatchObject([{ name: 'rest.x', kind: 'faulty', section: '2.1', only: ['rest'], record: '2.1-x.yaml' }]);
  });

  it.each([
    ['a fault without its section', FAULT.replace("    section: '2.1'\n", ''), /must have required property 'section'/],
    ['a fault whose run exits 0', FAULT.replace('exit: 1', 'exit: 0'), /exit must be equal to constant/],
    ['a conformant variant citing a section', FAULT.replace('kind: fault', 'kind: conformant').replace('exit: 1', 'exit: 0'), /must NOT be valid/],
    ['an op the patch does not know', FAULT.replace('op: remove', 'op: delete'), /must match exactly one schema in oneOf/],
    ['an unknown member', FAULT.replace('what: w', 'what: w\n    severity: high'), /must NOT have additional properties/],
    [
      'an error beside ops',
      FAULT.replace('patch: [{ op: remove, path: /tokens/1/isin }]', 'patch: { ops: [{ op: remove, path: /x }], error: { code: 1, message: m } }'),
      /must NOT be valid/,
    ],
    [
      'a JSON-RPC error answered to REST',
      FAULT.replace('patch: [{ op: remove, path: /tokens/1/isin }]', 'patch: { error: { code: 1, message: m } }'),
      /\/records\/0\/patch must NOT be valid[\s\S]*must match "then" schema/,
    ],
    [
      'a fault filed under another section',
      FAULT.replace("    section: '2.1'\n    what", "    section: '2.2'\n    what"),
      /rest\.x cites 2\.2, filed under 2\.1/,
    ],
  ])('refuses %s', (_what, text, problem) => {
    const { problems } = loadRecordFile(write('2.1-x.yaml', text));
    expect(problems.join('\n')).toMatch(problem);
  });

  it('refuses a file not named after its section', () => {
    expect(loadRecordFile(write('2.2-x.yaml', FAULT)).problems.join('\n')).toMatch(/a file of section 2\.1 is named 2\.1-<topic>\.yaml/);
  });
});

describe('a record as a rewrite of answers', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'records-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const variant = (when: string, patch: string) => {
    const file = path.join(dir, '4.2-x.yaml');
    const record = `{ id: rpc.x, kind: fault, section: '4.2', what: w, only: [rpc], when: ${when}, patch: ${patch}, expect: { exit: 1 } }`;
    writeFileSync(file, `section: '4.2'\ntitle: t\nrecords:\n  - ${record}\n`);
    return loadRecordFile(file).variants[0];
  };
  const call = (method: string, params: Json[] = []): RpcCall => ({ jsonrpc: '2.0', id: 7, method, params });
  const ctx = {} as never;

  it('rewrites only the answers `when` names: method, block and kind of answer', async () => {
    const v = variant('{ interface: rpc, method: eth_getCode, block: pending, answer: result }', '[{ op: replace, path: /result, value: null }]');
    const answer = (result: Json) => async (): Promise<Envelope> => ({ jsonrpc: '2.0', id: 7, result });
    expect(await v.rpc!(call('eth_getCode', ['0x1', 'pending']), answer('0x'), ctx)).toEqual({ jsonrpc: '2.0', id: 7, result: null });
    expect(await v.rpc!(call('eth_getCode', ['0x1', 'latest']), answer('0x'), ctx)).toEqual({ jsonrpc: '2.0', id: 7, result: '0x' });
    expect(await v.rpc!(call('eth_chainId'), answer('0x1'), ctx)).toEqual({ jsonrpc: '2.0', id: 7, result: '0x1' });
    const error = async (): Promise<Envelope> => ({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'x' } });
    expect(await v.rpc!(call('eth_getCode', ['0x1', 'pending']), error, ctx)).toEqual(await error());
  });

  it('JSON Patch ops and a status together: the patched envelope with that status', async () => {
    const v = variant(
      '{ interface: rpc, method: eth_getBlockReceipts }',
      '{ ops: [{ op: remove, path: /result }, { op: add, path: /error, value: { code: -32001, message: forbidden } }], status: 403 }',
    );
    const res = (await v.rpc!(call('eth_getBlockReceipts', ['latest']), async () => ({ jsonrpc: '2.0', id: 7, result: [] }), ctx)) as Raw;
    expect([res.status, res.contentType, JSON.parse(res.body)]).toEqual([
      403,
      'application/json',
      { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'forbidden' } },
    ]);
  });

  it("an error in place of every call of the method, to the call's id, with its status, never asking upstream; other methods asked as they are", async () => {
    const v = variant('{ interface: rpc, method: eth_getBlockReceipts }', '{ status: 403, error: { code: -32001, message: forbidden } }');
    const upstream = jest.fn(async (): Promise<Envelope> => ({ jsonrpc: '2.0', id: 9, result: [] }));
    const res = (await v.rpc!({ ...call('eth_getBlockReceipts', ['0x99']), id: 9 }, upstream, ctx)) as Raw;
    expect([res.status, JSON.parse(res.body)]).toEqual([403, { jsonrpc: '2.0', id: 9, error: { code: -32001, message: 'forbidden' } }]);
    expect(upstream).not.toHaveBeenCalled();
    expect(await v.rpc!(call('eth_getCode', ['0x1', 'latest']), async () => ({ jsonrpc: '2.0', id: 7, result: '0x' }), ctx)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: '0x',
    });
  });

  it('with `when.answer`, the error replaces only the answers of that kind', async () => {
    const v = variant('{ interface: rpc, method: eth_estimateGas, answer: result }', '{ error: { code: -32000, message: out of gas } }');
    const asked = call('eth_estimateGas', [{}]);
    expect(await v.rpc!(asked, async () => ({ jsonrpc: '2.0', id: 7, result: '0x5208' }), ctx)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: 'out of gas' },
    });
    const reverted: Envelope = { jsonrpc: '2.0', id: 7, error: { code: 3, message: 'execution reverted' } };
    expect(await v.rpc!(asked, async () => reverted, ctx)).toEqual(reverted);
  });

  it('a status, headers or body replace those of the answer', async () => {
    const v = variant('{ interface: rest, status: error }', "{ status: 200, headers: { content-type: text/html }, body: '<p>x</p>' }");
    const req: RestRequest = { method: 'GET', path: '/v1/nope', headers: {}, body: '' };
    const res = (await v.rest!(req, async () => Raw.json(404, { code: 5, message: 'not found', details: [] }))) as Raw;
    expect([res.status, res.contentType, res.body]).toEqual([200, 'text/html', '<p>x</p>']);
    const ok = Raw.json(200, { tokens: [] });
    expect(await v.rest!(req, async () => ok)).toBe(ok);
  });
});
