// fleet.ok.preconf-backends-400ms-apart (./fleet-preconf-run.ts): Flashblocks backends whose
// pre-confirmed views are 400 ms apart, behind a per-request balancer, judged at --samples 30 (what
// --certify uses), twice, in the main tier beside the other workers' load: a CI runner's. The run
// with one core kept busy and the faulty fleets are in fleet-preconf.test.ts (the busy-core tier).
import { expectSkewedFleetPasses, fleetReference } from './fleet-preconf-run';

const ref = fleetReference();

describe('fleet.ok.preconf-backends-400ms-apart', () => {
  it.each(['run 1', 'run 2'])(
    'passes at --samples 30, every pre-confirmation check judged (%s)',
    async () => {
      await expectSkewedFleetPasses(ref());
    },
    90_000,
  );
});
