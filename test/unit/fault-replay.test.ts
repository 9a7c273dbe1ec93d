// The fault catalogue's replay tier (test/faults/replay.ts): each method and path asked of the
// reference once per run, every later request answered from the record, byte for byte.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProxy } from '../faults/proxy';
import { startRestReplay, startRpcReplay, type Replay } from '../faults/replay';

let upstream: http.Server;
let url: string;
let hits: string[];
let fail = false;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    hits.push(`${req.method} ${req.url}`);
    if (fail) return void res.destroy();
    const status = req.method === 'GET' ? 200 : 405;
    res.writeHead(status, { 'content-type': 'application/json', 'x-served': String(hits.length) }).end(JSON.stringify({ n: hits.length, method: req.method }));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => upstream.close(r)));

let replay: Replay;
beforeEach(async () => {
  hits = [];
  fail = false;
  replay = await startRestReplay(url);
});
afterEach(() => replay.stop());

const get = async (path: string, method = 'GET') => {
  const res = await fetch(`${replay.url}${path}`, { method, headers: { 'x-api-key': `k${Math.random()}` } });
  return { status: res.status, served: res.headers.get('x-served'), type: res.headers.get('content-type'), body: await res.text() };
};

it('asks the reference once per method and path; later requests get the recorded answer, whatever their query or headers', async () => {
  const first = await get('/v1/tokenized-stocks');
  expect(first).toEqual({ status: 200, served: '1', type: 'application/json', body: '{"n":1,"method":"GET"}' });
  expect(await Promise.all([get('/v1/tokenized-stocks'), get('/v1/tokenized-stocks?page=2')])).toEqual([first, first]);
  expect(await get('/v1/tokenized-stocks', 'POST')).toMatchObject({ status: 405, body: '{"n":2,"method":"POST"}' });
  expect(await get('/v1/nope')).toMatchObject({ status: 200, body: '{"n":3,"method":"GET"}' });
  expect(hits).toEqual(['GET /v1/tokenized-stocks', 'POST /v1/tokenized-stocks', 'GET /v1/nope']);
  expect([replay.recorded, replay.replayed]).toEqual([3, 2]);
});

it('answers the proxies of its own process the same record, with no loopback hop (Replay.answer)', async () => {
  const overHttp = await get('/v1/tokenized-stocks');
  const inProcess = await replay.answer({ method: 'GET', path: '/v1/tokenized-stocks?page=2', headers: { 'x-api-key': 'k' }, body: '' });
  expect({ status: inProcess.status, served: inProcess.headers['x-served'], type: inProcess.contentType, body: inProcess.body }).toEqual(overHttp);
  expect((await replay.answer({ method: 'HEAD', path: '/v1/tokenized-stocks', headers: {}, body: '' })).body).toBe('');
  expect(hits).toEqual(['GET /v1/tokenized-stocks', 'HEAD /v1/tokenized-stocks']);
  expect([replay.recorded, replay.replayed]).toEqual([2, 1]);
});

it('a request the reference did not answer is not recorded: the next one asks again', async () => {
  fail = true;
  expect((await get('/v1/tokenized-stocks')).status).toBe(502);
  fail = false;
  expect(await get('/v1/tokenized-stocks')).toMatchObject({ status: 200, body: '{"n":2,"method":"GET"}' });
  expect(hits).toHaveLength(2);
});

