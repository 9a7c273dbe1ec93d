import type { Check } from '../../src/harness/check';
import { envelopeChecks } from './envelope';
import { estimateGasChecks } from './estimate-gas';
import { errorChecks } from './errors';
import { receiptsChecks } from './get-block-receipts';
import { codeChecks } from './get-code';
import { pendingCodeChecks } from './pending-code';
import { transactionCountChecks } from './get-transaction-count';
import { historyChecks } from './history';
import { publicChecks } from './public';
import { revertChecks } from './revert';

/** The read-only JSON-RPC checks (spec 1.4, 4.2-4.6, 5.2, 7), history at past blocks included. */
export const checks: Check[] = [
  ...envelopeChecks,
  ...transactionCountChecks,
  ...codeChecks,
  ...pendingCodeChecks,
  ...receiptsChecks,
  ...historyChecks,
  ...publicChecks,
  ...estimateGasChecks,
  ...revertChecks,
  ...errorChecks,
];
