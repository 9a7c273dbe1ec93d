// Flashblock reorgs, judged at --samples 30 (what --certify uses). A Flashblocks node that detects
// a reorg withdraws its pre-confirmed transactions and recomputes the pending flashblocks: here
// the signer's transactions are withdrawn about 400 ms after they show and re-included after the
// next seal (the reference's own reorg, src/reference/preconf.ts withdraw). Every view of the node
// agrees the whole time, its pending block included: that is conformant. (A view gone back to the
// old state while the pending block still lists the transactions still fails: the unit tests of
// judgeLater and the fleets with a backend whose Flashblocks are off.)
//
// Shared by reorg.test.ts (twice) and reorg-busy.test.ts (once with one core kept busy, in the
// serial busy-core tier of its own, jest.config.ts).
import { privateKeyToAccount } from 'viem/accounts';
import type { RunDocument } from '../../src/verdict/document';
import type { ReferenceTarget } from '../../src/reference';
import { fileReference } from '../support/file-reference';
import { startProxy, type RpcMutation } from '../faults/proxy';
import { judgePreconf, PRECONF_CHECKS } from '../support/preconf-run';

/** From a send to the withdrawal: a flashblock for the transaction to show, then about 400 ms. */
const WITHDRAW_AFTER_SEND_MS = 200 + 400;

/** A reference for the test file (started before its tests, stopped after), blocks of 2 s. */
export function reorgReference(): () => ReferenceTarget {
  // Blocks of 2 s (an OP-stack chain's): a second of later reads after the withdrawal.
  return fileReference({ blockTimeMs: 2000 });
}

/**
 * When the withdrawal comes. 'mid-block': WITHDRAW_AFTER_SEND_MS after the last send of a burst
 * (a flashblock reorg detected inside the block). 'at-seal': just before the seal the transactions
 * were due in (at least SHOW_BEFORE_SEAL_MS after the burst, time for them to show), so that block
 * is sealed without them and they are pre-confirmed again in the next: what base/base does when
 * the sealed block differs from its flashblocks (crates/execution/flashblocks processor.rs,
 * process_canonical_block: ReorgDetector, then CatchUp or HandleReorg; "pending" falls back to
 * "latest" until the next block's flashblocks carry them).
 */
export type ReorgTiming = 'mid-block' | 'at-seal';
const SHOW_BEFORE_SEAL_MS = 400;
const BEFORE_SEAL_MS = 40;

function withdrawDelay(ref: ReferenceTarget, timing: ReorgTiming): number {
  if (timing === 'mid-block') return WITHDRAW_AFTER_SEND_MS;
  const now = Date.now();
  const { atMs, everyMs } = ref.sealGrid;
  let seal = atMs + Math.ceil((now - atMs) / everyMs) * everyMs;
  if (seal - now < SHOW_BEFORE_SEAL_MS + BEFORE_SEAL_MS) seal += everyMs;
  return seal - BEFORE_SEAL_MS - now;
}

/** Withdraws the signer's pre-confirmed transactions after its last send of a burst, as `timing` says. */
function reorgAfterSends(ref: ReferenceTarget, counts: { reorgs: number; withdrawn: number }, timing: ReorgTiming): RpcMutation {
  const signer = privateKeyToAccount(ref.signerKey).address;
  let timer: NodeJS.Timeout | undefined;
  return async (call, next) => {
    if (call.method === 'eth_sendRawTransaction') {
      clearTimeout(timer);
      timer = setTimeout(
        () => {
          void ref.controls.reorg(signer).then((n) => {
            counts.reorgs += n > 0 ? 1 : 0;
            counts.withdrawn += n;
          });
        },
        withdrawDelay(ref, timing),
      );
    }
    return next();
  };
}

const line = (c: RunDocument['checks'][number]) => `${c.id}: ${c.status} ${c.reason}`;

/**
 * ok.preconf-flashblock-reorg passes at --samples 30: transactions withdrawn while pre-confirmed
 * (`timing`), re-included after the next seal. `around` runs the judging (e.g. with a core kept busy).
 */
export async function expectReorgPasses(
  ref: ReferenceTarget,
  busy = false,
  around: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  timing: ReorgTiming = 'mid-block',
): Promise<void> {
  const counts = { reorgs: 0, withdrawn: 0 };
  const { exitCode, doc } = await around(async () => {
    const proxy = await startProxy({ restUpstream: ref.baseUrl, rpcUpstream: ref.rpcUrl, rpc: reorgAfterSends(ref, counts, timing) });
    return judgePreconf(proxy, ref.signerKey, { samples: '30', deadlineMs: 90_000 });
  });
  const judged = doc.checks.filter((c) => PRECONF_CHECKS.test(c.id));
  process.stdout.write(
    `${JSON.stringify({ variant: 'ok.preconf-flashblock-reorg', timing, busy, exitCode, counts, statuses: judged.map((c) => `${c.id}: ${c.status}`) })}\n`,
  );
  // The reorg happened: transactions were withdrawn while pre-confirmed.
  expect(counts.withdrawn).toBeGreaterThan(0);
  expect(judged).toHaveLength(4);
  expect({ exitCode, notPassed: judged.filter((c) => c.status !== 'passed').map(line) }).toEqual({ exitCode: 0, notPassed: [] });
}
