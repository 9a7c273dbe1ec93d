// The fault catalogue (./catalogue.ts, ./records/): the JSON-RPC variants that send no transaction
// but need seals (marked live: other senders' transactions judged across seals, a backend a block
// behind), on a chain sealing every 2 s with traffic, each against a loopback proxy of one
// reference target. The harness is ./judge.ts.
import { judgeShard } from './judge';

judgeShard('rpc');
