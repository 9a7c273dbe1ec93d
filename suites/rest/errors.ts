/**
 * The REST interface is read-only (4.1 rule 1) and every answer other than the list's 200 is an
 * application/json rpcStatus (4.1 "Any other status", 2.3, 7). Which status an error uses is not
 * specified (7 rule 1): no check requires 404 or 405, only "not a success" and the body shape.
 */
import { randomBytes } from 'node:crypto';
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail, inconclusive, skip } from '../../src/harness/verdict';
import { mediaTypeProblem } from '../../src/harness/expect';
import { cut, show } from '../../src/harness/json';
import { TransportError } from '../../src/harness/http';
import type { RestResponse } from '../../src/harness/rest';
import { validate } from '../../src/harness/schemas';
import { LIST_PATH } from '../../src/harness/records';

export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
type WriteMethod = (typeof WRITE_METHODS)[number];

/** A write attempt on the list path. The body is an empty JSON object: nothing to store. */
function attempt(ctx: CheckContext<'rest'>, method: WriteMethod): Promise<RestResponse> {
  return ctx.rest.request(method, LIST_PATH, method === 'DELETE' ? {} : { body: '{}' });
}

/** One check per write method: the endpoint is read-only. */
const READ_ONLY: Array<[id: string, method: WriteMethod]> = [
  ['rest.readonly.post', 'POST'],
  ['rest.readonly.put', 'PUT'],
  ['rest.readonly.patch', 'PATCH'],
  ['rest.readonly.delete', 'DELETE'],
];

function readOnlyCheck([id, method]: (typeof READ_ONLY)[number]): Check {
  return check(
    {
      id,
      statements: ['4.1.3'],
      level: 'required',
      needs: ['rest'],
      title: `${method} ${LIST_PATH} does not succeed (the endpoint only reads)`,
    },
    async (ctx) => {
      let res: RestResponse;
      try {
        res = await attempt(ctx, method);
      } catch (err) {
        // No answer at all: whether the write took effect cannot be told.
        if (err instanceof TransportError) inconclusive(`${method} ${LIST_PATH} got no HTTP answer (${err.message}); cannot tell whether it succeeded`);
        throw err;
      }
      if (res.status >= 200 && res.status < 300) {
        fail(`${method} ${LIST_PATH} succeeded with HTTP ${res.status}; the endpoint is read-only`, {
          expected: 'a status other than 2xx',
          actual: res.status,
        });
      }
      ctx.note(`${method} answered HTTP ${res.status}`);
    },
  );
}

/** What is wrong with a non-200 answer under 4.1/2.3/7, or undefined when it is an application/json rpcStatus. */
export function errorAnswerProblem(res: RestResponse): string | undefined {
  const problems = [mediaTypeProblem(res), errorBodyProblem(res)].filter((p) => p !== undefined);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** What is wrong with an error answer's body itself (2.3: not JSON, or not an rpcStatus), whatever its media type. */
export function errorBodyProblem(res: RestResponse): string | undefined {
  if (res.json === undefined) return `the body is not JSON (${res.jsonError ?? 'unparseable'}: ${show(res.text, 80)})`;
  const verdict = validate('rpcStatus', res.json);
  return verdict.valid ? undefined : `the body is not an rpcStatus: ${verdict.errors.slice(0, 4).join('; ')}`;
}

const ERROR_SHAPE = 'application/json body of shape rpcStatus {code: int32, message: string, details?: [{"@type": string, ...}]}';

/**
 * Advisory: 4.1's "any other status" is a row of the GET operation's table, and 7 names the list's
 * unexpected failure; neither defines the answer to a write method. In front of a gateway an API
 * gateway or ingress often answers methods the route does not map with a body of its own (AWS API
 * Gateway's 403 {"message": "Missing Authentication Token"}, nginx's text/html 405) while the list
 * conforms in full: the rpcStatus carried over is worth a note when missing, never a failure of
 * the run. What read-only requires (no write succeeds, 4.1 rule 1) the rest.readonly.* checks judge.
 */
export const writeErrorsAreRpcStatus = check(
  {
    id: 'rest.error.write-methods',
    statements: ['4.1.2', '2.3.1'],
    level: 'advisory',
    needs: ['rest'],
    title: 'a non-200 answer to POST/PUT/PATCH/DELETE is an application/json rpcStatus',
  },
  async (ctx) => {
    // Each answer is judged as it comes and a violation recorded in the run's evidence at once: a
    // later method's answer that ends the check (throttled, a gateway down, refused credentials)
    // cannot take back an error answer already seen in the wrong shape.
    const judged: string[] = [];
    for (const method of WRITE_METHODS) {
      const res = await attempt(ctx, method);
      if (res.status >= 200 && res.status < 300) continue; // a success is no error answer; rest.readonly.* judge a successful write
      judged.push(`${method} ${res.status}`);
      const problem = errorAnswerProblem(res);
      if (problem)
        ctx.violation(`${method} ${LIST_PATH} -> HTTP ${res.status}: the error answer is not an application/json rpcStatus: ${problem}`, {
          expected: ERROR_SHAPE,
          actual: { method, status: res.status, contentType: res.headers['content-type'] ?? null, body: res.json ?? cut(res.text, 200) },
        });
    }
    if (judged.length === 0) skip('every write method answered HTTP 200: no error answer to judge');
    ctx.note(`judged: ${judged.join(', ')}`);
  },
);

/**
 * Advisory: 4.1 and 7 define the answers of one operation, GET /v1/tokenized-stocks; a path the
 * spec does not define has no answer of the spec's, and in front of a gateway it is often
 * answered by an ingress or CDN with a page of its own (nginx's text/html 404), while the list
 * conforms in full. An rpcStatus there is the endpoint's error shape carried over, worth a note
 * when missing, never a failure of the run. (It cites no 7.1: a path that does not exist is no
 * unexpected failure of the list; rest.list.status-200 judges that one.)
 */
export const unknownPathErrorIsRpcStatus = check(
  {
    id: 'rest.error.unknown-path',
    statements: ['4.1.2', '2.3.1'],
    level: 'advisory',
    needs: ['rest'],
    title: 'an error answer for an unknown path under /v1 is an application/json rpcStatus',
  },
  async (ctx) => {
    const path = `/v1/tokenized-stocks-does-not-exist-${randomBytes(6).toString('hex')}`;
    const res = await ctx.rest.get(path);
    if (res.status === 200) skip(`GET ${path} answered HTTP 200: no error answer to judge`);
    const problem = errorAnswerProblem(res);
    if (problem)
      fail(`GET ${path} -> HTTP ${res.status}: ${problem}`, {
        expected: ERROR_SHAPE,
        actual: { status: res.status, contentType: res.headers['content-type'] ?? null, body: res.json ?? cut(res.text, 200) },
      });
    ctx.note(`GET ${path} answered HTTP ${res.status} with an rpcStatus`);
  },
);

export const errorChecks: Check[] = [...READ_ONLY.map(readOnlyCheck), writeErrorsAreRpcStatus, unknownPathErrorIsRpcStatus];
