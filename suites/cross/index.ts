import type { Check } from '../../src/harness/check';
import { codeChecks } from './code';
import { erc20Checks } from './erc20';

/** Checks that join the two interfaces: what the REST list says against what the chain holds. */
export const checks: Check[] = [...codeChecks, ...erc20Checks];
