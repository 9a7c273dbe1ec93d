// The senders of the pre-confirmed block and their highest nonce, as the pending-count rule of
// rpc.getTransactionCount.pending-ge-latest reads them (suites/rpc/pending-count.ts).
import { EVIDENCE_READS, PRECONF_SKEW_MS, preconfirmedNonces } from '../../suites/rpc/pending-count';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('preconfirmedNonces', () => {
  it("keeps each sender's highest nonce, whatever the address's case", () => {
    const block = {
      transactions: [
        { from: A, nonce: '0x5' },
        { from: A.toLowerCase(), nonce: '0x7' },
        { from: B, nonce: '0x0' },
      ],
    };
    expect(preconfirmedNonces(block)).toEqual(
      new Map([
        [A.toLowerCase(), 7n],
        [B.toLowerCase(), 0n],
      ]),
    );
  });

  it('leaves out deposits (type 0x7e), hashes only, and anything without a sender or a hex nonce', () => {
    const block = {
      transactions: [
        { from: A, nonce: '0x9', type: '0x7e' },
        '0x' + 'ab'.repeat(32),
        { from: 'not an address', nonce: '0x1' },
        { from: B, nonce: 3 },
        { from: B },
      ],
    };
    expect(preconfirmedNonces(block).size).toBe(0);
    expect(preconfirmedNonces(null).size).toBe(0);
    expect(preconfirmedNonces({ transactions: 'x' }).size).toBe(0);
  });

  it('tolerates backends about 400 ms apart, and needs more than one odd answer', () => {
    expect(PRECONF_SKEW_MS).toBeGreaterThan(400);
    expect(EVIDENCE_READS).toBeGreaterThanOrEqual(2);
  });
});
