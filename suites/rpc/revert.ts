/**
 * Spec 4.4 and 7: eth_estimateGas of a transaction that would revert answers JSON-RPC error
 * -32000, message "execution reverted", and an optional `data` carrying the revert reason.
 * The transaction is a contract creation whose init code reverts with Error("conformance").
 * One rule per check: code, message, data; plus the error envelope itself (4.2, 7). The rule
 * names no block parameter, so it covers every one: the code, message and data are judged with
 * the block parameter left out (the default, "latest") and at "pending", where a node answers
 * from another code path (its pre-confirmed state) and may map the revert differently.
 *
 * Note: geth, reth and anvil answer code 3 here; the spec says -32000, and the check follows
 * the spec (its failure names the code it saw).
 */
import type { Hex } from 'viem';
import { viem } from '../../src/harness/viem';
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { blocked, fail, inconclusive, skip } from '../../src/harness/verdict';
import { expectIdEcho, expectSameId, expectSchema, expectServed, rpcBody } from '../../src/harness/expect';
import { isRecord, show } from '../../src/harness/json';
import { randomAddress } from '../../src/harness/hex';
import { transfer } from './estimate-gas';
import type { RpcError } from '../../src/harness/rpc';
import { isInsufficientFunds, isRevert, revertingInitCode } from '../../src/harness/evm';

export const REVERT_REASON = 'conformance';

/** The reason as the EVM returns it, encoded by viem (independent of the hand-assembled code). */
export function expectedRevertData(reason = REVERT_REASON): Hex {
  return viem().encodeErrorResult({
    abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
    errorName: 'Error',
    args: [reason],
  });
}

/**
 * eth_estimateGas of the reverting deployment, from a random sender. A node that charges that
 * unfunded sender a gas price refuses it before executing anything ("insufficient funds", Tevm):
 * asked again without `from`, and not judged when refused for funds both ways (the suite chose
 * the sender; the revert was never reached).
 */
async function revertingEstimate(ctx: CheckContext<'rpc'>, id?: number, block?: RevertBlock) {
  const data = revertingInitCode(REVERT_REASON);
  const tail = block ? [block] : [];
  const first = await ctx.rpc.call('eth_estimateGas', [{ from: randomAddress(), data }, ...tail], id);
  if (!isInsufficientFunds(first.error)) return first;
  ctx.note(`an unfunded random sender was refused for want of funds (${show(first.error)}): estimated again without "from"`);
  const second = await ctx.rpc.call('eth_estimateGas', [{ data }, ...tail], id);
  if (isInsufficientFunds(second.error))
    inconclusive(
      `eth_estimateGas of a reverting deployment was refused for want of funds, from an unfunded random sender and without "from" (${show(second.error)}): the revert was never reached, so its error could not be judged`,
    );
  return second;
}

/** The block parameter a revert is asked at: left out (the default, "latest"), or "pending". */
type RevertBlock = 'pending' | undefined;
const at = (block: RevertBlock) => (block ? ` at ${show(block)}` : '');

/** The error object of the answer; fails when the node estimated instead of reporting the revert. */
async function revertError(ctx: CheckContext<'rpc'>, block?: RevertBlock): Promise<RpcError & Record<string, unknown>> {
  const answer = await revertingEstimate(ctx, undefined, block);
  const json = rpcBody(answer, `eth_estimateGas of a reverting deployment${at(block)}`);
  expectServed('eth_estimateGas', answer, `eth_estimateGas of a reverting deployment${at(block)}`);
  if (answer.hasResult && !answer.hasError) {
    fail(
      `eth_estimateGas${at(block)} of a deployment whose init code reverts answered a result ${show(answer.result)} instead of the "execution reverted" error`,
      {
        violated: ['4.4.4', '7.2'],
        expected: 'error -32000 "execution reverted"',
        actual: json,
      },
    );
  }
  const error = json.error;
  if (!isRecord(error)) {
    fail(`eth_estimateGas of a reverting deployment${at(block)}: no error object in ${show(json)}`, {
      violated: ['4.4.4', '7.2'],
      expected: 'an error object with code, message',
      actual: json,
    });
  }
  if (block === 'pending') await pendingRefused(ctx, error);
  return error as RpcError & Record<string, unknown>;
}

/** The check that states "eth_estimateGas refuses the block parameter "pending"" (1.4, 4.2). */
const PENDING_ROOT = 'rpc.estimateGas.block.pending';

/**
 * An error at "pending" that says nothing of a revert may be the block parameter refused, not the
 * revert answered in another shape: a node refusing "pending" answers the plain transfer there with
 * an error too. That is one root cause, stated by the estimate check at "pending" (1.4, 4.2): these
 * checks are blocked by it, never failed on a revert code or message the node never gave (nor the
 * data skipped as absent). An error naming a revert is judged as the revert's answer.
 */
