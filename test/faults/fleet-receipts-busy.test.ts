// fleet.ok.pending-receipts-backends-400ms-apart (./fleet-receipts-run.ts) at --samples 30 with one
// core kept busy. In the busy-core tier (jest.config.ts), beside nothing else; the runs at
// --samples 1 and the faulty fleet are in fleet-receipts.test.ts.
import { withBusyCore } from '../support/busy-core';
import { expectApartFleetPasses, receiptsReference } from './fleet-receipts-run';

const ref = receiptsReference();

it('fleet.ok.pending-receipts-backends-400ms-apart passes --samples 30, one core busy', async () => {
  await expectApartFleetPasses(ref(), '30', withBusyCore);
}, 90_000);
