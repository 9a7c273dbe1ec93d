// The fault catalogue (./catalogue.ts, ./records/): the JSON-RPC variants that send no transaction,
// each against a loopback proxy of one reference target. The harness is ./judge.ts.
import { judgeShard } from './judge';

judgeShard('rpc');
