import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { httpRequest, TransportError } from '../../src/harness/http';
import { isLoopback, proxyFor } from '../../src/harness/proxy';
import { Redactor } from '../../src/harness/redact';
import { Transcript } from '../../src/harness/transcript';

const PROXY = 'http://proxy.corp.example:3128';
const SECURE_PROXY = 'http://secure-proxy.corp.example:3128';
const remote = (env: Record<string, string>) => ({ env, exemptLoopback: true });

describe('proxyFor: which request goes through which proxy', () => {
  it.each([
    ['https://rpc.provider.example/v2', { HTTPS_PROXY: SECURE_PROXY, HTTP_PROXY: PROXY }, SECURE_PROXY],
    ['http://api.staging.example', { HTTPS_PROXY: SECURE_PROXY, HTTP_PROXY: PROXY }, PROXY],
    ['https://rpc.provider.example', { HTTP_PROXY: PROXY }, undefined], // as curl: HTTP_PROXY is for http:// only
    ['https://rpc.provider.example', { https_proxy: SECURE_PROXY, HTTPS_PROXY: PROXY }, SECURE_PROXY], // lower case first
    ['https://rpc.provider.example', { HTTPS_PROXY: '  ' }, undefined],
    ['https://rpc.provider.example', {}, undefined],
  ])('%s with %j -> %s', (url, env, expected) => expect(proxyFor(url, remote(env))).toBe(expected));

  it.each([
    ['rpc.provider.example', 'https://rpc.provider.example'],
    ['provider.example', 'https://rpc.provider.example'],
    ['.provider.example', 'https://provider.example'],
    ['*.provider.example', 'https://a.b.provider.example'],
    ['*', 'https://anything.example'],
    ['rpc.provider.example:443', 'https://rpc.provider.example'],
    ['10.0.0.0/8', 'https://10.20.30.40:8545'],
    ['10.1.2.3', 'https://10.1.2.3'],
    ['[2001:db8::1]:8545', 'https://[2001:db8::1]:8545'],
    ['2001:db8::/32', 'https://[2001:db8::7]'],
    ['other.example, RPC.PROVIDER.EXAMPLE', 'https://rpc.provider.example'],
  ])('NO_PROXY %j sends %s directly', (noProxy, url) => {
    expect(proxyFor(url, remote({ HTTPS_PROXY: SECURE_PROXY, NO_PROXY: noProxy }))).toBeUndefined();
  });

  it.each([
    ['provider.example', 'https://evilprovider.example'],
    ['rpc.provider.example:8443', 'https://rpc.provider.example'],
    ['10.0.0.0/8', 'https://11.0.0.1'],
    ['10.0.0.0/8', 'https://ten.example'],
  ])('NO_PROXY %j still proxies %s', (noProxy, url) => {
    expect(proxyFor(url, remote({ HTTPS_PROXY: SECURE_PROXY, no_proxy: noProxy }))).toBe(SECURE_PROXY);
  });

  it.each([
    'http://127.0.0.1:8545',
    'http://127.8.9.10',
    'http://localhost:3000',
    'http://LOCALHOST./x',
    'http://node.localhost',
    'http://[::1]:8545',
    'http://[::ffff:127.0.0.1]:1',
  ])('never proxies the loopback target %s', (url) => {
    expect(isLoopback(new URL(url).hostname)).toBe(true);
    expect(proxyFor(url, remote({ HTTP_PROXY: PROXY, HTTPS_PROXY: PROXY }))).toBeUndefined();
  });

  it('does not take look-alikes for loopback', () => {
    for (const host of ['128.0.0.1', 'localhost.example', '[::2]', '10.0.0.1']) expect(isLoopback(host)).toBe(false);
  });
});

/** A forward proxy on loopback: tunnels CONNECT requests and records what it was asked for. */
async function startProxy(opts: { requireAuth?: string } = {}) {
  const connects: Array<{ authority: string; auth?: string }> = [];
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push({ authority: req.url ?? '', auth: req.headers['proxy-authorization'] });
    if (opts.requireAuth && req.headers['proxy-authorization'] !== opts.requireAuth) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    // Only loopback targets: this proxy never reaches the network.
    if (!isLoopback(host)) return void client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connects, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('httpRequest through a proxy (a loopback proxy the test runs)', () => {
  let target: http.Server;
  let targetUrl: string;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    target = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello ${req.url}`));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const close of closers) await close();
    target.closeAllConnections();
    await new Promise<void>((r) => target.close(() => r()));
  });

  const options = (proxy: { env: Record<string, string>; exemptLoopback: boolean }, redactor = new Redactor()) => ({
    timeoutMs: 5000,
    redactor,
    transcript: new Transcript(),
    proxy,
  });

  it('goes through HTTP_PROXY when the loopback exemption is turned off', async () => {
    const proxy = await startProxy();
    closers.push(proxy.close);
    const res = await httpRequest({ method: 'GET', url: `${targetUrl}/via`, headers: {} }, options({ env: { HTTP_PROXY: proxy.url }, exemptLoopback: false }));
    expect(res.status).toBe(200);
    expect(res.text).toBe('hello /via');
    expect(proxy.connects.map((c) => c.authority)).toEqual([new URL(targetUrl).host]);
  });

  it('goes directly to a loopback target by default, whatever HTTP_PROXY says', async () => {
    const proxy = await startProxy();
    closers.push(proxy.close);
    const res = await httpRequest(
      { method: 'GET', url: `${targetUrl}/direct`, headers: {} },
      options({ env: { HTTP_PROXY: proxy.url }, exemptLoopback: true }),
    );
    expect(res.text).toBe('hello /direct');
    expect(proxy.connects).toEqual([]);
  });

  it('goes directly when NO_PROXY names the host', async () => {
    const proxy = await startProxy();
    closers.push(proxy.close);
    await httpRequest(
      { method: 'GET', url: `${targetUrl}/np`, headers: {} },
      options({ env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, exemptLoopback: false }),
    );
    expect(proxy.connects).toEqual([]);
  });

  it('sends the proxy URL credentials as Proxy-Authorization and never shows the password', async () => {
    const expected = `Basic ${Buffer.from('ci:pr0xy-pa55').toString('base64')}`;
    const proxy = await startProxy({ requireAuth: expected });
    closers.push(proxy.close);
    const withAuth = proxy.url.replace('http://', 'http://ci:pr0xy-pa55@');
    const ok = await httpRequest({ method: 'GET', url: `${targetUrl}/auth`, headers: {} }, options({ env: { HTTP_PROXY: withAuth }, exemptLoopback: false }));
    expect(ok.status).toBe(200);
    expect(proxy.connects[0].auth).toBe(expected);

    const wrong = proxy.url.replace('http://', 'http://ci:wr0ng-pa55@');
    const transcript = new Transcript();
    const err = await httpRequest(
      { method: 'GET', url: `${targetUrl}/auth`, headers: {} },
      { ...options({ env: { HTTP_PROXY: wrong }, exemptLoopback: false }), transcript },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    // Said as the proxy's refusal, with its status, at once (undici's abort once read as a timeout).
    expect((err as Error).message).toContain(`the proxy ${proxy.url} refused the CONNECT tunnel with HTTP 407: it refused the credentials in its URL`);
    expect((err as TransportError).mistake).toMatchObject({ kind: 'proxy-refused', proxyStatus: 407 });
    expect(JSON.stringify({ message: (err as Error).message, transcript })).not.toContain('wr0ng-pa55');
  });
});
