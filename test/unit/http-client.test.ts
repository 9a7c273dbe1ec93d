// The HTTP client every check observes through (src/harness/http.ts): what it sends besides the
// caller's headers, how it reads encoded and repeated answers, and what its failures say.
import { getEventListeners } from 'node:events';
import http from 'node:http';
import zlib from 'node:zlib';
import {
  AnswerTooLarge,
  Connections,
  httpCall,
  httpRequest,
  LARGE_ANSWER_BYTES,
  MAX_RESPONSE_BYTES,
  TransportError,
  type HttpOptions,
} from '../../src/harness/http';
import { Redactor } from '../../src/harness/redact';
import { Transcript } from '../../src/harness/transcript';
import { closeServer, listenLoopback } from '../support/loopback';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** One loopback server for a test, with the requests it saw. */
async function serve(handler: Handler): Promise<{ url: string; seen: http.IncomingMessage[]; close(): Promise<void> }> {
  const seen: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req);
    handler(req, res);
  });
  const url = await listenLoopback(server);
  return { url, seen, close: () => closeServer(server) };
}

const options = (extra: Partial<HttpOptions> = {}): HttpOptions => ({ timeoutMs: 5000, redactor: new Redactor(), transcript: new Transcript(), ...extra });
const get = (url: string, headers: Record<string, string> = {}) => ({ method: 'GET', url, headers });

