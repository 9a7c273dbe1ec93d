// fleet.ok.preconf-backends-400ms-apart (./fleet-preconf-run.ts) with one core kept busy (a CI
// runner with another job on it): the runner's own delays must never turn skew into a failure.
// In the busy-core tier (jest.config.ts), beside nothing else; the quiet runs are in
// fleet-preconf.test.ts.
import { withBusyCore } from '../support/busy-core';
import { expectSkewedFleetPasses, fleetReference } from './fleet-preconf-run';

const ref = fleetReference();

it('fleet.ok.preconf-backends-400ms-apart passes at --samples 30, every pre-confirmation check judged (one core busy)', async () => {
  await expectSkewedFleetPasses(ref(), withBusyCore);
}, 90_000);
