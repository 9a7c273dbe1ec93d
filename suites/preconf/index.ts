import type { Check } from '../../src/harness/check';
import { codeDeploymentVisible } from './code';
import { estimateDependsOnPreconfirmed } from './estimate';
import { latencyAbout200ms } from './latency';
import { nonceBackToBack } from './nonce';
import { receiptsPendingBlock } from './receipts';

/**
 * Pre-confirmed state (spec 1.4 and the "pending" notes of 4.3-4.6). Every check sends its own
 * transactions (needs: signer), so they run one at a time in the runner's signer lane.
 */
export const checks: Check[] = [nonceBackToBack, codeDeploymentVisible, estimateDependsOnPreconfirmed, receiptsPendingBlock, latencyAbout200ms];
