// The node interface at {rpc_url}: a JSON-RPC server in front of anvil. It passes requests
// through, except where the spec and anvil differ or a Flashblocks node answers otherwise:
//   - public profile: any request naming eth_getBlockReceipts gets HTTP 403 (spec 4.3);
//   - transaction submissions go to the pre-confirmation model, which publishes them on the
//     next flashblock (preconf.ts);
//   - eth_getBlockReceipts("pending"), eth_getBlockByNumber("pending") and receipts of
//     pre-confirmed transactions are answered from the pre-confirmed block (preconf.ts);
//   - eth_blockNumber may report the block being built (blockNumberMode 'building');
//   - eth_estimateGas reverts become code -32000 "execution reverted" (anvil says code 3), and
//     without a block parameter it estimates at "latest" (spec 4.4; anvil's default is "pending").
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, listenLoopback, readBody, sendJson, type Listening } from './http-util';
import type { Preconf } from './preconf';
import { isObject, type Json, type JsonRpcError, type JsonRpcResponse, type Upstream } from './rpc';

export type Profile = 'public' | 'dedicated';

export interface GatewayOptions {
  upstream: Upstream;
  preconf: Preconf;
  profile: Profile;
  port: number;
  log: (line: string) => void;
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_BATCH = 1000;

interface RpcRequest {
  jsonrpc: '2.0';
  method: string;
  params?: Json;
  id?: Json;
}

export function startGateway(opts: GatewayOptions): Promise<Listening> {
  return listenLoopback(opts.port, (req, res) => {
    handle(opts, req, res).catch((err: Error) => {
      opts.log(`gateway: ${err.stack ?? err.message}`);
      if (!res.headersSent) sendJson(res, 500, errorResponse(null, -32603, 'internal error'));
      else res.destroy();
    });
  });
}

async function handle(opts: GatewayOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    sendJson(res, 405, errorResponse(null, -32600, 'JSON-RPC requests must use POST'), { headers: { allow: 'POST' } });
    return;
  }
  let body: Buffer;
  try {
    body = await readBody(req, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      sendJson(res, 413, errorResponse(null, -32600, `request body exceeds ${MAX_BODY_BYTES} bytes`));
      return;
    }
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    sendJson(res, 200, errorResponse(null, -32700, 'parse error'));
    return;
  }

  if (opts.profile === 'public' && namesBlockReceipts(parsed)) {
    sendJson(res, 403, errorResponse(null, -32001, 'eth_getBlockReceipts is not available on public node addresses; use a dedicated node'));
    return;
  }

  if (Array.isArray(parsed)) {
    if (parsed.length === 0 || parsed.length > MAX_BATCH) {
      sendJson(res, 200, errorResponse(null, -32600, `a batch must hold 1 to ${MAX_BATCH} requests`));
      return;
    }
    // In order, as geth does: a batch may send a transaction and then read "pending".
    const answers: JsonRpcResponse[] = [];
    for (const item of parsed) {
      const answer = await dispatch(opts, item);
      if (answer) answers.push(answer);
    }
    if (answers.length === 0) endEmpty(res);
    else sendJson(res, 200, answers);
    return;
  }
  const answer = await dispatch(opts, parsed);
  if (answer) sendJson(res, 200, answer);
  else endEmpty(res);
}

/** Answers one request object; undefined for a notification (no id). */
async function dispatch(opts: GatewayOptions, item: unknown): Promise<JsonRpcResponse | undefined> {
  if (!isRequest(item)) {
    const id = isObject(item) && isId(item.id) ? item.id : null;
    return errorResponse(id, -32600, 'invalid request');
  }
  const id = item.id ?? null;
  let answer: JsonRpcResponse;
  try {
    answer = await answerRequest(opts, item);
  } catch (err) {
    opts.log(`gateway: ${item.method}: ${(err as Error).message}`);
    answer = errorResponse(id, -32603, 'internal error');
  }
  return 'id' in item ? { ...answer, jsonrpc: '2.0', id } : undefined;
}

async function answerRequest(opts: GatewayOptions, req: RpcRequest): Promise<JsonRpcResponse> {
  const id = req.id ?? null;
  const params = Array.isArray(req.params) ? req.params : [];
  switch (req.method) {
    case 'eth_sendRawTransaction':
    case 'eth_sendTransaction':
      return opts.preconf.submit(req);
    case 'eth_getBlockReceipts':
      if (params[0] === 'pending') return { jsonrpc: '2.0', id, result: await opts.preconf.pendingReceipts() };
      break;
    case 'eth_getBlockByNumber':
      if (params[0] === 'pending') return opts.preconf.pendingBlock(params);
      break;
    case 'eth_getTransactionReceipt': {
      const answer = await opts.upstream.forward(req);
      if (answer.error || answer.result !== null || typeof params[0] !== 'string') return answer;
      return { ...answer, result: await opts.preconf.preconfirmedReceipt(params[0]) };
    }
    case 'eth_blockNumber':
      return opts.preconf.blockNumber();
    case 'eth_estimateGas': {
      // Spec 4.4: the block parameter defaults to "latest"; anvil's default is "pending".
      const answer = await opts.upstream.forward(params.length === 1 ? { ...req, params: [params[0], 'latest'] } : req);
      if (answer.error && isRevert(answer.error)) answer.error = translateRevert(answer.error);
      return answer;
    }
  }
  return opts.upstream.forward(req);
}

function isRevert(error: JsonRpcError): boolean {
  return error.code === 3 || /^execution reverted/i.test(error.message);
}

/** Spec 4.4 / 7: code -32000, message "execution reverted", data = the revert bytes. */
function translateRevert(error: JsonRpcError): JsonRpcError {
  // Custom-error reasons decoded by anvil can carry raw NULs; keep the message printable.
  const reason = error.message
    .replace(/^execution reverted:?/i, '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[:\s]+$/, '')
    .trim();
  const out: JsonRpcError = { code: -32000, message: reason ? `execution reverted: ${reason}` : 'execution reverted' };
  if (typeof error.data === 'string' && /^0x[0-9a-fA-F]*$/.test(error.data)) out.data = error.data;
  return out;
}

function namesBlockReceipts(parsed: unknown): boolean {
  const items = Array.isArray(parsed) ? parsed : [parsed];
  return items.some((item) => isObject(item) && item.method === 'eth_getBlockReceipts');
}

function isId(v: unknown): v is Json {
  return v === null || typeof v === 'string' || typeof v === 'number';
}

function isRequest(v: unknown): v is RpcRequest {
  return (
    isObject(v) &&
    v.jsonrpc === '2.0' &&
    typeof v.method === 'string' &&
    (v.params === undefined || Array.isArray(v.params) || isObject(v.params)) &&
    (!('id' in v) || isId(v.id))
  );
}

function errorResponse(id: Json, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function endEmpty(res: ServerResponse): void {
  // JSON-RPC 2.0: nothing is returned for notifications.
  res.writeHead(204, { 'cache-control': 'no-store' });
  res.end();
}
