// A small loopback JSON-RPC proxy in front of the embedded reference, to make it misbehave in
// exactly one way: answer "pending" from "latest" for one method, show pre-confirmed state only
// after a lag (eth_sendRawTransaction answered at once, forwarded upstream later), answer the
// signer's transaction count one below the truth, refuse every transaction, fail every
// eth_estimateGas, or stop answering (or have the node stop sealing) at the first send.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256, type Hex } from 'viem';

export interface ProxyOptions {
  /** Rewrite "pending" to "latest" in the params of this method. */
  pendingAsLatest?: string;
  /** Answer the pending count of a checksummed address from "latest" (lowercase ones count the pool): EthereumJS 0.10.5. */
  checksummedPendingAsLatest?: boolean;
  /** Answer eth_sendRawTransaction with keccak256(raw) at once, forward it this much later. */
  sendLagMs?: number;
  /**
   * Answer eth_getTransactionCount one below the truth (when above 0): at "pending" only (the
   * pending count falls below the latest one), or at every tag (the counts agree, but the
   * pending one is a nonce already used: the send fails with "nonce too low").
   */
  countOneLow?: 'pending' | 'every-tag';
  /** Lower only this many answers (default: all), e.g. 1 for a replica that lagged once. */
  countOneLowTimes?: number;
  /** Refuse every eth_sendRawTransaction with this JSON-RPC error. */
  refuseSends?: { code: number; message: string };
  /**
   * After each forwarded send, ask the target itself for the transaction's receipt every 25 ms
   * until it is sealed, counting receipts answered before the seal (zero block hash): proof that
   * the run met a Flashblocks-style node that answers receipts of pre-confirmed transactions.
   */
  watchReceipts?: boolean;
  /**
   * Answer eth_getTransactionCount at "latest" from this many blocks below the head: what a
   * backend that far behind a load balancer answers, for longer than the pass re-reads.
   */
  latestCountLagBlocks?: number;
  /**
   * Answer eth_getCode at "latest" with 0xfe wherever there is code: a node whose sealed state is
   * wrong (not merely behind), which must fail, never be waited out as a lagging backend.
   */
  latestCodeWrong?: boolean;
  /**
   * Forward the first eth_sendRawTransaction, then reset the connection instead of answering: a
   * keep-alive race behind a load balancer. The client sends the same bytes again.
   */
  dropFirstSendAnswer?: boolean;
  /** Answer every eth_estimateGas with this JSON-RPC error (an EthereumJS dev node answers -32603). */
  estimateError?: { code: number; message: string };
  /** Runs once, before the first eth_sendRawTransaction is forwarded (e.g. to stop the node sealing). */
  beforeFirstSend?: () => Promise<void>;
  /** Once the first eth_sendRawTransaction was answered, answer nothing more: every later request hangs until close. */
  silentAfterFirstSend?: boolean;
}

export interface RpcProxy {
  url: string;
  /**
   * Requests whose params or answers were rewritten, sends that were delayed or refused; and
   * when each request reached the proxy (performance.now(), ms), to measure the client's rate.
   */
  stats: { rewritten: number; delayed: number; refused: number; preconfirmedReceipts: number; arrivals: number[]; unanswered: number };
  close(): Promise<void>;
}

type Req = { jsonrpc?: string; id?: unknown; method?: string; params?: unknown };

