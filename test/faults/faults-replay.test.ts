// The fault catalogue (./catalogue.ts, ./records/): the JSON-RPC variants that send no transaction
// and need no seal (records, and code rewriting answers or the transport), on the replay tier (the
// reference held still, its answers recorded once and replayed, run two at a time), each against a
// loopback proxy. The harness is ./judge.ts.
import { judgeShard } from './judge';

judgeShard('replay');