async function pendingRefused(ctx: CheckContext<'rpc'>, error: Record<string, unknown>): Promise<void> {
  if (isRevert(error)) return;
  const plain = await ctx.rpc.call('eth_estimateGas', [transfer(), 'pending']);
  if (!plain.hasError || isInsufficientFunds(plain.error)) return;
  blocked(
    PENDING_ROOT,
    `eth_estimateGas refuses the block parameter "pending": the reverting deployment there answered ${show(error)}, and a plain transfer there ${show(plain.error)}, so the revert at "pending" was never reached`,
    { violated: ['1.4.1', '4.2.2'], expected: 'estimates at "pending" (each of the four methods accepts it)', actual: plain.error },
  );
}

/**
 * The revert's code, message and data, each judged with the block parameter left out and at
 * "pending" (the rule of 4.4 and 7 holds at every block parameter).
 */
const REVERT_AT: Array<[ids: { code: string; message: string; data: string }, block: RevertBlock]> = [
  [{ code: 'rpc.estimateGas.revert.code', message: 'rpc.estimateGas.revert.message', data: 'rpc.estimateGas.revert.data' }, undefined],
  [{ code: 'rpc.estimateGas.revert.pending.code', message: 'rpc.estimateGas.revert.pending.message', data: 'rpc.estimateGas.revert.pending.data' }, 'pending'],
];

function revertChecksAt([ids, block]: (typeof REVERT_AT)[number]): Check[] {
  const where = block ? ` at ${show(block)}` : '';
  // The three share their statements, needs and question (the revert's error at this block
  // parameter); each judges one member of it. The title names the block parameter when one is sent.
  const revertCheck = (id: string, title: { atBlock: string; plain: string }, rule: (error: RpcError & Record<string, unknown>) => void): Check =>
    check({ id, statements: ['4.4.4', '7.2'], level: 'required', needs: ['rpc'], title: block ? title.atBlock : title.plain }, async (ctx) =>
      rule(await revertError(ctx, block)),
    );

  const revertCode = revertCheck(
    ids.code,
    {
      atBlock: `a reverting eth_estimateGas at "${block}" answers error code -32000`,
      plain: 'eth_estimateGas of a reverting transaction answers error code -32000',
    },
    (error) => {
      if (error.code !== -32000) {
        fail(
          `revert${where} answered with error code ${show(error.code)}; spec 4.4 and 7 require -32000 at every block parameter (many clients, e.g. geth, reth and anvil, use 3 here)`,
          { expected: -32000, actual: error.code },
        );
      }
    },
  );

  const revertMessage = revertCheck(
    ids.message,
    {
      atBlock: `a reverting eth_estimateGas at "${block}" answers "execution reverted"`,
      plain: 'eth_estimateGas of a reverting transaction answers "execution reverted"',
    },
    (error) => {
      // Clients commonly append the decoded reason ("execution reverted: conformance"): the spec's
      // message is accepted as a prefix.
      if (typeof error.message !== 'string' || !error.message.startsWith('execution reverted')) {
        fail(`revert${where} answered with message ${show(error.message)}; expected "execution reverted" (optionally followed by the reason)`, {
          expected: 'execution reverted',
          actual: error.message,
        });
      }
    },
  );

  const revertData = revertCheck(
    ids.data,
    {
      atBlock: `revert data at "${block}", if any, is the ABI-encoded Error("conformance")`,
      plain: 'revert data, when present, is the ABI-encoded reason Error("conformance")',
    },
    (error) => {
      const expected = expectedRevertData();
      if (!('data' in error) || error.data === undefined) {
        // `data` is optional (4.4, 7): its absence is conformant, but then there is nothing to judge.
        skip('the error carries no data member (optional in 4.4 and 7): nothing to judge');
      }
      if (typeof error.data !== 'string' || error.data.toLowerCase() !== expected) {
        fail(`revert error data${where} ${show(error.data)} is not the revert reason Error("${REVERT_REASON}") = ${expected}`, {
          expected,
          actual: error.data,
        });
      }
    },
  );
  return [revertCode, revertMessage, revertData];
}

const errorEnvelope = check(
  {
    id: 'rpc.envelope.error-response',
    statements: ['4.2.1', '7.2'],
    level: 'required',
    needs: ['rpc'],
    title: 'a revert error is a JSON-RPC response: jsonrpc, the id, code and message',
  },
  async (ctx) => {
    const id = 4242;
    const answer = await revertingEstimate(ctx, id);
    // A body that is not a JSON object, or the wrong id on every answer, is the envelope checks' failure (4.2): blocked by them.
    rpcBody(answer, 'the answer to a reverting eth_estimateGas');
    expectSameId(answer, 'the error answer to a reverting eth_estimateGas');
    expectSchema('jsonrpcResponse', answer.json ?? answer.jsonError, 'the answer to a reverting eth_estimateGas');
    if (!answer.hasError) skip('the reverting eth_estimateGas was answered with a result, not an error (judged by rpc.estimateGas.revert.code)');
    expectIdEcho(answer, id, 'the error answer to a reverting eth_estimateGas');
  },
);

export const revertChecks: Check[] = [...REVERT_AT.flatMap(revertChecksAt), errorEnvelope];
