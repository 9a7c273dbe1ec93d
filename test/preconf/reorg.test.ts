// ok.preconf-flashblock-reorg (./reorg-run.ts) twice; once more with one core kept busy in
// reorg-busy.test.ts, which runs in the busy-core tier, beside nothing else.
import { expectReorgPasses, reorgReference } from './reorg-run';

const ref = reorgReference();

describe('ok.preconf-flashblock-reorg', () => {
  it.each(['run 1', 'run 2'])(
    'passes at --samples 30: transactions withdrawn ~400 ms after showing, re-included after the next seal (%s)',
    async () => {
      await expectReorgPasses(ref());
    },
    150_000,
  );
});
