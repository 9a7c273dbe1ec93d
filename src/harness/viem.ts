// viem, loaded where first used: a run whose checks use none of it (--only rest) does not pay for
// it. Loading the package takes about a third of a second of CPU and 20 MiB at start-up.
import type * as Viem from 'viem';
import type * as Accounts from 'viem/accounts';

let main: typeof Viem | undefined;
let accounts: typeof Accounts | undefined;

/** The `viem` package, loaded on the first call. */
export const viem = (): typeof Viem => (main ??= require('viem') as typeof Viem);

/** `viem/accounts`, loaded on the first call. */
export const viemAccounts = (): typeof Accounts => (accounts ??= require('viem/accounts') as typeof Accounts);
