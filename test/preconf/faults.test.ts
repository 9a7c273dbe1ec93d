// Against a target that answers "pending" from "latest" for one method, the check of that
// method fails (and is not merely inconclusive).
import { startReference, type ReferenceTarget } from '../../src/reference';
import { checks } from '../../suites/preconf';
import { describeResults, runPreconf } from './helpers';
import { startRpcProxy } from './proxy';

jest.setTimeout(60_000);

let ref: ReferenceTarget;

beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
});
afterAll(async () => {
  await ref?.stop();
});

it.each([
  ['eth_getTransactionCount', 'preconf.nonce.back-to-back'],
  ['eth_getCode', 'preconf.code.deployment-visible'],
  ['eth_getBlockReceipts', 'preconf.receipts.pending-block'],
  ['eth_estimateGas', 'preconf.estimate.depends-on-preconfirmed'],
])('%s answering "pending" from "latest" fails %s', async (method, id) => {
  const proxy = await startRpcProxy(ref.rpcUrl, { pendingAsLatest: method });
  try {
    const [result] = await runPreconf(checks.filter((c) => c.id === id), proxy.url, ref.signerKey);
    expect(describeResults([result])).toMatch(new RegExp(`^${id.replace(/\./g, '\\.')}: failed \\(.*"pending".*no block was sealed`));
    expect(proxy.stats.rewritten).toBeGreaterThan(0);
    // Failure details go to results.json as they are.
    expect(() => JSON.stringify(result)).not.toThrow();
    expect(result.actual).toBeDefined();
  } finally {
    await proxy.close();
  }
});
