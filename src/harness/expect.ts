/**
 * Judging helpers: turn an observation into a verdict naming the statement it breaks. Checks call these; the
 * clients never do (they only observe). Each rule of judgement is written here once.
 */
import type { HttpResult } from './http';
import { cut, isRecord, show } from './json';
import type { RpcAnswer, RpcClient } from './rpc';
import { validate, type SchemaName } from './schemas';
import { blocked, fail } from './verdict';

export function expectEqual<T>(actual: unknown, expected: T, what: string, violated?: readonly string[]): asserts actual is T {
  if (!Object.is(actual, expected) && JSON.stringify(actual) !== JSON.stringify(expected)) {
    fail(`${what}: expected ${show(expected)}, got ${show(actual)}`, { expected, actual, violated });
  }
}

/** Validate against a schema from schemas/ (the one source of truth for shapes). */
export function expectSchema(name: SchemaName, value: unknown, what: string, violated?: readonly string[]): void {
  const verdict = validate(name, value);
  if (!verdict.valid)
    fail(`${what} does not match schema "${name}": ${verdict.errors.slice(0, 5).join('; ')}`, { expected: `schema ${name}`, actual: value, violated });
}

/**
 * What is wrong with the media type of an answer that must be JSON, or undefined when it is
 * application/json. Only the media type is judged: parameters such as charset are fine.
 */
export function mediaTypeProblem(res: Pick<HttpResult, 'contentType' | 'headers'>): string | undefined {
  if (res.contentType === 'application/json') return undefined;
  return `Content-Type is ${show(res.headers['content-type'] ?? '(none)')}, not application/json`;
}

/** The media type of an answer is application/json (see mediaTypeProblem). */
export function expectJsonMediaType(res: Pick<HttpResult, 'contentType' | 'headers'>, what: string, violated?: readonly string[]): void {
  const problem = mediaTypeProblem(res);
  if (problem) fail(`${what}: ${problem}`, { expected: 'application/json', actual: res.headers['content-type'] ?? null, violated });
}

/**
 * The envelope checks (spec 4.2) that own each way a JSON-RPC answer can break the envelope. A
 * check about something else (a method's result, a block parameter) that meets a broken envelope
 * is blocked by the envelope check that judges it: one cause is one failure, stated by a check
 * that declares 4.2.1, never 4.2.1 again by dozens of checks that do not.
 */
export const RPC_ENVELOPE_ROOT = {
  /** The answer is not HTTP 200. */
  status: 'rpc.envelope.http-200',
  /** The body is not a JSON object (markup, text, a proxy's page). */
  body: 'rpc.envelope.jsonrpc-version',
  /** The answer does not carry the request's id. */
  id: 'rpc.envelope.id-zero',
  /** The answer has neither result nor error. */
  members: 'rpc.envelope.result-xor-error',
} as const;

/**
 * The check that states "the node does not serve this method" for each method of the spec: one
 * root per method, every other check of the method blocked by it (as a public node's 403 of
 * eth_getBlockReceipts under --profile dedicated is one root, RECEIPTS_ROOT). The rule broken is
 * the method's first: a valid call is answered with its result.
 */
export const METHOD_ROOT: Readonly<Record<string, { id: string; violated: readonly string[] }>> = {
  eth_getBlockReceipts: { id: 'rpc.getBlockReceipts.block.latest', violated: ['4.3.1'] },
  eth_estimateGas: { id: 'rpc.estimateGas.block.latest', violated: ['4.4.1'] },
  eth_getTransactionCount: { id: 'rpc.getTransactionCount.block.latest', violated: ['4.5.1'] },
  eth_getCode: { id: 'rpc.getCode.block.latest', violated: ['4.6.1'] },
};

/** The root a "not served" answer of `method` is stated by, with what to say: undefined when the method is served (or is not one of the spec's). */
export function notServedRoot(method: string, answer: Pick<RpcAnswer, 'notServed'>, what: string) {
  const root = METHOD_ROOT[method];
  if (!root || answer.notServed === undefined) return undefined;
  return {
    root: root.id,
    message: `${what}: the node does not serve ${method} (it answered ${answer.notServed})`,
    detail: { violated: root.violated, expected: `${method} served: a valid call answered with its result`, actual: answer.notServed },
  };
}

/** Blocked by the method's root (METHOD_ROOT) when the node said it does not serve the method; its own failure in the root itself. */
export function expectServed(method: string, answer: Pick<RpcAnswer, 'notServed'>, what: string): void {
  const refusal = notServedRoot(method, answer, what);
  if (refusal) blocked(refusal.root, refusal.message, refusal.detail);
}

