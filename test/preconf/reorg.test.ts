// ok.preconf-flashblock-reorg (./reorg-run.ts) twice: withdrawn mid-block, and withdrawn at the
// seal (the sealed block differs from the flashblocks, base/base's reorg); once more with one core
// kept busy in reorg-busy.test.ts, which runs in the busy-core tier, beside nothing else.
import { expectReorgPasses, reorgReference } from './reorg-run';

const ref = reorgReference();

describe('ok.preconf-flashblock-reorg', () => {
  it('passes at --samples 30: transactions withdrawn ~400 ms after showing, re-included after the next seal', async () => {
    await expectReorgPasses(ref());
  }, 150_000);

  it('passes at --samples 30: the block sealed without the pre-confirmed transactions, pre-confirmed again and sealed in the next', async () => {
    await expectReorgPasses(ref(), false, undefined, 'at-seal');
  }, 150_000);
});
