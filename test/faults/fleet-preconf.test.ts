// Fleets of Flashblocks backends behind a per-request balancer, judged on pre-confirmed state
// at --samples 30 (what --certify uses). Backends whose pre-confirmed views are 400 ms apart are a
// conformant fleet (./fleet-preconf-run.ts), twice on a quiet machine and once with one core kept
// busy. A backend with Flashblocks off never shows the new state: that fleet still fails. The
// whole file runs in the busy-core tier (jest.config.ts), beside nothing else: the faulty fleets
// are caught on later reads past the skew bound, and beside another worker's load one of them
// (one backend of four) went uncaught (exit 0) in a CI run.
import type { Backend } from './fleet';
import { FlashblockTracker, newestFlashblockOnly, observingBackend, PRECONF_VARIANTS } from './catalogue-preconf';
import type { RpcCall, RpcMutation } from './proxy';
import { PRECONF_CHECKS } from '../support/preconf-run';
import { withBusyCore } from '../support/busy-core';
import { expectSkewedFleetPasses, fleetReference, judgeFleet, line } from './fleet-preconf-run';

const ref = fleetReference();
const judge = (backends: Backend[]) => judgeFleet(ref(), backends);

describe('fleet.ok.preconf-backends-400ms-apart', () => {
  // Twice on a quiet machine, once with one core kept busy (a CI runner with another job on it):
  // the runner's own delays must never turn skew into a failure.
  it.each([
    ['run 1', false],
    ['run 2', false],
    ['one core busy', true],
  ])(
    'passes at --samples 30, every pre-confirmation check judged (%s)',
    async (_, busy) => {
      await expectSkewedFleetPasses(ref(), busy ? withBusyCore : undefined);
    },
    90_000,
  );
});

/** Flashblocks off: "pending" state reads answered from "latest". */
const pendingFromLatest: RpcMutation = async (call: RpcCall, next) => {
  const i = ['eth_getTransactionCount', 'eth_getCode', 'eth_estimateGas'].includes(call.method) ? 1 : -1;
  if (i < 0 || call.params[i] !== 'pending') return next();
  const c: RpcCall = { ...call, params: [...call.params] };
  c.params[i] = 'latest';
  return next(c);
};

describe('fleet.preconf-one-of-three-flashblocks-off', () => {
  it('fails at --samples 30 on later reads past the skew bound, never blaming the spelling', async () => {
    // Three backends, so that a round's fixed count of reads meets the odd one at every position
    // (two, strictly alternating, could leave it the same reads every round, unlike a real balancer).
    const { exitCode, doc } = await judge([{}, { rpc: pendingFromLatest }, {}]);
    const failed = doc.checks.filter((c) => PRECONF_CHECKS.test(c.id) && c.status === 'failed' && c.level === 'required');
    expect({ exitCode, failed: failed.map(line) }).toMatchObject({ exitCode: 1 });
    expect(failed.some((c) => /later reads showed the old state more than 600 ms after/.test(c.reason))).toBe(true);
    for (const c of failed) expect(c.reason).not.toMatch(/spelling/);
  }, 90_000);
});

/** Flashblocks off altogether: every "pending" read of the four methods, and the pending block, answered from "latest". */
const flashblocksOff: RpcMutation = async (call: RpcCall, next) => {
  const i =
    call.method === 'eth_getBlockReceipts' || call.method === 'eth_getBlockByNumber'
      ? 0
      : ['eth_getTransactionCount', 'eth_getCode', 'eth_estimateGas'].includes(call.method)
        ? 1
        : -1;
  if (i < 0 || call.params[i] !== 'pending') return next();
  const c: RpcCall = { ...call, params: [...call.params] };
  c.params[i] = 'latest';
  return next(c);
};

describe('fleet.preconf-one-of-four-flashblocks-off', () => {
  it('fails at --samples 30 on later reads past the skew bound, the reason stating k of N', async () => {
    // Four backends: a round of a fixed number of reads no longer sends each view to the same
    // backends every round (the views are read in a new order each round).
    const { exitCode, doc } = await judge([{}, {}, { rpc: flashblocksOff }, {}]);
    const failed = doc.checks.filter((c) => PRECONF_CHECKS.test(c.id) && c.status === 'failed' && c.level === 'required');
    process.stdout.write(
      `${JSON.stringify({ variant: 'fleet.preconf-one-of-four-flashblocks-off', exitCode, failed: failed.map((c) => line(c).slice(0, 300)) })}\n`,
    );
    expect({ exitCode, failed: failed.map(line) }).toMatchObject({ exitCode: 1 });
    expect(failed.some((c) => /\d+ of \d+ later reads showed the old state more than 600 ms after/.test(c.reason))).toBe(true);
  }, 90_000);
});

/** The rewrite of a catalogue variant, as one backend of the fleet applies it. */
const backendOf = (name: string): Backend => ({ rpc: PRECONF_VARIANTS.find((v) => v.name === name)!.rpc });

/** Three backends, the middle one faulty: the estimate's default at "pending". */
const estimateFleet = (): Backend[] => [{}, backendOf('preconf.estimate-default-pending'), {}];
/** Three backends, the middle one answering the newest flashblock's receipts, as the fleet's answers show the flashblocks (a node knows them whoever asks). */
function newestFlashblockFleet(): Backend[] {
  const tracker = new FlashblockTracker();
  return [{ rpc: observingBackend(tracker) }, { rpc: newestFlashblockOnly(tracker) }, { rpc: observingBackend(tracker) }];
}

describe.each([
  ['preconf.estimate-default-pending', estimateFleet, 'preconf.estimate.depends-on-preconfirmed', '4.4.1', /with no block parameter answered/],
  [
    'preconf.pending-receipts-newest-flashblock',
    newestFlashblockFleet,
    'preconf.receipts.pending-block',
    '4.3.2',
    /held nonce \d+ .* but not nonce \d+ .*, lower nonces of the same sender/,
  ],
])('fleet.%s (one backend of three)', (_variant, fleet, id, statement, why) => {
  it(`fails ${id} at --samples 30, citing ${statement}`, async () => {
    // Three backends: a round's reads (a fixed count) then meet every backend at every position,
    // as under a real balancer, rather than the same read always reaching the same backend.
    const { exitCode, doc } = await judge(fleet());
    const c = doc.checks.find((x) => x.id === id)!;
    expect({ exitCode, check: line(c) }).toMatchObject({ exitCode: 1, check: expect.stringMatching(why) });
    expect(c.violated).toContain(statement);
  }, 90_000);
});
