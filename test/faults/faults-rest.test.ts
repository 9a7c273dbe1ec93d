// The fault catalogue (./catalogue.ts, ./records/): the REST variants (REST and cross checks; no signer, no timing: run four at a time),
// each against a loopback proxy of one reference target. The harness is ./judge.ts.
import { judgeShard } from './judge';

judgeShard('rest');
