// Constants shared by the library and the command line (kept free of heavy imports so a bad
// flag is reported without loading viem).
export const CHAIN_ID = 31337;
/** anvil's first dev account: funded, unlocked, and the owner of every contract. */
export const SIGNER_KEY: `0x${string}` = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** The address of SIGNER_KEY (a test checks it); deriving it costs ~100 ms of start-up. */
export const SIGNER_ADDRESS: `0x${string}` = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** Base's block time. */
export const DEFAULT_BLOCK_TIME_MS = 2000;
/** Base's flashblock interval: ten flashblocks per 2 s block. */
export const DEFAULT_FLASHBLOCK_MS = 200;
/** The block hash a Flashblocks node gives what is pre-confirmed but not yet sealed. */
export const ZERO_HASH: `0x${string}` = `0x${'0'.repeat(64)}`;