describe('JSON-RPC', () => {
  let node: http.Server;
  let nodeUrl: string;
  let calls: string[];
  beforeAll(async () => {
    // A node whose every answer differs (n grows), so a replayed answer is told from a fresh one.
    node = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        calls.push(body);
        const n = calls.length;
        let parsed: { id?: unknown; method?: string; params?: unknown[] } | unknown[];
        try {
          parsed = JSON.parse(body) as typeof parsed;
        } catch {
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `parse error ${n}` } }));
        }
        if (Array.isArray(parsed))
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(parsed.map((_, i) => ({ jsonrpc: '2.0', id: i, result: n }))));
        if (parsed.method === 'busy') return void res.writeHead(429, { 'content-type': 'text/plain' }).end(`busy ${n}`);
        const id = parsed.method === 'no_echo' ? 7 : parsed.id;
        res.writeHead(200, { 'content-type': 'application/json', 'x-n': String(n) }).end(JSON.stringify({ jsonrpc: '2.0', id, result: `0x${n.toString(16)}` }));
      });
    });
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
    nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => node.close(r)));

  let rpc: Replay;
  beforeEach(async () => {
    calls = [];
    rpc = await startRpcReplay(nodeUrl);
  });
  afterEach(() => rpc.stop());

  const post = async (body: unknown) => {
    const res = await fetch(rpc.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, n: res.headers.get('x-n'), body: await res.text() };
  };
  const call = (method: string, params: unknown[], id: number | string = 1) => post({ jsonrpc: '2.0', id, method, params });

  it('asks the node once per method and params; later calls get the recorded answer with their own id', async () => {
    const first = await call('eth_getCode', ['0xab', 'latest'], 1);
    expect(first).toEqual({ status: 200, n: '1', body: '{"jsonrpc":"2.0","id":1,"result":"0x1"}' });
    expect(await call('eth_getCode', ['0xab', 'latest'], 'x')).toEqual({ status: 200, n: '1', body: '{"jsonrpc":"2.0","id":"x","result":"0x1"}' });
    expect(await call('eth_getCode', ['0xab', 'pending'], 2)).toMatchObject({ body: '{"jsonrpc":"2.0","id":2,"result":"0x2"}' });
    expect(await call('eth_getCode', ['0xab', 'latest'], 0)).toMatchObject({ body: '{"jsonrpc":"2.0","id":0,"result":"0x1"}' });
    expect(calls).toHaveLength(2);
    expect([rpc.recorded, rpc.replayed]).toEqual([2, 2]);
  });

  it("answers in process the same record, with the call's own id (Replay.answer)", async () => {
    const first = await call('eth_getCode', ['0xab', 'latest'], 1);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'eth_getCode', params: ['0xab', 'latest'] });
    const inProcess = await rpc.answer({ method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body });
    expect({ status: inProcess.status, n: inProcess.headers['x-n'], body: inProcess.body }).toEqual({
      ...first,
      body: first.body.replace('"id":1', '"id":"p"'),
    });
    expect(calls).toHaveLength(1);
    expect([rpc.recorded, rpc.replayed]).toEqual([1, 1]);
  });

  it('a fault proxy over the record sees the same answers asked in process as over its loopback URL', async () => {
    const rest = await startRestReplay(url);
    const proxies = await Promise.all(
      [
        { restUpstream: rest, rpcUpstream: rpc },
        { restUpstream: rest.url, rpcUpstream: rpc.url },
      ].map((up) => startProxy({ ...up, rpc: (c, next) => next() })),
    );
    // What a client sees, but for what differs by design: the Date, and the counters the upstreams put in answers not replayed.
    const seen = async (target: string, init: RequestInit = {}) => {
      const res = await fetch(target, init);
      const headers = [...res.headers].filter(([k]) => k !== 'date');
      return { status: res.status, headers, body: (await res.text()).replace(/\d+/g, 'N') };
    };
    const rpcPost = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });
    try {
      const asks: Array<[string, (p: (typeof proxies)[number]) => [string, RequestInit?]]> = [
        ['REST GET', (p) => [`${p.restUrl}/v1/tokenized-stocks?page=2`]],
        ['REST HEAD', (p) => [`${p.restUrl}/v1/tokenized-stocks`, { method: 'HEAD' }]],
        ['REST POST', (p) => [`${p.restUrl}/v1/tokenized-stocks`, { method: 'POST', body: 'x' }]],
        ['a call', (p) => [p.rpcUrl, rpcPost(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_getCode', params: ['0xcd', 'latest'] }))]],
        ['a throttled call', (p) => [p.rpcUrl, rpcPost(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'busy', params: [] }))]],
        ['a batch', (p) => [p.rpcUrl, rpcPost(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }]))]],
        ['not JSON', (p) => [p.rpcUrl, rpcPost('{not json')]],
      ];
      for (const [what, ask] of asks) {
        const [inProcess, overHttp] = [await seen(...ask(proxies[0])), await seen(...ask(proxies[1]))];
        expect({ what, ...inProcess }).toEqual({ what, ...overHttp });
      }
      // The reference not answering: the record's 502, the same both ways.
      fail = true;
      const [inProcess, overHttp] = [await seen(`${proxies[0].restUrl}/v1/down`), await seen(`${proxies[1].restUrl}/v1/down`)];
      expect(inProcess).toMatchObject({ status: 502, body: expect.stringMatching(/^replay: /) });
      expect(inProcess).toEqual(overHttp);
    } finally {
      fail = false;
      await Promise.all(proxies.map((p) => p.stop()));
      await rest.stop();
    }
  });

  it('never replays a send, an answer that is not a 200 JSON-RPC object echoing the id, a batch or a body that is not a call', async () => {
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x01'] },
      { jsonrpc: '2.0', id: 1, method: 'busy', params: [] },
      { jsonrpc: '2.0', id: 1, method: 'no_echo', params: [] },
      [{ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }],
      '{not json',
    ]) {
      const [a, b] = [await post(body), await post(body)];
      expect(a.body).not.toEqual(b.body);
    }
    expect(calls).toHaveLength(10);
    expect(rpc.replayed).toBe(0);
  });
});
