/**
 * Spec 4.2, the JSON-RPC common envelope. Every check sends one harmless call of the spec
 * (eth_getTransactionCount of a fresh random address at "latest") and judges one property of
 * the answer: HTTP status, media type, `jsonrpc`, the echoed `id`, result-xor-error.
 */
import { check, type CheckContext } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { expectEqual, expectSchema } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { randomAddress } from '../../src/harness/hex';
import type { RpcAnswer } from '../../src/harness/rpc';

function harmlessCall(ctx: CheckContext, id?: number): Promise<RpcAnswer> {
  return ctx.rpc.call('eth_getTransactionCount', [randomAddress(), 'latest'], id);
}

/** The parsed body as an object, or a 4.2 failure. */
function body(answer: RpcAnswer): Record<string, unknown> {
  const j = answer.json;
  if (typeof j !== 'object' || j === null || Array.isArray(j)) {
    fail(`response body is not a JSON object: ${answer.jsonError ?? show(j)}`, { expected: 'a JSON-RPC response object', actual: answer.jsonError ?? j });
  }
  return j as Record<string, unknown>;
}

const httpOk = check({
  id: 'rpc.envelope.http-200',
  section: '4.2',
  level: 'required',
  needs: ['rpc'],
  title: 'A JSON-RPC call of the spec is answered with HTTP 200',
}, async (ctx) => {
  const { http } = await harmlessCall(ctx);
  expectEqual(http.status, 200, 'HTTP status of eth_getTransactionCount');
});

// Advisory: 4.2 states Content-Type for the request only; the answer's media type is not shown.
const contentType = check({
  id: 'rpc.envelope.content-type',
  section: '4.2',
  level: 'advisory',
  needs: ['rpc'],
  title: 'A JSON-RPC answer has Content-Type application/json (advisory: 4.2 states it for requests)',
}, async (ctx) => {
  const { http } = await harmlessCall(ctx);
  // Parameters such as charset are fine: only the media type is judged.
  if (http.contentType !== 'application/json') {
    fail(`Content-Type: expected application/json, got ${show(http.headers['content-type'] ?? '(none)')}`, { expected: 'application/json', actual: http.headers['content-type'] ?? null });
  }
});

const version = check({
  id: 'rpc.envelope.jsonrpc-version',
  section: '4.2',
  level: 'required',
  needs: ['rpc'],
  title: 'A JSON-RPC answer carries jsonrpc "2.0"',
}, async (ctx) => {
  const json = body(await harmlessCall(ctx));
  expectEqual(json.jsonrpc, '2.0', 'member "jsonrpc" of the answer');
});

/** One check per request id: the answer's id must be the very same JSON number. */
function idEcho(rule: string, id: number) {
  return check({
    id: `rpc.envelope.${rule}`,
    section: '4.2',
    level: 'required',
    needs: ['rpc'],
    title: `A request with id ${id} is answered with exactly that id (same JSON number)`,
  }, async (ctx) => {
    const json = body(await harmlessCall(ctx, id));
    if (!('id' in json)) fail(`the answer has no "id" member (request id ${id})`, { expected: id, actual: json });
    // Object.is: 0 and the large integer must come back as the same number, not a string,
    // null, a float that rounds elsewhere, or another id.
    if (!Object.is(json.id, id)) fail(`id not echoed: request id ${id}, answer id ${show(json.id)}`, { expected: id, actual: json.id });
  });
}

const resultXorError = check({
  id: 'rpc.envelope.result-xor-error',
  section: '4.2',
  level: 'required',
  needs: ['rpc'],
  title: 'A JSON-RPC answer has exactly one of result and error (schema jsonrpcResponse)',
}, async (ctx) => {
  const json = body(await harmlessCall(ctx));
  expectSchema('jsonrpcResponse', json, 'the eth_getTransactionCount answer');
  // The call is valid, so the one member must be the result (4.5: a result for any address).
  if (!('result' in json)) fail(`a valid eth_getTransactionCount call was answered with an error: ${show(json.error)}`, { section: '4.5', expected: 'a result', actual: json.error });
});

export const envelopeChecks = [
  httpOk,
  contentType,
  version,
  idEcho('id-zero', 0),
  idEcho('id-max-safe-integer', Number.MAX_SAFE_INTEGER),
  resultXorError,
];
