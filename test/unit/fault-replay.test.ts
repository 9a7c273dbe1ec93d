// The fault catalogue's replay tier (test/faults/replay.ts): each method and path asked of the
// reference once per run, every later request answered from the record, byte for byte.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRestReplay, type RestReplay } from '../faults/replay';

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

let replay: RestReplay;
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

it('a request the reference did not answer is not recorded: the next one asks again', async () => {
  fail = true;
  expect((await get('/v1/tokenized-stocks')).status).toBe(502);
  fail = false;
  expect(await get('/v1/tokenized-stocks')).toMatchObject({ status: 200, body: '{"n":2,"method":"GET"}' });
  expect(hits).toHaveLength(2);
});
