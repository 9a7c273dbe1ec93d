/**
 * Malformed parameters and unknown blocks. Their error codes are "not shown" (spec 7 rule 2),
 * so no code is required here. What is judged (required): the answer is still a JSON-RPC
 * response (4.2) with the request id, and an error member, if any, carries an integer code and
 * a string message (7: "beyond code, message and data ... not shown"). Whether the node answers
 * an error at all is advisory: the spec does not say what a malformed or unknown input yields.
 */
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { expectIdEcho, expectSameId, expectSchema, rpcBody } from '../../src/harness/expect';
import { show } from '../../src/harness/json';
import { randomAddress, toQuantity } from '../../src/harness/hex';
import type { RpcAnswer } from '../../src/harness/rpc';
import { headNumber } from '../../src/harness/chain';

/** Far beyond any head the run can reach. */
const FUTURE_BLOCKS = 1_000_000n;

interface Probe {
  /** Check ids: the envelope of the answer (required), and whether it is an error (advisory). */
  envelopeId: string;
  isErrorId: string;
  /** What the is-error check enforces besides 7.5: the parameter's own row. */
  statements: string[];
  /** The call in a few words, for the titles. */
  subject: string;
  what: string;
  call(ctx: CheckContext<'rpc'>, id: number): Promise<RpcAnswer>;
}

const PROBES: Probe[] = [
  {
    envelopeId: 'rpc.errors.malformed-address.envelope',
    isErrorId: 'rpc.errors.malformed-address.is-error',
    statements: ['4.5.r1'],
    subject: 'eth_getTransactionCount of a 2-byte address',
    what: 'eth_getTransactionCount with a 2-byte address',
    call: (ctx, id) => ctx.rpc.call('eth_getTransactionCount', ['0x1234', 'latest'], id),
  },
  {
    envelopeId: 'rpc.errors.malformed-block.envelope',
    isErrorId: 'rpc.errors.malformed-block.is-error',
    statements: ['4.6.r2'],
    subject: 'eth_getCode at block "not-a-block"',
    what: 'eth_getCode with the block parameter "not-a-block"',
    call: (ctx, id) => ctx.rpc.call('eth_getCode', [randomAddress(), 'not-a-block'], id),
  },
  {
    envelopeId: 'rpc.errors.unknown-block.envelope',
    isErrorId: 'rpc.errors.unknown-block.is-error',
    statements: ['4.6.r2'],
    subject: 'eth_getCode at a block far past the head',
    what: 'eth_getCode at a block number a million blocks past the head',
    call: async (ctx, id) => ctx.rpc.call('eth_getCode', [randomAddress(), toQuantity((await headNumber(ctx)) + FUTURE_BLOCKS)], id),
  },
];

function envelopeCheck(p: Probe): Check {
  return check(
    {
      id: p.envelopeId,
      statements: ['4.2.1', '7.5'],
      level: 'required',
      needs: ['rpc'],
      title: `${p.subject}: a JSON-RPC response echoing the id`,
    },
    async (ctx) => {
      const id = 7001;
      const answer = await p.call(ctx, id);
      // A body that is not a JSON object, or the wrong id, is the envelope checks' failure (4.2): blocked by them.
      rpcBody(answer, p.what);
      expectSameId(answer, p.what);
      expectSchema('jsonrpcResponse', answer.json, `the answer to ${p.what}`);
      expectIdEcho(answer, id, p.what);
      if (answer.hasError) ctx.note(`error ${show(answer.error)} with HTTP ${answer.http.status} (codes are not shown, 7 rule 2)`);
    },
  );
}

function isErrorCheck(p: Probe): Check {
  return check(
    {
      id: p.isErrorId,
      statements: [...p.statements, '7.5'],
      level: 'advisory',
      needs: ['rpc'],
      title: `${p.subject}: a JSON-RPC error, not a result`,
    },
    async (ctx) => {
      const answer = await p.call(ctx, 7002);
      rpcBody(answer, p.what);
      if (!answer.hasError) {
        fail(`${p.what} was answered without an error: ${show(answer.json ?? answer.http.text)}`, {
          expected: 'a JSON-RPC error (any code)',
          actual: answer.json ?? null,
        });
      }
    },
  );
}

export const errorChecks: Check[] = PROBES.flatMap((p) => [envelopeCheck(p), isErrorCheck(p)]);
