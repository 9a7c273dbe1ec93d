// The fault catalogue (./catalogue.ts, ./records/): the JSON-RPC records that send no transaction, on the replay
// tier (the reference held still, its answers recorded once and replayed, run four at a time),
// each against a loopback proxy. The harness is ./judge.ts.
import { judgeShard } from './judge';

judgeShard('replay');
