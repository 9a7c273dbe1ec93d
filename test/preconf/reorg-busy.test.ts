// ok.preconf-flashblock-reorg (./reorg-run.ts) with one core kept busy (a CI runner with another
// job on it). In the busy-core tier (jest.config.ts), beside nothing else; the quiet runs are in
// reorg.test.ts.
import { withBusyCore } from '../support/busy-core';
import { expectReorgPasses, reorgReference } from './reorg-run';

const ref = reorgReference();

it('ok.preconf-flashblock-reorg passes at --samples 30: transactions withdrawn ~400 ms after showing, re-included after the next seal (one core busy)', async () => {
  await expectReorgPasses(ref(), true, withBusyCore);
}, 150_000);
