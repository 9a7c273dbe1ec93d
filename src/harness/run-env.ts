// The environment a run's checks are run in: the target's URLs and headers, the settings, the
// run's shared bounds (limiter, answer budget), its evidence ledger, and what it opened with.
import type { CheckSettings } from './check';
import type { Evidence } from './evidence';
import type { AnswerBudget, Connections, RateLimiter } from './http';
import type { Redactor } from './redact';
import type { RestResponse } from './rest';
import type { Signer } from './signer';
import type { Exchange } from './transcript';

export interface RunEnv {
  baseUrl?: string;
  rpcUrl?: string;
  restHeaders: Record<string, string>;
  rpcHeaders: Record<string, string>;
  settings: CheckSettings;
  redactor: Redactor;
  signer?: Signer;
  /** Interfaces found unreachable before the run, with the transport error. */
  unreachable?: { rest?: string; rpc?: string };
  /** Interfaces whose gateway kept answering 502/503/504 after they answered the probe (backend down mid-run), with what it said. */
  gateway?: { rest?: string; rpc?: string };
  signal: AbortSignal;
  /** --max-rps: one limiter shared by every client of the run. */
  limiter?: RateLimiter;
  /** One sample's own connections (--samples N > 1); absent: the process's shared pool. */
  connections?: Connections;
  /** The run's answer budget (bytes of answers read, all clients together); absent: unbounded. */
  answers?: AnswerBudget;
  /** The run's evidence ledger (evidence.ts): runChecks opens one when none is given. */
  evidence?: Evidence;
  /** What the run saw as it opened (the probe), judged by the checks as any answer they asked for. */
  openedWith?: OpenedWith;
  /** The records of CheckContext.acrossSamples, one per key for the whole run: runChecks opens them when none are given. */
  acrossSamples?: Map<string, object>;
}

/**
 * The answers the probe read as the run opened. The list is the run's shared list (records.ts
 * getList): its checks judge that answer, so a fault it showed is seen even when every later
 * request of the run is refused (a gateway down, credentials withdrawn).
 */
export interface OpenedWith {
  list?: { response: RestResponse; exchanges: Exchange[] };
}
