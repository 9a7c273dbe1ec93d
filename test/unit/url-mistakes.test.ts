// URL mistakes caught where the run opens, each said with its fix (exit 2), never as a target
// unreachable or dozens of failures: a --base-url ending in /v1, https:// to a plain-HTTP server,
// a proxy refusing the CONNECT tunnel, a dedicated node refusing the credentials; and a gateway
// whose backend never answers (not a mistake: the interface is unreachable). Real loopback servers.
import http from 'node:http';
import type { RunConfig } from '../../src/cli/config';
import { probe } from '../../src/cli/target';
import { Redactor } from '../../src/harness/redact';
import { closeServer, listenLoopback } from '../support/loopback';

const LIST = '/v1/tokenized-stocks';
const cfg = { timeoutMs: 10_000, restHeaders: {}, rpcHeaders: {} } as unknown as RunConfig;

let servers: http.Server[] = [];
async function serve(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  servers.push(server);
  return { url: await listenLoopback(server), server };
}
afterEach(async () => {
  await Promise.all(servers.map(closeServer));
  servers = [];
});

/** A REST API serving the list at /v1/tokenized-stocks, 404 elsewhere. */
const api: http.RequestListener = (req, res) => {
  if (req.url === LIST) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"tokens":[]}');
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"Not Found","details":[]}');
};

describe('the start-up probe names URL mistakes with their fix', () => {
  it('a --base-url ending in /v1 (the list asked for at /v1/v1/…): the corrected value', async () => {
    const { url } = await serve(api);
    const found = await probe({ baseUrl: `${url}/v1` }, cfg, new Redactor());
    expect(found.misdirected?.rest).toBe(
      `--base-url ends in /v1, so GET ${LIST} was asked for at …/v1${LIST} and answered HTTP 404: give the base URL without it (the suite adds ${LIST}, spec 4.1): --base-url ${url}`,
    );
    // The right base URL, and one that ends in /v1 but serves the list under it, are left alone.
    // Nothing found wrong: only the list read is kept, for its checks to judge.
    const fine = await probe({ baseUrl: url }, cfg, new Redactor());
    expect({ ...fine, seen: undefined }).toEqual({ seen: undefined });
    expect(fine.seen?.list?.response).toMatchObject({ status: 200, json: { tokens: [] } });
    const nested = await serve((req, res) =>
      req.url === `/v1${LIST}` ? void res.writeHead(200, { 'content-type': 'application/json' }).end('{"tokens":[]}') : api(req, res),
    );
    expect((await probe({ baseUrl: `${nested.url}/v1` }, cfg, new Redactor())).misdirected).toBeUndefined();
  });

  it('https:// to a server that speaks plain HTTP: use http://', async () => {
    const { url } = await serve(api);
    const https = url.replace('http:', 'https:');
    const found = await probe({ baseUrl: https, rpcUrl: https }, cfg, new Redactor());
    expect(found.misdirected).toEqual({
      rest: `--base-url: this server speaks plain HTTP, not TLS: use --base-url ${url}`,
      rpc: `--rpc-url: this server speaks plain HTTP, not TLS: use --rpc-url ${url}`,
    });
    expect(found.unreachable).toBeUndefined();
  });

  it.each([
    [407, /the proxy http:\/\/127\.0\.0\.1:\d+ refused the CONNECT tunnel with HTTP 407: it asks for credentials: give them in the proxy's URL/],
    [403, /the proxy http:\/\/127\.0\.0\.1:\d+ refused the CONNECT tunnel with HTTP 403: check HTTPS_PROXY \/ HTTP_PROXY, and NO_PROXY/],
  ])('a proxy (HTTPS_PROXY) refusing the CONNECT tunnel with %i: said as such, at once, not as a timeout', async (status, words) => {
    const proxy = await serve((_req, res) => void res.writeHead(400).end());
    let tunnels = 0;
    proxy.server.on('connect', (_req, socket: import('node:net').Socket) => {
      tunnels++;
      socket.end(`HTTP/1.1 ${status} Refused\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n`);
    });
    const saved = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = proxy.url;
    try {
      // A host that is never resolved: the proxy refuses before anything is sent on.
      const found = await probe({ baseUrl: 'https://api.example.invalid' }, cfg, new Redactor());
      expect(found.misdirected?.rest).toMatch(new RegExp(`^--base-url: ${words.source}`));
      expect(found.unreachable).toBeUndefined();
      // At once, not as a timeout: one tunnel asked for, and the refusal (not a timeout) is what is said.
      expect(tunnels).toBe(1);
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
    }
  });

  it('a node refusing the credentials (401 with a challenge): found once, for the run to refuse on a dedicated profile', async () => {
    const { url } = await serve((_req, res) => void res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end('{"error":"expired"}'));
    const found = await probe({ rpcUrl: url }, cfg, new Redactor());
    expect(found.refused?.rpc).toMatch(/HTTP 401 Unauthorized \(WWW-Authenticate: Bearer error="invalid_token"\)$/);
    expect(found.unreachable).toBeUndefined();
  });

  it.each([
    ['rpc', 502, /^POST http:\/\/127\.0\.0\.1:\d+: HTTP 502 Bad Gateway, still after 3 retries .*: the gateway answered every try, the node behind it none$/],
    [
      'rest',
      503,
      /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/tokenized-stocks: HTTP 503 Service Unavailable, .*: the gateway answered every try, the node behind it none$/,
    ],
  ] as const)(
    'a gateway answering every try of the %s probe with %i: the node behind it answered nothing, so the interface is unreachable (exit 1), as a refused connection is',
    async (iface, status, words) => {
      let tries = 0;
      const { url } = await serve((_req, res) => void (tries++, res.writeHead(status, { 'content-type': 'text/html' }).end('<html>down</html>')));
      const found = await probe(iface === 'rpc' ? { rpcUrl: url } : { baseUrl: url }, cfg, new Redactor());
      expect(found.unreachable?.[iface]).toMatch(words);
      expect(found).not.toHaveProperty('gateway');
      expect(tries).toBe(4);
    },
    20_000,
  );

  it('a bare 403 is not a refusal of credentials (a public node refuses a method so): the checks judge it', async () => {
    const { url } = await serve((_req, res) => void res.writeHead(403).end('forbidden'));
    expect((await probe({ rpcUrl: url }, cfg, new Redactor())).refused).toBeUndefined();
  });
});
