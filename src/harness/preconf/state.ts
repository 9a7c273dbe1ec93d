// The state one pass carries across its attempts: the session, the clock, what was measured
// (round trips, latency samples, the timeline), and the heads seen — from which the block
// interval, and whether the node stopped sealing, are read.
import { toQuantity } from '../hex';
import type { BlockView } from '../chain';
import { InterfaceDown } from '../down-mid-run';
import { TransportError } from '../http';
import { Stalled, Unobservable } from './errors';
import type { Afters, Behaviour, MissRecord, NonceContradiction, Outcome, Role, Stop, Timeline, Views } from './evidence';
import type { Session } from './session';
import { sealWaits, type Clock, type SealWaits } from './timing';

/** A node that seals no block for this many block intervals has stopped sealing... */
export const STALL_INTERVALS = 5;
/** ...but never sooner than this (a loaded machine, a slow block now and then)... */
export const STALL_MIN_MS = 5_000;
/** ...nor later than one of the longest block times and 1 s, the wait when no interval was seen (default; see sealWaits). */
export const STALL_MAX_MS = sealWaits().stallMaxMs;

/**
 * The heads the pass has read. A seal is a head above every one read before (behind a load
 * balancer a backend a block behind may answer between current ones). The stall clock runs only
 * while the signer's transactions wait to be sealed: a node that seals only when it has
 * transactions may sit idle otherwise.
 */
export class Heads {
  highest?: bigint;
  private firstAt?: number;
  private lastRiseAt?: number;
  private readonly gaps: number[] = [];
  private armedAt?: number;

  /** `maxMs`: the longest a node may go without a seal before it counts as stopped (SealWaits.stallMaxMs); it caps STALL_MIN_MS too. */
  constructor(private readonly maxMs = STALL_MAX_MS) {}

  /** Records a head read at `at`; whether it is a seal (a head above every earlier one). */
  see(number: bigint, at: number): boolean {
    if (this.highest === undefined || number <= this.highest) {
      this.highest ??= number;
      this.firstAt ??= at;
      return false;
    }
    if (this.lastRiseAt !== undefined) this.gaps.push(at - this.lastRiseAt);
    this.highest = number;
    this.lastRiseAt = at;
    return true;
  }

  /** The median time between two seals seen one after the other (undefined: fewer than two seen). */
  intervalMs(): number | undefined {
    if (this.gaps.length === 0) return undefined;
    return [...this.gaps].sort((x, y) => x - y)[Math.floor(this.gaps.length / 2)];
  }

  /** Starts the stall clock (the first send of an attempt); stopped once everything sent is sealed. */
  arm(at: number): void {
    this.armedAt ??= at;
  }

  disarm(): void {
    this.armedAt = undefined;
  }

  /**
   * How long without a seal means the node stopped sealing: a few block intervals; one of the
   * longest block times when no interval was seen; STALL_MIN_MS when the node sealed nothing for
   * that long before the sends (only a node sealing on demand remains, and it seals at once).
   */
  stallMs(): number {
    const interval = this.intervalMs();
    if (interval !== undefined) return Math.min(this.maxMs, Math.max(STALL_MIN_MS, STALL_INTERVALS * interval));
    const idleBefore = this.lastRiseAt === undefined && this.firstAt !== undefined && this.armedAt !== undefined && this.armedAt - this.firstAt >= this.maxMs;
    return idleBefore ? Math.min(STALL_MIN_MS, this.maxMs) : this.maxMs;
  }

  /** Throws Stalled when no seal was seen for stallMs() since the first send (or the last seal after it). */
  check(now: number): void {
    if (this.armedAt === undefined) return;
    const since = Math.max(this.armedAt, this.lastRiseAt ?? -Infinity);
    const quiet = now - since;
    if (quiet < this.stallMs()) return;
    const interval = this.intervalMs();
    throw new Stalled(
      `the node sealed no block for ${Math.round(quiet)} ms while the signer's transactions waited (head ${this.highest === undefined ? 'unknown' : toQuantity(this.highest)}, ` +
        `${interval === undefined ? 'no block interval seen' : `block interval ${Math.round(interval)} ms`}; the pass gives up after ${this.stallMs()} ms without a seal): ` +
        'whether state shows at "pending" before its seal cannot be established on a node that does not seal',
    );
  }
}

export interface PassState {
  s: Session;
  time: Clock;
  signal: AbortSignal;
  behaviours: Behaviour[];
  gas: Record<Role, bigint>;
  notes: string[];
  heads: Heads;
  /** How long to wait on seals: from the target's longest block time (CheckSettings.maxBlockTimeMs). */
  waits: SealWaits;
  /** The first send of the pass: the timeline's zero. */
  t0?: number;
  aligned: boolean;
  rttSamples: number[];
  samples: Record<string, number[]>;
  timeline: Timeline;
  blockTimes: number[];
  /** eth_estimateGas at "latest" of the call into an address without code (undefined: not read). */
  plain?: bigint;
  /** The last attempt sent its transactions in two batches right after a seal (send.ts). */
  lastSplit?: boolean;
}

export const sleep = (st: PassState, ms: number): Promise<void> => st.time.sleep(Math.max(0, ms), st.signal);
export const rel = (st: PassState, t: number): number => Math.round(t - (st.t0 ?? t));

/** The "latest" block, timed (its duration is a round-trip sample); the stall clock is checked. */
export async function readHead(st: PassState): Promise<{ block: BlockView; startedAt: number; endedAt: number }> {
  const startedAt = st.time.now();
  const block = await st.s.block('heads', 'latest');
  const endedAt = st.time.now();
  st.rttSamples.push(endedAt - startedAt);
  st.heads.see(block.number!, endedAt);
  st.heads.check(endedAt);
  return { block, startedAt, endedAt };
}

/** How an attempt ended: what it observed per behaviour, or why it observed nothing. */
export type AttemptEnd =
  | {
      kind: 'observed';
      results: { [B in Behaviour]?: Outcome<Views[B], Afters[B]> | { kind: 'miss'; record: MissRecord } | { kind: 'unclear'; reason: string } };
      /** The node stopped sealing or answering during the rounds: the pass ends here. */
      stop?: Stop;
      /** The seal followed the sends too soon to watch them (timing.ts, MAX_SPOILED_ATTEMPTS): why, in words. */
      spoiled?: string;
    }
  /** Nothing judged, worth another attempt (another sender of the key may have used the nonce). */
  | { kind: 'void'; reason: string }
  | { kind: 'nonce'; contradiction: NonceContradiction }
  /** `lost`: the gateway answered a send (HTTP 502/503/504) on every try, so that nonce is lost (send.ts, refusalOf). */
  | { kind: 'refused'; reason: string; lost?: boolean }
  /** Nothing more can be attempted (the spend cap): what is judged stays. */
  | { kind: 'stopped'; reason: string };

/** Why an error ends the pass, as evidence every behaviour not established shares (anything else is rethrown). */
export function stopOf(err: unknown): Stop {
  if (err instanceof Stalled) return { cause: 'stalled', reason: err.message };
  if (err instanceof TransportError || err instanceof InterfaceDown)
    return { cause: 'no-answer', reason: `the node stopped answering during the pre-confirmation pass (${err.message}), so nothing more could be observed` };
  if (err instanceof Unobservable) return { cause: 'unobservable', reason: err.message };
  throw err;
}
