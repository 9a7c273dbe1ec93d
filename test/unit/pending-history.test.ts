// The fleet model's trailing backend (test/faults/catalogue-preconf.ts) must trail by the lag it
// is given, not by however long ago a read last happened: a conformant fleet 400 ms apart that
// sometimes served state 1.5 s old would fail for the model's fault, not the suite's.
import { PendingHistory, trailingBackend } from '../faults/catalogue-preconf';
import type { Envelope, RpcCall, RpcContext } from '../faults/proxy';

const call: RpcCall = { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionCount', params: ['0x0000000000000000000000000000000000000001', 'pending'] };
const answer = (result: string): Envelope => ({ jsonrpc: '2.0', id: 1, result });

describe('PendingHistory.asOf: what the node answered lagMs ago', () => {
  it('serves the answer given lagMs ago when one was given then (up to 100 ms before)', () => {
    const h = new PendingHistory();
    h.record(call, answer('0x1'), 1000);
    h.record(call, answer('0x2'), 1500);
    expect(h.asOf(call, 400, 1450)?.result).toBe('0x1'); // by = 1050: 0x1 given at 1000
    expect(h.asOf(call, 400, 1950)?.result).toBe('0x2'); // by = 1550: 0x2 given at 1500
  });

  it('never serves an answer older than lag + 100 ms: the next newer one instead (trailing by less)', () => {
    const h = new PendingHistory();
    h.record(call, answer('0x1'), 0);
    h.record(call, answer('0x2'), 1500);
    // by = 1200: 0x1 is 1200 ms older than that (the state may have changed at any time since).
    expect(h.asOf(call, 400, 1600)?.result).toBe('0x2');
  });

  it('answers as now (undefined) when nothing was recorded within the lag and none since', () => {
    const h = new PendingHistory();
    h.record(call, answer('0x1'), 0);
    expect(h.asOf(call, 400, 1000)).toBeUndefined();
    expect(new PendingHistory().asOf(call, 400, 1000)).toBeUndefined();
  });
});

describe('trailingBackend: what the node answered lagMs before the call was asked', () => {
  it('however late its own answer comes back (a loaded runner): never the answer of now for want of newer history', async () => {
    const h = new PendingHistory();
    const asked = performance.now();
    h.record(call, answer('0x1'), asked - 450);
    // The node's own answer to this call comes back 600 ms later; no other answer was recorded meanwhile.
    const slow = () => new Promise<Envelope>((resolve) => setTimeout(() => resolve(answer('0x3')), 600));
    const res = (await trailingBackend(400, h)(call, slow, {} as RpcContext)) as Envelope;
    expect(res.result).toBe('0x1');
    expect(h.staleServed).toBe(1);
  });
});
