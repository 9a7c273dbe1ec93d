// The reference's client of anvil (src/reference/rpc.ts AnvilRpc): calls made at once go as one
// batch, each caller gets its own answer, and a broken batch answer fails every call in it.
// The upstream here is a loopback stand-in that records what it was sent: this is the
// reference's plumbing, not anything the suite judges.
import http from 'node:http';
import { AnvilRpc, RpcError } from '../../src/reference/rpc';
import { closeServer, listenLoopback } from '../support/loopback';

type Call = { id: number; method: string; params?: unknown[] };

async function upstream(answer: (body: Call | Call[]) => unknown): Promise<{ url: string; posts: Array<Call | Call[]>; close(): Promise<void> }> {
  const posts: Array<Call | Call[]> = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text) as Call | Call[];
      posts.push(body);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer(body)));
    });
  });
  const url = await listenLoopback(server);
  return { url, posts, close: () => closeServer(server) };
}

const echo = (c: Call) =>
  c.method === 'fail' ? { jsonrpc: '2.0', id: c.id, error: { code: 3, message: 'reverted' } } : { jsonrpc: '2.0', id: c.id, result: c.params };

describe('the reference’s client of anvil', () => {
  it('sends calls made at once as one batch, in order, and gives each caller its own answer', async () => {
    const up = await upstream((body) => (Array.isArray(body) ? body.map(echo).reverse() : echo(body)));
    const rpc = new AnvilRpc(up.url);
    try {
      const answers = await Promise.all([rpc.call('a', [1]), rpc.call('b', [2]), rpc.call('fail').catch((e: unknown) => e), rpc.call('c', [3])]);
      expect(answers.slice(0, 2)).toEqual([[1], [2]]);
      expect(answers[2]).toBeInstanceOf(RpcError);
      expect((answers[2] as RpcError).code).toBe(3);
      expect(answers[3]).toEqual([3]);
      expect(up.posts).toHaveLength(1);
      expect((up.posts[0] as Call[]).map((c) => c.method)).toEqual(['a', 'b', 'fail', 'c']);
      // A call on its own goes on its own, not as a batch of one.
      expect(await rpc.call('d', [4])).toEqual([4]);
      expect(Array.isArray(up.posts[1])).toBe(false);
    } finally {
      await rpc.close();
      await up.close();
    }
  });

  it('a batch answered with something else than its answers fails every call in it', async () => {
    const up = await upstream((body) => (Array.isArray(body) ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no batches' } } : echo(body)));
    const rpc = new AnvilRpc(up.url);
    try {
      const answers = await Promise.all([rpc.call('a').catch((e: unknown) => e), rpc.call('b').catch((e: unknown) => e)]);
      for (const a of answers) expect((a as Error).message).toBe('upstream answered a batch with a non-array');
    } finally {
      await rpc.close();
      await up.close();
    }
  });
});
