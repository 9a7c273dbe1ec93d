// rpc.getBlockReceipts.block.pending behind a load balancer whose two good backends are 400 ms
// apart (./fleet-receipts-run.ts). Conformant: it passes at --samples 1, run after run (and at
// --samples 30 with one core busy in fleet-receipts-busy.test.ts, in the busy-core tier). The same
// fleet whose pending receipts leave out a transaction the pending block lists, on every backend,
// still fails.
import { Raw, type RpcMutation } from './proxy';
import { apart, CHECK, expectApartFleetPasses, judge, line, receiptsReference } from './fleet-receipts-run';

const ref = receiptsReference();

describe('fleet.ok.pending-receipts-backends-400ms-apart', () => {
  it.each(['run 1', 'run 2', 'run 3'])(
    'passes --samples 1, %s',
    async () => {
      await expectApartFleetPasses(ref(), '1');
    },
    90_000,
  );
});

/** Pending receipts without the receipt of the pending block's first transaction (a node that drops it from the list). */
const firstLeftOut: RpcMutation = async (call, next) => {
  const res = await next();
  if (call.method !== 'eth_getBlockReceipts' || call.params[0] !== 'pending' || res instanceof Raw || !Array.isArray(res.result)) return res;
  const block = await next({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByNumber', params: ['pending', false] });
  const first = block instanceof Raw ? undefined : (block.result as { transactions?: unknown[] } | null | undefined)?.transactions?.[0];
  return typeof first === 'string' ? { ...res, result: res.result.filter((r) => (r as { transactionHash?: string }).transactionHash !== first) } : res;
};

describe('fleet.pending-receipts-leave-one-out-400ms-apart', () => {
  it('fails rpc.getBlockReceipts.block.pending at --samples 30 on a transaction the pending block listed past the skew bound', async () => {
    const fleet = apart(ref(), firstLeftOut);
    const { exitCode, doc } = await judge(ref(), fleet.backends, '30').finally(fleet.stop);
    const c = doc.checks.find((x) => x.id === CHECK)!;
    expect({ exitCode, check: line(c) }).toMatchObject({
      exitCode: 1,
      check: expect.stringMatching(/: failed .*no receipt for 1 transaction\(s\) of the block/),
    });
    expect(c.violated).toContain('4.3.1');
  }, 90_000);
});
