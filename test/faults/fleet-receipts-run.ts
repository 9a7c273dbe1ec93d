// The fleet of fleet.ok.pending-receipts-backends-400ms-apart: rpc.getBlockReceipts.block.pending
// behind a load balancer whose two good backends are 400 ms apart (the whole pre-confirmed view
// trails: the pending block too), on a chain with another sender every 400 ms. The pending block
// may come from one backend and the receipts from the other, which disagree on the newest
// transactions (across a seal too: the new block's receipts from the backend ahead, the block read
// after them from the one behind). fleet-receipts.test.ts judges it on a quiet machine, and
// fleet-receipts-busy.test.ts with one core kept busy, in the busy-core tier (jest.config.ts).
import type { RunDocument } from '../../src/verdict/document';
import type { ReferenceTarget } from '../../src/reference';
import { fileReference } from '../support/file-reference';
import { startFleet, type Backend } from './fleet';
import { PendingHistory, recordingBackend, trailingBackend } from './catalogue-preconf';
import { Raw, type Envelope, type RpcCall, type RpcContext, type RpcMutation } from './proxy';
import { judgeTarget } from '../support/preconf-run';
import { startSelfTransfers } from '../support/traffic';

export const CHECK = 'rpc.getBlockReceipts.block.pending';
/** Another sender: anvil's second dev account (unlocked), a 0-value self-transfer every 400 ms, straight to the reference. */
const OTHER_SENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SEND_EVERY_MS = 400;

/** A reference for the test file (started before its tests, stopped after) with the other sender's traffic, blocks of 2 s. */
export function receiptsReference(): () => ReferenceTarget {
  // Blocks of 2 s in 200 ms flashblocks (an OP-stack chain's).
  const ref = fileReference({ blockTimeMs: 2000 });
  let traffic: NodeJS.Timeout | undefined;
  beforeAll(() => {
    traffic = startSelfTransfers(ref().rpcUrl, OTHER_SENDER, SEND_EVERY_MS);
  });
  afterAll(() => clearInterval(traffic));
  return ref;
}

/** The views the check reads at "pending", as it asks them. */
const VIEWS: Array<[string, RpcCall['params']]> = [
  ['eth_getBlockReceipts', ['pending']],
  ['eth_getBlockByNumber', ['pending', false]],
];

/**
 * Two backends, the second's whole pre-confirmed view (the pending block included) 400 ms behind
 * the first's; `fault` rewrites what the node answers both. The check reads each view a few times
 * a sample, too sparsely for the fleet's history to hold what the node answered 400 ms before, so
 * the node's views are also recorded every 50 ms (a backend is fed by the sequencer whoever asks).
 */
export function apart(ref: ReferenceTarget, fault?: RpcMutation): { backends: Backend[]; history: PendingHistory; stop: () => void } {
  const history = new PendingHistory({ pendingBlock: true });
  const over = (m: RpcMutation): RpcMutation => (fault ? (call, next, ctx) => m(call, (c) => fault(c ?? call, next, ctx) as Promise<Envelope | Raw>, ctx) : m);
  // What the node answers now: the reference's answer, rewritten by `fault` (it needs no request context).
  const ask = async (c: RpcCall): Promise<Envelope | Raw> => {
    const r = await fetch(ref.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(c),
      signal: AbortSignal.timeout(5000),
    });
    return (await r.json()) as Envelope;
  };
  // One read of each view at a time: on a loaded runner a read takes longer than 50 ms, and reads
  // piling up behind the reference's lock (each pending-receipts read takes it) slowed the judged
  // reads past their 10 s timeout (26 of 30 samples "no answer" at load average 14).
  const inFlight = new Set<string>();
  const follow = setInterval(() => {
    for (const [method, params] of VIEWS) {
      if (inFlight.has(method)) continue;
      inFlight.add(method);
      const call: RpcCall = { jsonrpc: '2.0', id: 1, method, params };
      const askedAt = performance.now();
      void (fault ? fault(call, (c) => ask(c ?? call), {} as RpcContext) : ask(call))
        .then(
          (res) => (res instanceof Raw || !('result' in res) ? undefined : history.record(call, res as Envelope, askedAt)),
          () => undefined,
        )
        .finally(() => inFlight.delete(method));
    }
  }, 50);
  return {
    backends: [{ rpc: over(recordingBackend(history)) }, { rpc: over(trailingBackend(400, history)) }],
    history,
    stop: () => clearInterval(follow),
  };
}

export async function judge(ref: ReferenceTarget, backends: Backend[], samples: string): Promise<{ exitCode: number; doc: RunDocument; routed: number[] }> {
  const fleet = await startFleet(ref, backends, 'request');
  // Thirty samples at once through a balancer, two proxies and the reference, on a loaded runner:
  // a generous per-request timeout, so that the runner's delays are not read as a target not answering.
  const run = await judgeTarget(fleet, ['--only', 'rpc', '--grep', `^${CHECK.replace(/\./g, '\\.')}$`, '--samples', samples], 60_000, 10_000);
  return { exitCode: run.exitCode, doc: run.doc, routed: [...fleet.routed] };
}

export const line = (c: RunDocument['checks'][number]) => `${c.id}: ${c.status} ${c.reason}`;

/** The conformant fleet passes the check at --samples `samples`; `around` runs the judging (e.g. with a core kept busy). */
export async function expectApartFleetPasses(
  ref: ReferenceTarget,
  samples: string,
  around: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
): Promise<void> {
  const fleet = apart(ref);
  const { exitCode, doc, routed } = await around(() => judge(ref, fleet.backends, samples)).finally(fleet.stop);
  const c = doc.checks.find((x) => x.id === CHECK)!;
  if (c.status !== 'passed') process.stdout.write(`${JSON.stringify({ samples, check: line(c).slice(0, 300), notes: c.notes })}\n`);
  expect(routed.every((n) => n > 0)).toBe(true);
  expect({ exitCode, check: line(c), notes: c.notes }).toMatchObject({ exitCode: 0, check: `${CHECK}: passed ` });
  // Thirty samples met the skew: the trailing backend answered what the node had answered 400 ms
  // before, not what it answered then (one sample may fall where nothing changed for 400 ms).
  if (samples !== '1') expect(fleet.history.staleServed).toBeGreaterThan(0);
}