describe('the HTTP client', () => {
  it('sends a user agent, an Accept and the encodings it decodes unless the caller set them, and records only the caller’s headers', async () => {
    const s = await serve((_req, res) => res.end('{}'));
    try {
      const opts = options();
      await httpRequest(get(s.url, { Accept: 'application/json' }), opts);
      const sent = s.seen[0].headers;
      expect(sent['user-agent']).toBe('tokenized-stocks-conformance');
      expect(sent.accept).toBe('application/json');
      expect(sent['accept-encoding']).toBe('gzip, deflate, br');
      expect(opts.transcript.exchanges[0].request.headers).toEqual({ Accept: 'application/json' });
    } finally {
      await s.close();
    }
  });

  it.each([
    ['gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
  ])('reads a %s-encoded answer as its decoded text', async (coding, encode) => {
    const body = JSON.stringify({ tokens: [{ symbol: 'AAPLx' }] });
    const s = await serve((_req, res) => {
      const bytes = encode(Buffer.from(body));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': bytes.length });
      res.end(bytes);
    });
    try {
      const r = await httpRequest(get(s.url), options());
      expect(r.text).toBe(body);
      expect(r.headers['content-encoding']).toBe(coding);
    } finally {
      await s.close();
    }
  });

  it('refuses an encoded answer whose decoded size passes the cap, however small it came', async () => {
    // 17 MiB of zeros compress to about 17 KiB: counted after decoding, so refused.
    const bomb = zlib.gzipSync(Buffer.alloc(MAX_RESPONSE_BYTES + 1024 * 1024));
    expect(bomb.length).toBeLessThan(100_000);
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    });
    try {
      const refused = httpRequest(get(s.url), options());
      await expect(refused).rejects.toThrow(`response body exceeds ${MAX_RESPONSE_BYTES} bytes`);
      // The target answered: the suite's bound (inconclusive, limit), never "no answer" (a TransportError: unreachable).
      await expect(refused).rejects.toBeInstanceOf(AnswerTooLarge);
    } finally {
      await s.close();
    }
  });

  it('says when an answer is large, declared or not, and only then', async () => {
    const big = Buffer.alloc(LARGE_ANSWER_BYTES, 'x');
    const s = await serve((req, res) => {
      if (req.url === '/declared') return void res.writeHead(200, { 'content-length': big.length }).end(big);
      if (req.url === '/chunked') return void (res.write(big.subarray(0, 1000)), res.end(big.subarray(1000)));
      res.end(big.subarray(0, LARGE_ANSWER_BYTES - 1));
    });
    try {
      const told: string[] = [];
      for (const path of ['/declared', '/chunked', '/small']) await httpRequest(get(`${s.url}${path}`), options({ onLargeAnswer: () => void told.push(path) }));
      expect(told).toEqual(['/declared', '/chunked']);
    } finally {
      await s.close();
    }
  });

  it('reads a body in a coding it does not know, or in more codings than it decodes, as it came', async () => {
    const s = await serve((req, res) => {
      res.writeHead(200, { 'content-encoding': req.url === '/many' ? Array(50).fill('gzip').join(', ') : 'x-unknown' });
      res.end('as sent');
    });
    try {
      expect((await httpRequest(get(s.url), options())).text).toBe('as sent');
      expect((await httpRequest(get(`${s.url}/many`), options())).text).toBe('as sent');
    } finally {
      await s.close();
    }
  });

  it('joins a repeated header into one value, and does not follow a redirect (it is an answer to judge)', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/moved') return void res.writeHead(302, { location: '/elsewhere' }).end();
      res.setHeader('x-seen', ['a', 'b']);
      res.end('ok');
    });
    try {
      expect((await httpRequest(get(s.url), options())).headers['x-seen']).toBe('a, b');
      const moved = await httpRequest(get(`${s.url}/moved`), options());
      expect(moved.status).toBe(302);
      expect(s.seen.map((r) => r.url)).toEqual(['/', '/moved']);
    } finally {
      await s.close();
    }
  });

  it('a refused connection names its cause; a timeout and a stopped run say which ended the request', async () => {
    const s = await serve(() => undefined); // never answers
    try {
      const refused = await httpRequest(get('http://127.0.0.1:1/'), options()).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TransportError);
      expect((refused as Error).message).toMatch(/^GET http:\/\/127\.0\.0\.1:1\/: .*ECONNREFUSED/);

      const slow = await httpRequest(get(s.url), options({ timeoutMs: 300 })).catch((e: unknown) => e);
      expect((slow as Error).message).toBe(`GET ${s.url}: timeout: no complete answer within 300 ms`);

      const stop = new AbortController();
      setTimeout(() => stop.abort('interrupted by SIGINT'), 100);
      const opts = options({ signal: stop.signal });
      const stopped = await httpRequest(get(s.url), opts).catch((e: unknown) => e);
      expect((stopped as Error).message).toBe(`GET ${s.url}: aborted: interrupted by SIGINT`);
      expect(opts.transcript.exchanges[0].error).toBe('aborted: interrupted by SIGINT');
    } finally {
      await s.close();
    }
  });

  it('many requests of one check at once hang nothing on the check’s signal (Node warns of a leak past ten listeners)', async () => {
    let inFlight = 0;
    let listenersSeen = -1;
    const check = new AbortController();
    const s = await serve((_req, res) => {
      if (++inFlight === 40) listenersSeen = getEventListeners(check.signal, 'abort').length;
      setTimeout(() => res.end('{}'), 50);
    });
    try {
      const opts = options({ signal: check.signal });
      await Promise.all(Array.from({ length: 40 }, () => httpRequest(get(s.url), opts)));
      expect(listenersSeen).toBe(0);
      expect(opts.transcript.exchanges.every((e) => e.response?.status === 200)).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('sends a read once more when its connection dropped under it, and records both attempts', async () => {
    let n = 0;
    const s = await serve((req, res) => {
      if (n++ === 0) return void req.socket.destroy();
      res.end('second');
    });
    try {
      const opts = options();
      const r = await httpCall({ method: 'POST', url: s.url, headers: {}, body: '{}' }, opts, { idempotent: true });
      expect(r.text).toBe('second');
      expect(opts.transcript.exchanges).toHaveLength(2);
      expect(opts.transcript.exchanges[0].error).toMatch(/other side closed|socket hang up|ECONNRESET/);
    } finally {
      await s.close();
    }
  });

  it('one sample’s connections are its own: a later sample never reuses them, and closing a sample closes its sockets', async () => {
    const socketsOf = new Map<string, Set<import('node:net').Socket>>();
    const s = await serve((req, res) => {
      const sample = String(req.headers['x-sample']);
      socketsOf.set(sample, (socketsOf.get(sample) ?? new Set()).add(req.socket));
      res.end('{}');
    });
    try {
      const first = new Connections();
      for (let i = 0; i < 3; i++) await httpRequest(get(s.url, { 'x-sample': '1' }), options({ connections: first }));
      await first.close();
      const second = new Connections();
      for (let i = 0; i < 3; i++) await httpRequest(get(s.url, { 'x-sample': '2' }), options({ connections: second }));
      const [one, two] = [[...socketsOf.get('1')!], [...socketsOf.get('2')!]];
      expect(two.filter((socket) => one.includes(socket))).toEqual([]);
      // The server's side of a closed sample's socket ends once the client's close reaches it.
      for (let i = 0; i < 50 && one.some((socket) => !socket.destroyed); i++) await new Promise((r) => setTimeout(r, 10));
      expect(one.every((socket) => socket.destroyed)).toBe(true);
      await second.close();
    } finally {
      await s.close();
    }
  });
});

describe('an answer the gate fails on', () => {
  /** A redactor that breaks on one text, as the gate did on a hostile answer (RangeError out of a pattern). */
  class BreakingRedactor extends Redactor {
    override text(s: string): string {
      if (s.includes('HOSTILE')) throw new RangeError('Maximum call stack size exceeded');
      return super.text(s);
    }
  }

  it("is the suite's error, never the target unreachable: not a TransportError", async () => {
    const s = await serve((_req, res) => res.end('{"a":"HOSTILE"}'));
    try {
      const err = await httpRequest(get(s.url), options({ redactor: new BreakingRedactor() })).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RangeError);
      expect(err).not.toBeInstanceOf(TransportError);
    } finally {
      await s.close();
    }
  });

  it('leaves its exchange saying the target answered and the suite did not record it, not "no response: unknown (0 ms)"', async () => {
    const s = await serve((_req, res) => res.end('{"a":"HOSTILE"}'));
    try {
      const opts = options({ redactor: new BreakingRedactor() });
      await expect(httpRequest(get(s.url), opts)).rejects.toBeInstanceOf(RangeError);
      const [exchange] = opts.transcript.exchanges;
      expect(exchange.response).toBeUndefined();
      expect(exchange.error).toMatch(/^HTTP 200 answered, not recorded: the suite failed masking the answer/);
      expect(JSON.stringify(exchange)).not.toContain('HOSTILE');
    } finally {
      await s.close();
    }
  });
});
