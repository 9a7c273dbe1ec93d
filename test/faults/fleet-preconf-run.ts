// The fleet of fleet.ok.preconf-backends-400ms-apart, judged at --samples 30 (what --certify
// uses): Flashblocks backends whose pre-confirmed views are 400 ms apart, behind a per-request
// balancer, a conformant fleet; fleet-preconf.test.ts runs it quiet and with one core kept busy.
import type { RunDocument } from '../../src/verdict/document';
import type { ReferenceTarget } from '../../src/reference';
import { fileReference } from '../support/file-reference';
import { startFleet, type Backend } from './fleet';
import { PendingHistory, recordingBackend, trailingBackend } from './catalogue-preconf';
import { judgePreconf, PRECONF_CHECKS } from '../support/preconf-run';

/** A reference for the test file (started before its tests, stopped after), blocks of 2 s. */
export function fleetReference(): () => ReferenceTarget {
  // Blocks of 2 s (an OP-stack chain's): after the first sighting, a second of later reads before the seal.
  return fileReference({ blockTimeMs: 2000 });
}

/** The fleet of `backends` in front of `ref`, judged on pre-confirmed state at --samples 30. */
export async function judgeFleet(ref: ReferenceTarget, backends: Backend[]): Promise<{ exitCode: number; doc: RunDocument; routed: number[] }> {
  const fleet = await startFleet(ref, backends, 'request');
  const run = await judgePreconf(fleet, ref.signerKey, { samples: '30', deadlineMs: 60_000 });
  return { ...run, routed: [...fleet.routed] };
}

export const line = (c: RunDocument['checks'][number]) => `${c.id}: ${c.status} ${c.reason}`;

/**
 * fleet.ok.preconf-backends-400ms-apart passes, every pre-confirmation check judged: old and new
 * state alternate across reads for a few hundred ms after each send, which is skew, never a
 * failure. `around` runs the judging (e.g. with a core kept busy).
 */
export async function expectSkewedFleetPasses(ref: ReferenceTarget, around: <T>(work: () => Promise<T>) => Promise<T> = (work) => work()): Promise<void> {
  const history = new PendingHistory();
  const backends = [{ rpc: recordingBackend(history) }, { rpc: trailingBackend(400, history) }];
  const { exitCode, doc, routed } = await around(() => judgeFleet(ref, backends));
  expect(routed.every((n) => n > 0)).toBe(true);
  expect(doc.sampling).toMatchObject({ n: 30 });
  const judged = doc.checks.filter((c) => PRECONF_CHECKS.test(c.id));
  expect(judged).toHaveLength(4);
  expect({ exitCode, notPassed: judged.filter((c) => c.status !== 'passed').map(line) }).toEqual({ exitCode: 0, notPassed: [] });
  // The skew was met: the trailing backend answered old state while the other had the new.
  expect(history.staleServed).toBeGreaterThan(0);
}
