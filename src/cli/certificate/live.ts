import { allChecks } from '../../../suites';
import { groupOf } from '../../harness/check';
import type { RunConfig } from '../config';
import type { Egress } from '../egress';
import { openRun, OpenRunError } from '../open-run';
import { runChecks, type CheckResult } from '../../harness/runner';
import { maskOutside } from '../../harness/mask-result';
import { isUnjudged, judge, type Judged } from '../../verdict/outcome';
import type { RunFacts, RunStatus } from '../../verdict/status';
import { deriveScope, type RunScope, type ScopeFacts } from '../../verdict/scope';
import { sealVerdict } from '../../verdict/seal';
import type { RootCauseRecord } from '../../verdict/document';
import type { Statement } from './statement';

export class LiveError extends Error {
  override name = 'LiveError';
}

export interface LiveOutcome {
  /** The URLs re-checked (as the certificate names them when they came from it, else redacted). */
  targets: { baseUrl?: string; rpcUrl?: string };
  /** Each re-run check judged as a run judges it (src/verdict/outcome.ts): its outcome and effect. */
  results: Judged[];
  /** Certified as passed, failed now in a way that fails a run (effect fails-run). */
  failed: Judged[];
  /** Certified as passed, failed now without failing a run (an advisory check): a warning, as in a fresh run. */
  warned: Judged[];
  /** Certified as passed, not judged now (inconclusive, or nothing to judge now). */
  unjudged: Judged[];
  /** The verdict of the re-check, sealed as a run's is (src/verdict/seal.ts): status, why, exit code, headline, root causes, scope. */
  status: RunStatus;
  statusReasons: string[];
  exitCode: number;
  headline: string;
  rootCauses: RootCauseRecord[];
  scope: RunScope;
  /** An interface that did not answer at all: nothing was re-run (one root cause, not a failure of each check). */
  unreachable?: { rest?: string; rpc?: string };
}

/** A certified URL can be dialled only when nothing of it was masked, and it was not the embedded reference (gone with its run). */
function certifiedUrl(url: string | null, embedded: boolean): string | undefined {
  return url && !embedded && !url.includes('***') ? url : undefined;
}

const origin = (url: string) => new URL(url).origin;

/**
 * Re-run, against the certified target, the read-only checks (those that need no signer) the
 * certificate says passed. The target is --base-url/--rpc-url (or BASE_URL/RPC_URL) when given,
 * and must have the certified origin; otherwise the certified URL itself, when it was recorded
 * whole. Credentials come from the usual flags and environment, never from the certificate, and
 * go only to the URLs the verifier gave: a certified URL dialled as written is sent no header.
 */
