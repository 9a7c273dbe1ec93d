/**
 * A results.json document for reporter tests, with outcomes, counts, status and scope derived by
 * the same functions the CLI uses (src/verdict/outcome.ts, status.ts, scope.ts, seal.ts), so a fixture can never disagree with them.
 */
import type { CheckResult } from '../../src/harness/runner';
import { quoted } from '../../src/harness/spec-rules';
import { countOutcomes, countSections, decide, type Judged } from '../../src/verdict/outcome';
import { deriveScope, type ScopeFacts } from '../../src/verdict/scope';
import { RESULTS_SCHEMA_VERSION, type RunDocument } from '../../src/verdict/document';
import type { RunFacts } from '../../src/verdict/status';
import { sealVerdict } from '../../src/verdict/seal';

/**
 * A fixture result with its outcome and effect: kept when it has them, decided (outcome.ts decide)
 * when not. Tests only: in a run every result is judged once, as it comes (outcome.ts judge).
 */
export const judged = (r: CheckResult | Judged): Judged => ('outcome' in r && r.outcome && 'effect' in r && r.effect ? (r as Judged) : { ...r, ...decide(r) });

export function runDocument(
  results: Array<CheckResult | Judged>,
  scope: ScopeFacts,
  opts: { facts?: RunFacts; suite?: RunDocument['suite']; durationMs?: number } = {},
): RunDocument {
  const checks = results.map(judged);
  const facts = opts.facts ?? {};
  const durationMs = opts.durationMs ?? 1000;
  const verdict = sealVerdict(checks, facts, (decided) => deriveScope([...decided], scope));
  const derivedScope = verdict.scope;
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    suite: opts.suite ?? { name: 'tokenized-stocks-conformance', version: '0.1.0' },
    spec: { version: '1.0.0' },
    target: { baseUrl: scope.baseUrl ?? null, rpcUrl: scope.rpcUrl ?? null, profile: scope.profile, embedded: scope.embedded },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: new Date(Date.parse('2026-01-01T00:00:00.000Z') + durationMs).toISOString(),
    durationMs,
    status: verdict.status,
    statusReasons: verdict.statusReasons,
    scope: derivedScope,
    counts: countOutcomes(verdict.checks),
    sections: countSections(verdict.checks),
    exitCode: verdict.exitCode,
    headline: verdict.headline,
    rootCauses: verdict.rootCauses,
    ...facts,
    statements: quoted(verdict.checks),
    checks: verdict.checks,
  };
}

/** The facts of a full-scope remote run: both interfaces, a signer, every group, no --grep. */
export const FULL_SCOPE: ScopeFacts = {
  only: ['rest', 'rpc', 'cross', 'preconf'],
  profile: 'dedicated',
  embedded: false,
  baseUrl: 'https://api.example',
  rpcUrl: 'https://rpc.example',
  signer: true,
  archive: false,
};

/** A check's result as the reports read it: a required JSON-RPC check of 4.5, passing unless told otherwise. */
export const checkResult = (id: string, status: CheckResult['status'] = 'passed', over: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: `title of ${id}`,
  statements: ['4.5.1'],
  section: '4.5',
  level: 'required',
  needs: ['rpc'],
  status,
  reason: status === 'passed' ? '' : `why ${id}`,
  durationMs: 3,
  exchanges: [],
  exchangeCount: 0,
  ...over,
});
