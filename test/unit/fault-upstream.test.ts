// How the fault catalogue's loopback servers ask their upstream (test/faults/upstream.ts): the
// answer's body is bounded in total, not only between its chunks, and what is passed on in either
// direction leaves the hop's own headers behind.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { askUpstream, passedOn, requestHeaders } from '../faults/upstream';

let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/whole') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('all of it');
    // A body trickled a byte every 20 ms, for ever: each gap far inside any bound between chunks.
    res.writeHead(200, { 'content-type': 'text/plain' });
    const drip = setInterval(() => res.write('x'), 20);
    res.on('close', () => clearInterval(drip));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

it('reads a whole answer', async () => {
  const got = await askUpstream(`${url}/whole`, { method: 'GET' }, 2000);
  expect({ status: got.status, body: got.body.toString('utf8') }).toEqual({ status: 200, body: 'all of it' });
});

it('gives up on a body trickled for ever once the bound has passed, although no gap between chunks reached it', async () => {
  // Without the bound on the whole body this read never ends (jest's 10 s below fails it).
  await expect(askUpstream(`${url}/drip`, { method: 'GET' }, 300)).rejects.toThrow(/not whole within 300 ms/);
}, 10_000);

it("passes on neither the hop's headers nor a coding, in either direction", () => {
  expect(requestHeaders({ host: 'a', connection: 'keep-alive', 'content-length': '3', 'x-api-key': 'k', 'x-many': ['a', 'b'] })).toEqual({
    'x-api-key': 'k',
    'x-many': 'a, b',
  });
  expect(passedOn({ 'Transfer-Encoding': 'chunked', 'content-encoding': 'gzip', 'content-type': 'application/json' })).toEqual({
    'content-type': 'application/json',
  });
});
