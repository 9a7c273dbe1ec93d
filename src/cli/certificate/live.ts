import { allChecks } from '../../../suites';
import type { RunConfig } from '../config';
import { probe, redactorFor } from '../target';
import { RateLimiter } from '../../harness/http';
import { runChecks, type CheckResult } from '../../harness/runner';
import type { Statement } from './statement';
import { loadDocument } from '../../harness/openapi-document';

export class LiveError extends Error {
  override name = 'LiveError';
}

export interface LiveOutcome {
  /** The URLs re-checked (as the certificate names them when they came from it, else redacted). */
  targets: { baseUrl?: string; rpcUrl?: string };
  results: CheckResult[];
  /** Certified as passed, failed now. */
  failed: CheckResult[];
  /** Certified as passed, not judged now (inconclusive or skipped). */
  unjudged: CheckResult[];
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
export async function liveRecheck(statement: Statement, cfg: RunConfig): Promise<LiveOutcome> {
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

  const redactor = redactorFor({ ...cfg, baseUrl, rpcUrl });
  const limiter = cfg.maxRps ? new RateLimiter(cfg.maxRps) : undefined;
  const { unreachable, misdirected } = await probe({ baseUrl, rpcUrl }, sent, redactor, limiter);
  const wrong = Object.values(misdirected ?? {});
  if (wrong.length) throw new LiveError(wrong.join('; '));
  // The published OpenAPI document is read once, as a run reads it; without one its checks are not re-judged.
  const openapi = cfg.openapi
    ? await loadDocument(cfg.openapi, { baseUrl, headers: sent.restHeaders, http: { timeoutMs: cfg.timeoutMs, redactor } })
    : undefined;
  const raw = await runChecks(
    checks,
    {
      baseUrl,
      rpcUrl,
      restHeaders: sent.restHeaders,
      rpcHeaders: sent.rpcHeaders,
      settings: {
        profile: conformance.scope.profile,
        clockSkewSec: cfg.clockSkewSec,
        navMaxAgeSec: cfg.navMaxAgeSec,
        timeoutMs: cfg.timeoutMs,
        openapi,
        archive: conformance.scope.archive,
      },
      redactor,
      unreachable,
      signal: AbortSignal.timeout(cfg.deadlineMs),
      limiter,
    },
    { concurrency: cfg.concurrency },
  );
  // As results.json is made: nothing the target or a transport error echoed keeps a secret.
  const results = redactor.value(raw);
  return {
    targets: { ...(baseUrl ? { baseUrl: redactor.text(baseUrl) } : {}), ...(rpcUrl ? { rpcUrl: redactor.text(rpcUrl) } : {}) },
    results,
    failed: results.filter((r) => r.status === 'failed'),
    unjudged: results.filter((r) => r.status === 'inconclusive' || r.status === 'skipped'),
  };
}
