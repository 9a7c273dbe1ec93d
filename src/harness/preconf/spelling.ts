// Whether the pending count depends on how the signer's address is spelled (EIP-55 checksummed or
// lowercase): an address names one account whatever the case of its letters, so the two must
// give one count (spec 4.5). Each round asks both at once, but two answers of one round may come
// from two backends trailing one another by a refresh or two, or straddle a refresh: one
// disagreement says nothing about the spelling. Only reads that can separate the two causes are
// evidence: repeated rounds in which one spelling consistently shows a lower count than the other,
// never the other's, with no round agreeing after the first disagreement, over more than the
// skew bound (SKEW_BOUND_MS). A spelling that gave both values clears it.
import { SKEW_BOUND_MS, SPELLING_MIN_READS } from './timing';

export type Spelling = 'checksummed' | 'lowercase';

/** One round's two pending counts, `atMs` from the first send to the round's start. */
export interface SpellingRead {
  atMs: number;
  checksummed: bigint;
  lowercase: bigint;
}

export type SpellingWeight =
  /** The spellings never disagreed. */
  | { kind: 'agree' }
  /** They disagreed, but later rounds agreed, or the lower spelling also gave the higher count: skew, not spelling. */
  | { kind: 'cleared'; apart: number }
  /** They disagreed consistently, but too briefly or too few times to tell the spelling from skew. */
  | { kind: 'ambiguous'; apart: number; spanMs: number }
  /** The evidence: `lower` gave the lower count in every one of `apart` rounds over `spanMs`. */
  | { kind: 'disagree'; lower: Spelling; apart: SpellingRead[]; spanMs: number; rounds: number };

const lowerOf = (r: SpellingRead): Spelling => (r.checksummed < r.lowercase ? 'checksummed' : 'lowercase');
const valueOf = (r: SpellingRead, s: Spelling): bigint => (s === 'checksummed' ? r.checksummed : r.lowercase);

/** Weighs the rounds (pre-seal, in order) of one attempt. */
export function weighSpellings(reads: readonly SpellingRead[]): SpellingWeight {
  const apart = reads.filter((r) => r.checksummed !== r.lowercase);
  if (apart.length === 0) return { kind: 'agree' };
  const lower = lowerOf(apart[0]);
  const higher: Spelling = lower === 'checksummed' ? 'lowercase' : 'checksummed';
  const from = reads.indexOf(apart[0]);
  const agreedAfter = reads.slice(from).some((r) => r.checksummed === r.lowercase);
  const sameWay = apart.every((r) => lowerOf(r) === lower);
  // The lower spelling, in any round, showing a count the higher one showed when they were apart: it gave both values.
  const highs = new Set(apart.map((r) => valueOf(r, higher)));
  const gaveBoth = reads.some((r) => highs.has(valueOf(r, lower)));
  if (agreedAfter || !sameWay || gaveBoth) return { kind: 'cleared', apart: apart.length };
  const spanMs = Math.round(apart[apart.length - 1].atMs - apart[0].atMs);
  if (apart.length >= SPELLING_MIN_READS && spanMs > SKEW_BOUND_MS) return { kind: 'disagree', lower, apart: [...apart], spanMs, rounds: reads.length };
  return { kind: 'ambiguous', apart: apart.length, spanMs };
}
