/**
 * What an error answer to a read at a block says about that block, in the words of real clients:
 * pruned state or history (out of scope without --archive), or a block the node does not know
 * (yet): load-balancer skew near the head. chain.ts decides what each means where it was asked.
 */
import { isRecord } from './json';
import type { RpcAnswer } from './rpc';
import { isRevert } from './evm';

/**
 * Error texts of pruned state or history, from geth/op-geth ("missing trie node", "required
 * historical state unavailable", "historical state not available in path scheme yet"; a 1.16.4+
 * path-scheme archive: "state 0x… is not available" before its sync, "metadata is not found, N"
 * beyond its --history.state window), reth and providers ("state at block #N is pruned",
 * "pruned history unavailable"), Nethermind ("No state available for block …",
 * MissingTrieNodeException in `data`), Erigon ("old data not available due to pruning") and plan
 * limits ("... archive data ..."). Matched on message and data.
 */
const PRUNED_TEXT =
  /missing trie node|MissingTrieNode|\b(is|been|was) pruned|pruned (history|state|node|block)|historical state|state histor|\b(state|data) (is )?(not|no longer) available|no (historical )?state (available|found|data)|state not found|state already discarded|archiv|old data not available|lowest height|earliest available|^\s*state 0x[0-9a-f]+ is not available|^\s*metadata is not found/i;
/**
 * Error texts of a block the node does not know (yet): geth "header not found", reth "block not
 * found: 0x11", Nethermind "17 could not be found" (the block's number or hash, code -32001),
 * Erigon's eth_estimateGas "could not find the header 0x11 in cache or db", anvil
 * BlockOutOfRangeError, and others.
 */
const UNKNOWN_BLOCK_TEXT =
  /header not found|header for hash not found|unknown block|block not found|could not find (the )?(block|header)|block (#?\d+ )?(does not exist|not found)|^\s*(0x[0-9a-f]+|\d+) could not be found|BlockOutOfRange|block height is \d+ but requested|not yet available|beyond (the )?(current )?head|after last accepted block/i;

/**
 * What an error answer says about the block it was asked at, from its message and data. A revert
 * (isRevert) says nothing of it: the call ran against the state at the block, so the node has it,
 * whatever the contract's own reason says ("Sale not yet available", "price data not available").
 */
export function blockErrorKind(answer: Pick<RpcAnswer, 'error'>): 'pruned' | 'unknown-block' | undefined {
  const e = answer.error;
  if (!isRecord(e)) return undefined;
  if (isRevert(e)) return undefined;
  const text = `${typeof e.message === 'string' ? e.message : ''} ${typeof e.data === 'string' ? e.data : e.data === undefined ? '' : JSON.stringify(e.data)}`;
  if (PRUNED_TEXT.test(text)) return 'pruned';
  if (UNKNOWN_BLOCK_TEXT.test(text)) return 'unknown-block';
  return undefined;
}