export async function liveRecheck(statement: Statement, cfg: RunConfig, gate: Egress): Promise<LiveOutcome> {
  const { tokenizedStocksConformance: conformance } = statement.predicate;
  const pick = (given: string | undefined, certified: string | null, flag: string): string | undefined => {
    if (!certified) return undefined;
    if (given) {
      if (origin(given) !== new URL(certified).origin)
        throw new LiveError(`${flag} has origin ${origin(given)}; the certificate is about ${new URL(certified).origin}`);
      return given;
    }
    const whole = certifiedUrl(certified, conformance.target.embedded);
    if (!whole)
      throw new LiveError(
        `the certificate names the target as ${certified}${conformance.target.embedded ? ' (the embedded reference of that run)' : ''}: give ${flag} (with its credentials) to re-check it`,
      );
    return whole;
  };
  const baseUrl = pick(cfg.baseUrl, conformance.target.baseUrl, '--base-url (or BASE_URL)');
  const rpcUrl = pick(cfg.rpcUrl, conformance.target.rpcUrl, '--rpc-url (or RPC_URL)');
  // The configured headers go only to a URL the verifier named: a host the certificate names
  // (whoever wrote it) gets none of the verifier's credentials.
  const sent: RunConfig = {
    ...cfg,
    restHeaders: cfg.baseUrl ? cfg.restHeaders : {},
    rpcHeaders: cfg.rpcUrl ? cfg.rpcHeaders : {},
  };
  const passed = new Set(statement.predicate.passedTests);
  const checks = allChecks().filter((c) => passed.has(c.id) && !c.needs.includes('signer'));
  if (checks.length === 0) throw new LiveError('the certificate lists no passed check that can be re-run without a signer');

  // Opened as every run is (open-run.ts), whose gate knew the command line's secrets before it was
  // parsed; never the embedded reference, and no signer.
  let opened: Awaited<ReturnType<typeof openRun>>;
  try {
    opened = await openRun({ ...sent, baseUrl, rpcUrl, embedded: false, signerKey: undefined }, gate, {
      signal: AbortSignal.timeout(cfg.deadlineMs),
      settings: { profile: conformance.scope.profile, archive: conformance.scope.archive },
      remoteOnly: true,
    });
  } catch (err) {
    if (err instanceof OpenRunError) throw new LiveError(err.message);
    throw err;
  }
  const redactor = gate.redactor;
  const targets = { ...(baseUrl ? { baseUrl: redactor.publicUrl(baseUrl) } : {}), ...(rpcUrl ? { rpcUrl: redactor.publicUrl(rpcUrl) } : {}) };
  // The re-check's scope: the certified checks that need no signer, at the certificate's profile and archive, against these URLs.
  const scope: ScopeFacts = {
    only: new Set(checks.map((c) => groupOf(c.id))),
    profile: conformance.scope.profile,
    embedded: false,
    baseUrl,
    rpcUrl,
    signer: false,
    archive: conformance.scope.archive,
  };
  // A target that does not answer now cannot be judged now: that is the verifier's news, not a failure of
  // every check, nor the run-level failure an unreachable target is to a run (nothing is re-run: incomplete).
  if (opened.env.unreachable) {
    const unreachable = Object.fromEntries(Object.entries(opened.env.unreachable).map(([i, e]) => [i, redactor.text(String(e))]));
    return { targets, ...liveVerdict([], scope), unreachable };
  }
  const raw = await runChecks(checks, opened.env, { concurrency: cfg.concurrency });
  // As results.json is made: nothing the target or a transport error echoed keeps a secret, and the verdict's own fields are never masked.
  return {
    targets,
    ...liveVerdict(
      raw.map((r) => maskOutside(r, redactor)),
      scope,
    ),
  };
}

/**
 * A check the certificate lists as passed was judged then: finding nothing to judge now (no other
 * sender's transaction on a quiet chain), it is not judged now, which keeps the re-check from
 * reading as conformant (exit 3), never a pass by absence.
 */
function notJudgedNow(r: Judged): Judged {
  return r.outcome === 'skipped' ? judge({ ...r, status: 'inconclusive', reason: `certified as passed; nothing to judge now: ${r.reason}` }) : r;
}

/**
 * The re-run results sealed as a run's are (sealVerdict, with the re-check's scope): each judged
 * (outcome and effect), then the status, its reasons, the exit code, the headline and the root
 * causes. An advisory check failing now is a warning (exit 0), as in a fresh run; a check that
 * would fail a run exits 1; a certified required check not judged now (throttled, blocked, nothing
 * to judge now), or nothing re-run at all, 3.
 */
export function liveVerdict(raw: readonly CheckResult[], scopeFacts: ScopeFacts, facts: RunFacts = {}): Omit<LiveOutcome, 'targets' | 'unreachable'> {
  const judged = raw.map((r) => notJudgedNow(judge(r)));
  const sealed = sealVerdict(judged, facts, (checks) => deriveScope([...checks], scopeFacts));
  const results = sealed.checks;
  return {
    results,
    failed: results.filter((r) => r.effect === 'fails-run'),
    warned: results.filter((r) => r.outcome === 'warning'),
    unjudged: results.filter((r) => isUnjudged(r.outcome)),
    status: sealed.status,
    statusReasons: sealed.statusReasons,
    exitCode: sealed.exitCode,
    headline: sealed.headline,
    rootCauses: sealed.rootCauses,
    scope: sealed.scope,
  };
}
