/**
 * Spec 4.2, the JSON-RPC common envelope. Every check sends one harmless call of the spec
 * (eth_getTransactionCount of a fresh random address at "latest") and judges one property of
 * the answer: HTTP status, media type, `jsonrpc`, the echoed `id`, result-xor-error.
 */
import { check, type CheckContext } from '../../src/harness/check';
import { blocked, fail } from '../../src/harness/verdict';
import { expectEqual, expectIdEcho, expectJsonMediaType, expectSchema, expectServed, rpcBody, RPC_ENVELOPE_ROOT } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { randomAddress } from '../../src/harness/hex';
import type { RpcAnswer } from '../../src/harness/rpc';

function harmlessCall(ctx: CheckContext<'rpc'>, id?: number): Promise<RpcAnswer> {
  return ctx.rpc.call('eth_getTransactionCount', [randomAddress(), 'latest'], id);
}

const httpOk = check(
  {
    id: 'rpc.envelope.http-200',
    statements: ['4.2.1'],
    level: 'required',
    needs: ['rpc'],
    title: 'A JSON-RPC call of the spec is answered with HTTP 200',
  },
  async (ctx) => {
    const { http } = await harmlessCall(ctx);
    expectEqual(http.status, 200, 'HTTP status of eth_getTransactionCount');
  },
);

// Advisory: 4.2 states Content-Type for the request only; the answer's media type is not shown.
const contentType = check(
  {
    id: 'rpc.envelope.content-type',
    statements: ['4.2.r3'],
    level: 'advisory',
    needs: ['rpc'],
    title: 'a JSON-RPC answer has Content-Type application/json (stated for requests)',
  },
  async (ctx) => {
    const { http } = await harmlessCall(ctx);
    // The media type of an error page is not the question: an answer that is not HTTP 200 is rpc.envelope.http-200's.
    if (http.status !== 200)
      blocked(RPC_ENVELOPE_ROOT.status, `eth_getTransactionCount answered HTTP ${http.status}`, { violated: ['4.2.1'], expected: 200, actual: http.status });
    expectJsonMediaType(http, 'the answer to eth_getTransactionCount');
  },
);

const version = check(
  {
    id: 'rpc.envelope.jsonrpc-version',
    statements: ['4.2.1'],
    level: 'required',
    needs: ['rpc'],
    title: 'A JSON-RPC answer carries jsonrpc "2.0"',
  },
  async (ctx) => {
    const answer = await harmlessCall(ctx);
    const json = rpcBody(answer, 'eth_getTransactionCount');
    expectServed('eth_getTransactionCount', answer, 'eth_getTransactionCount');
    expectEqual(json.jsonrpc, '2.0', 'member "jsonrpc" of the answer');
  },
);

/** One check per request id: the answer's id must be the very same JSON number. */
function idEcho(checkId: string, id: number) {
  return check(
    {
      id: checkId,
      statements: ['4.2.1'],
      level: 'required',
      needs: ['rpc'],
      title: `a request with id ${id} is answered with that same id`,
    },
    async (ctx) => expectIdEcho(await harmlessCall(ctx, id), id, 'eth_getTransactionCount'),
  );
}

const resultXorError = check(
  {
    id: 'rpc.envelope.result-xor-error',
    // 4.5.1 too: the call is valid, so an error in place of its result breaks the method's rule.
    statements: ['4.2.1', '4.5.1'],
    level: 'required',
    needs: ['rpc'],
    title: 'a JSON-RPC answer has exactly one of result and error',
  },
  async (ctx) => {
    const json = rpcBody(await harmlessCall(ctx), 'eth_getTransactionCount');
    expectSchema('jsonrpcResponse', json, 'the eth_getTransactionCount answer');
    // The call is valid, so the one member must be the result (4.5: a result for any address).
    if (!('result' in json))
      fail(`a valid eth_getTransactionCount call was answered with an error: ${show(json.error)}`, {
        violated: ['4.5.1'],
        expected: 'a result',
        actual: json.error,
      });
  },
);

export const envelopeChecks = [
  httpOk,
  contentType,
  version,
  idEcho('rpc.envelope.id-zero', 0),
  idEcho('rpc.envelope.id-max-safe-integer', Number.MAX_SAFE_INTEGER),
  resultXorError,
];
