// A miss in words says what the timeline shows, whatever it holds: a send answered after the
// seal's last unsealed read (a retried send), a single look, no look at all.
import { describeMiss, type MissRecord } from '../../src/harness/preconf/evidence';

const record = (miss: Partial<MissRecord['miss']>, last?: unknown): MissRecord => ({
  attempt: 2,
  nonce: 7n,
  sealedIn: 0x2an,
  miss: { marginMs: 900, maxGapMs: 60, looks: 12, lastLook: 40, lastLookMs: 920, counts: true, ...miss },
  last,
});

describe('describeMiss', () => {
  it('states the margin and the looks as measured', () => {
    expect(describeMiss('nonce', record({}, { pending: '0x7' }))).toBe(
      'attempt 2: nonce 7 accepted 900 ms or more before block 0x2a sealed it, never pre-confirmed in 12 looks with eth_getTransactionCount at most 60 ms apart (last look before the seal, begun 920 ms after its acceptance: {"pending":"0x7"})',
    );
  });

  it('never writes a negative margin, "no look apart" or an undefined last look', () => {
    const words = describeMiss('code', record({ marginMs: -3878, maxGapMs: Infinity, looks: 0, counts: false }));
    expect(words).toBe(
      'attempt 2: nonce 7 accepted only 3878 ms after the last read that still saw block 0x2a unsealed had started (it may have been sealed before its send was answered), with no look at "pending" with eth_getCode between its acceptance and the seal',
    );
    expect(words).not.toMatch(/-\d|no look apart|undefined/);
  });

  it('says "the one look" for a single look', () => {
    expect(describeMiss('estimate', record({ looks: 1, maxGapMs: 140, counts: false }, '0x5208'))).toContain(
      'never pre-confirmed in the one look with eth_estimateGas, 140 ms before the last read that saw the block unsealed (that look: "0x5208")',
    );
  });
});