/** The parsed body of a JSON-RPC answer as an object, or blocked by the envelope check of 4.2 that judges it. */
export function rpcBody(answer: RpcAnswer, what: string): Record<string, unknown> {
  if (!isRecord(answer.json)) {
    // Not HTTP 200 and no envelope: the status is the first thing wrong (a gateway's or server's error page).
    if (answer.http.status !== 200)
      blocked(
        RPC_ENVELOPE_ROOT.status,
        `${what}: HTTP ${answer.http.status} with a body that is not a JSON object (${answer.jsonError ?? show(answer.json)})`,
        {
          violated: ['4.2.1'],
          expected: 'HTTP 200 with a JSON-RPC response object',
          actual: `HTTP ${answer.http.status}`,
        },
      );
    blocked(RPC_ENVELOPE_ROOT.body, `${what}: HTTP ${answer.http.status} with a body that is not a JSON object (${answer.jsonError ?? show(answer.json)})`, {
      violated: ['4.2.1'],
      expected: 'a JSON-RPC response object',
      actual: answer.jsonError ?? answer.json ?? cut(answer.http.text, 200),
    });
  }
  return answer.json;
}

/** 4.2: the answer's id is the very same JSON number as the request's (not a string, not another number). */
export function expectIdEcho(answer: RpcAnswer, id: number, what: string): void {
  const body = rpcBody(answer, what);
  if (!('id' in body)) fail(`${what}: the answer has no "id" member (request id ${id})`, { violated: ['4.2.1'], expected: id, actual: body });
  // Object.is: 0 and large integers must come back as the same number, not a string, null, a
  // float that rounds elsewhere, or another id.
  if (!Object.is(body.id, id))
    fail(`${what}: id not echoed: request id ${id}, answer id ${show(body.id)}`, { violated: ['4.2.1'], expected: id, actual: body.id });
}

/**
 * 4.2: every answer carries its request's id. The client records a mismatch on each call it
 * makes (RpcAnswer.idMismatch); every judging helper that reads a result stops on it, whatever
 * the check is about: blocked by the id check of the envelope, which states the failure once
 * (when that check's own answer was right, this answer still fails, once, citing 4.2.1).
 */
export function expectSameId(answer: Pick<RpcAnswer, 'idMismatch'>, what: string): void {
  const m = answer.idMismatch;
  if (!m) return;
  blocked(RPC_ENVELOPE_ROOT.id, `${what}: the answer carries id ${m.got === undefined ? '(none)' : show(m.got)}, not the request's id ${m.sent}`, {
    violated: ['4.2.1'],
    expected: m.sent,
    actual: m.got ?? null,
  });
}

/**
 * The result of a JSON-RPC answer. An answer that is not HTTP 200, not a JSON object, not the
 * request's id or has neither member breaks the envelope (4.2.1): blocked by the envelope check
 * that owns it (RPC_ENVELOPE_ROOT). An error where a result was due fails the check's own rule
 * (a valid call of its method is answered), or as `refused403` says for an HTTP 403, where a
 * profile rule applies.
 */
export function resultOf<T = unknown>(method: string, answer: RpcAnswer, refused403?: () => never, where?: string): T {
  const { http } = answer;
  if (http.status === 403 && refused403) refused403();
  // The node answered this call with an error under another status (Tevm: HTTP 400 to a block
  // parameter it does not take): a fact of this request. Blocked by the status check when that
  // fails in the run (the node answers every call so); otherwise each such answer is its own
  // fault (ownEvidence), never "the answer changed between requests" of another request.
  if (http.status !== 200 && answer.hasError && answer.error !== undefined) {
    blocked(
      RPC_ENVELOPE_ROOT.status,
      `${method}${where ? ` ${where}` : ''} answered HTTP ${http.status} with error ${show(answer.error)}`,
      { violated: ['4.2.1'], expected: 'HTTP 200 with a JSON-RPC result', actual: { status: http.status, error: answer.error } },
      { ownEvidence: true },
    );
  }
  if (http.status !== 200) {
    blocked(RPC_ENVELOPE_ROOT.status, `${method} answered HTTP ${http.status}`, {
      violated: ['4.2.1'],
      expected: 'HTTP 200 with a JSON-RPC result',
      actual: `HTTP ${http.status}`,
    });
  }
  const body = rpcBody(answer, method);
  expectSameId(answer, method);
  expectServed(method, answer, method);
  if (answer.hasError) fail(`${method} returned error ${show(body.error)}`, { expected: 'a result', actual: body.error });
  if (!answer.hasResult) {
    blocked(RPC_ENVELOPE_ROOT.members, `${method}: response has neither result nor error`, { violated: ['4.2.1'], expected: 'a result member', actual: body });
  }
  return answer.result as T;
}

/** Call a method and return its result, judged as resultOf does. */
export async function callResult<T = unknown>(rpc: Pick<RpcClient, 'call'>, method: string, params: unknown[]): Promise<T> {
  return resultOf<T>(method, await rpc.call(method, params));
}
