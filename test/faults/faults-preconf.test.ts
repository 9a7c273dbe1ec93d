// The fault catalogue (./catalogue.ts, ./records/): the variants judged by the pre-confirmation pass (they send transactions),
// each against a loopback proxy of one reference target. The harness is ./judge.ts.
import { judgeShard } from './judge';

judgeShard('preconf');