export async function startRpcProxy(upstream: string, opts: ProxyOptions): Promise<RpcProxy> {
  const stats = { rewritten: 0, delayed: 0, refused: 0, preconfirmedReceipts: 0, arrivals: [] as number[], unanswered: 0 };
  let sends = 0;
  let silent = false;
  let closing = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<unknown>>();
  const forward = (body: string): Promise<Response> => fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  const ZERO_HASH = `0x${'0'.repeat(64)}`;
  const watch = (hash: Hex): void => {
    const p = (async () => {
      let counted = false;
      for (let i = 0; i < 400 && !closing; i++) {
        const env = (await (await forward(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [hash] }))).json()) as {
          result?: { blockHash?: string } | null;
        };
        const blockHash = env.result?.blockHash;
        if (blockHash === ZERO_HASH && !counted) {
          counted = true;
          stats.preconfirmedReceipts += 1;
        }
        if (blockHash && blockHash !== ZERO_HASH) return;
        await new Promise((r) => setTimeout(r, 25));
      }
    })()
      .catch(() => undefined)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  const rewrite = (r: Req): Req => {
    if (
      opts.checksummedPendingAsLatest &&
      r.method === 'eth_getTransactionCount' &&
      Array.isArray(r.params) &&
      r.params[1] === 'pending' &&
      typeof r.params[0] === 'string' &&
      r.params[0] !== r.params[0].toLowerCase()
    ) {
      stats.rewritten += 1;
      return { ...r, params: [r.params[0], 'latest'] };
    }
    if (opts.pendingAsLatest && r.method === opts.pendingAsLatest && Array.isArray(r.params) && r.params.includes('pending')) {
      stats.rewritten += 1;
      return { ...r, params: r.params.map((p) => (p === 'pending' ? 'latest' : p)) };
    }
    return r;
  };

  const server = http.createServer((req, res) => {
    stats.arrivals.push(performance.now());
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let parsed: Req | Req[];
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Req | Req[];
        } catch {
          parsed = undefined as unknown as Req;
        }
        const single = Array.isArray(parsed) ? undefined : parsed;
        if (silent) {
          stats.unanswered += 1;
          return; // never answered; close() drops the connection
        }
        if (single?.method === 'eth_sendRawTransaction' && sends++ === 0) {
          await opts.beforeFirstSend?.();
          if (opts.silentAfterFirstSend) silent = true;
        }
        if (opts.estimateError && single?.method === 'eth_estimateGas') {
          stats.rewritten += 1;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: single.id ?? null, error: opts.estimateError }));
          return;
        }
        if (opts.refuseSends && single?.method === 'eth_sendRawTransaction') {
          stats.refused += 1;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: single.id ?? null, error: opts.refuseSends }));
          return;
        }
        const lowered =
          opts.countOneLow &&
          single?.method === 'eth_getTransactionCount' &&
          Array.isArray(single.params) &&
          (opts.countOneLow === 'every-tag' || single.params[1] === 'pending');
        if (opts.sendLagMs !== undefined && !Array.isArray(parsed) && parsed?.method === 'eth_sendRawTransaction' && Array.isArray(parsed.params)) {
          const raw = parsed.params[0] as Hex;
          const body = JSON.stringify(parsed);
          stats.delayed += 1;
          const timer = setTimeout(() => {
            timers.delete(timer);
            const p = forward(body)
              .then((r) => r.text())
              .catch(() => undefined)
              .finally(() => inFlight.delete(p));
            inFlight.add(p);
          }, opts.sendLagMs);
          timers.add(timer);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id ?? null, result: keccak256(raw) }));
          return;
        }
        if (opts.latestCountLagBlocks && single?.method === 'eth_getTransactionCount' && Array.isArray(single.params) && single.params[1] === 'latest') {
          const env = (await (await forward(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }))).json()) as { result?: string };
          const behind = BigInt(env.result ?? '0x0') - BigInt(opts.latestCountLagBlocks);
          stats.rewritten += 1;
          parsed = { ...single, params: [single.params[0], `0x${(behind > 0n ? behind : 0n).toString(16)}`] };
        }
        const out =
          parsed === undefined ? Buffer.concat(chunks).toString('utf8') : JSON.stringify(Array.isArray(parsed) ? parsed.map(rewrite) : rewrite(parsed));
        try {
          const answer = await forward(out);
          let text = await answer.text();
          if (opts.dropFirstSendAnswer && single?.method === 'eth_sendRawTransaction' && stats.rewritten === 0) {
            stats.rewritten += 1;
            res.socket?.destroy();
            return;
          }
          if (opts.watchReceipts && single?.method === 'eth_sendRawTransaction' && Array.isArray(single.params) && /"result"/.test(text))
            watch(keccak256(single.params[0] as Hex));
          if (opts.latestCodeWrong && single?.method === 'eth_getCode' && Array.isArray(single.params) && single.params[1] === 'latest') {
            const env = JSON.parse(text) as { result?: unknown };
            if (typeof env.result === 'string' && env.result !== '0x') {
              stats.rewritten += 1;
              text = JSON.stringify({ ...env, result: '0xfe' });
            }
          }
          if (lowered && stats.rewritten < (opts.countOneLowTimes ?? Infinity)) {
            const env = JSON.parse(text) as { result?: unknown };
            if (typeof env.result === 'string' && BigInt(env.result) > 0n) {
              stats.rewritten += 1;
              text = JSON.stringify({ ...env, result: `0x${(BigInt(env.result) - 1n).toString(16)}` });
            }
          }
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(text);
        } catch (err) {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(err));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: async () => {
      closing = true;
      for (const t of timers) clearTimeout(t);
      await Promise.all([...inFlight]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
