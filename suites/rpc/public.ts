/**
 * Spec 5.2: the public node addresses accept the calls (without credentials shown), except
 * eth_getBlockReceipts, refused with HTTP 403 (checked in get-block-receipts.ts). One check
 * per other method: a valid call is served with a JSON-RPC result, not refused.
 *
 * The calls are sent without the run's configured headers, so "without credentials" holds
 * even when --rpc-header carries a provider token.
 */
import { check, type Check } from '../../src/harness/check';
import { blocked, fail, inconclusive } from '../../src/harness/verdict';
import { isInsufficientFunds } from '../../src/harness/evm';
import { show } from '../../src/harness/json';
import { randomAddress } from '../../src/harness/hex';
import { transfer } from './estimate-gas';

/**
 * `unfunded`: the call again when the node refused the suite's unfunded random sender for want of
 * funds (a node charging a gas price even without fee fields, Tevm): that is the method served,
 * refusing a sender the suite chose, not the address refusing the call. Estimated without `from`
 * (the node picks a sender of its own); refused so too, it is not judged, as in estimate-gas.ts.
 */
const CALLS: { id: string; method: string; params: () => unknown[]; unfunded?: () => unknown[] }[] = [
  { id: 'rpc.public.accepts.getTransactionCount', method: 'eth_getTransactionCount', params: () => [randomAddress(), 'latest'] },
  { id: 'rpc.public.accepts.getCode', method: 'eth_getCode', params: () => [randomAddress(), 'latest'] },
  {
    id: 'rpc.public.accepts.estimateGas',
    method: 'eth_estimateGas',
    params: () => [transfer()],
    unfunded: () => [transfer(false)],
  },
];

function accepts(c: (typeof CALLS)[number]): Check {
  return check(
    {
      id: c.id,
      statements: ['5.2.1'],
      level: 'required',
      needs: ['rpc', 'profile:public'],
      title: `a public node address serves ${c.method} without credentials`,
    },
    async (ctx) => {
      let answer = await ctx.rpc.call(c.method, c.params(), undefined, { omitConfiguredHeaders: true });
      if (c.unfunded && answer.http.status === 200 && isInsufficientFunds(answer.error)) {
        ctx.note(`an unfunded random sender was refused for want of funds (${show(answer.error)}): asked again without "from"`);
        answer = await ctx.rpc.call(c.method, c.unfunded(), undefined, { omitConfiguredHeaders: true });
        if (answer.http.status === 200 && isInsufficientFunds(answer.error))
          inconclusive(
            `${c.method} was refused for want of funds, from an unfunded random sender and without "from" (${show(answer.error)}): the method is served, but no result could be had from a sender it accepts (not a refusal of 5.2)`,
          );
      }
      // Credentials demanded of every call are one refusal, stated once by the first of these checks.
      if ((answer.http.status === 401 || answer.http.status === 403) && c.id !== CALLS[0].id)
        blocked(CALLS[0].id, `public node address demanded credentials for ${c.method}: HTTP ${answer.http.status}`, {
          violated: ['5.2.1'],
          expected: `HTTP 200 with a ${c.method} result`,
          actual: `HTTP ${answer.http.status}`,
        });
      if (answer.http.status !== 200 || !answer.hasResult) {
        fail(
          `public node address refused ${c.method}: HTTP ${answer.http.status}, ${show(answer.json ?? answer.http.text)}; 5.2 refuses only eth_getBlockReceipts there`,
          {
            expected: `HTTP 200 with a ${c.method} result`,
            actual: answer.json ?? `HTTP ${answer.http.status}`,
          },
        );
      }
    },
  );
}

export const publicChecks: Check[] = CALLS.map(accepts);
