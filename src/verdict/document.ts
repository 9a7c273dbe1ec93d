// results.json: the contract other tools rely on (schemas/results.json), versioned. Assembled once
// (build-document.ts) from the verdict sealed in seal.ts.
import type { Interface, Profile } from '../harness/check';
import type { RunSampling } from '../harness/sampling';
import type { Cause } from '../harness/verdict';
import type { Effect, Judged, OutcomeCounts, SectionCounts } from './outcome';
import type { RunScope } from './scope';
import type { RunFacts, RunStatus } from './status';

export const SPEC_VERSION = '1.0.0';

/**
 * The version of the results.json contract (schemas/results.json): the major part changes when a
 * field other tools read changes meaning or goes; an addition changes the minor part.
 */
export const RESULTS_SCHEMA_VERSION = '2.4.0';

/** One root cause as results.json stores it: decided once (seal.ts), read by every report. */
export interface RootCauseRecord {
  /** The root check's id; for an interface, a label (`target unreachable: rest`): read `check` or `interface`, never this. */
  id: string;
  /** The root check, when the root is a check. */
  check?: string;
  /** The interface, when the root is an interface (it could not be reached, …). */
  interface?: Interface;
  /** The root's cause: the root check's, or the interface's (`unreachable`). */
  cause?: Cause;
  /** In words, for people. */
  reason: string;
  /** What the user can do about it, said once with the root (an interface fact's: e.g. --max-rps for a throttled interface). */
  hint?: string;
  /** What it does to the run: `fails-run` (non-conformant), `incomplete`, or `none`. */
  effect: Effect;
  /** The ids of the checks it covers: kept from being judged by it (never failed again), or standing in for its interface. */
  checks: string[];
}

/** The results.json contract other tools rely on. */
export interface RunDocument {
  /** The version of this contract (RESULTS_SCHEMA_VERSION). */
  schemaVersion: string;
  suite: { name: string; version: string };
  spec: { version: string };
  target: { baseUrl: string | null; rpcUrl: string | null; profile: Profile; embedded: boolean; expectations?: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Derived once by deriveStatus(); every reporter and the exit code state this value. */
  status: RunStatus;
  /** Why the status is what it is, in words (empty for a conformant run). */
  statusReasons: string[];
  scope: RunScope;
  /** Checks per outcome (outcome.ts), summing to checks.length: `counts.failed` is exactly the checks that fail the run. */
  counts: OutcomeCounts;
  /** The same counts per spec section (the section of each check's first statement), titled from specs/rules.yaml, in the spec's order. */
  sections: SectionCounts[];
  exitCode: number;
  /** The one status line every report prints (statusLine), written once. */
  headline: string;
  /** Each root cause once, with its effect and the checks it covers; failures that fail the run first. */
  rootCauses: RootCauseRecord[];
  /** Set when the run stopped early (interrupt, deadline): the results are partial. */
  interrupted?: string;
  stoppedBy?: RunFacts['stoppedBy'];
  unreachable?: RunFacts['unreachable'];
  /** Statement id → its text in specs/rules.yaml, for every statement a check below cites. */
  statements?: Record<string, string>;
  /** --samples: answers per read-only question, the window they were spread over, the detection power. */
  sampling?: RunSampling;
  checks: Judged[];
}
