// results.json assembled: the verdict sealed (seal.ts) from the judged results and the run's
// facts, then only the strings that came from outside masked. Writing it and the reports is the
// CLI's (src/cli/write-reports.ts), through the egress gate.
import type { Group, Profile } from '../harness/check';
import { maskOutside } from '../harness/mask-result';
import type { Redactor } from '../harness/redact';
import { runSampling, type SamplingPlan } from '../harness/sampling';
import { quoted } from '../harness/spec-rules';
import { RESULTS_SCHEMA_VERSION, SPEC_VERSION, type RunDocument } from './document';
import { countOutcomes, countSections, type Judged } from './outcome';
import { deriveScope, selectedNeed, type RequiredScope, type RunScope } from './scope';
import { sealVerdict } from './seal';
import type { RunFacts } from './status';

export interface RunRecord {
  suite: { name: string; version: string };
  /** The configuration facts results.json states (those of RunConfig). */
  cfg: { only: Iterable<Group>; grep?: RegExp; profile: Profile; embedded: boolean; expectationsFile?: string; archive?: boolean; require?: RequiredScope };
  target: { baseUrl?: string; rpcUrl?: string; signerKey?: string };
  startedAt: Date;
  finishedAt: Date;
  /** Each with its outcome decided once, as it came (outcome.ts judge), a deselected one's too; a blocked one with its blocker, decided in the seal. */
  results: Judged[];
  /** The abort reason when the run stopped early (`interrupted by SIGINT`, `run deadline … reached`). */
  stopped?: { by: 'signal' | 'deadline'; reason: string };
  unreachable?: RunFacts['unreachable'];
  /** --samples: how the read-only checks were sampled. */
  sampling?: SamplingPlan;
}

/** Assemble results.json: the counts, status and scope are derived here, once, from the judged results and the run facts. */
export function buildRunDocument(run: RunRecord, redactor: Redactor): RunDocument {
  const checks = run.results;
  const unreachable = unreachableInScope(run);
  const facts: RunFacts = {
    ...(run.stopped ? { interrupted: run.stopped.reason, stoppedBy: run.stopped.by } : {}),
    ...(Object.keys(unreachable).length ? { unreachable } : {}),
  };
  // From the decided results as published (masked): the scope's coverage quotes why checks were not judged.
  const scopeOf = (decided: readonly Judged[]) =>
    deriveScope(
      decided.map((c) => maskOutside(c, redactor)),
      {
        only: run.cfg.only,
        grep: run.cfg.grep,
        profile: run.cfg.profile,
        embedded: run.cfg.embedded,
        baseUrl: run.target.baseUrl,
        rpcUrl: run.target.rpcUrl,
        signer: !!run.target.signerKey,
        // --archive: history beyond a full node's retention required.
        archive: run.cfg.archive === true,
        required: run.cfg.require ?? 'none',
      },
    );
  const verdict = sealVerdict(checks, facts, scopeOf);
  // The verdict is decided above, from fields the gate never touches; only the strings that came
  // from outside are masked below (maskOutside, maskedFacts, maskedScope), never the suite's own.
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    suite: run.suite,
    spec: { version: SPEC_VERSION },
    target: {
      // Masked by the one rule (publicUrl): the certificate copies these, and both are published.
      baseUrl: run.target.baseUrl ? redactor.publicUrl(run.target.baseUrl) : null,
      rpcUrl: run.target.rpcUrl ? redactor.publicUrl(run.target.rpcUrl) : null,
      profile: run.cfg.profile,
      embedded: run.cfg.embedded,
      ...(run.cfg.expectationsFile ? { expectations: redactor.text(run.cfg.expectationsFile) } : {}),
    },
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt.toISOString(),
    durationMs: run.finishedAt.getTime() - run.startedAt.getTime(),
    status: verdict.status,
    statusReasons: verdict.statusReasons.map((r) => redactor.text(r)),
    scope: maskedScope(verdict.scope, redactor),
    counts: countOutcomes(verdict.checks),
    sections: countSections(verdict.checks),
    exitCode: verdict.exitCode,
    headline: redactor.text(verdict.headline),
    rootCauses: verdict.rootCauses.map((r) => ({ ...r, reason: redactor.text(r.reason) })),
    ...maskedFacts(facts, redactor),
    // Absent at N = 1: a plain run's document is what it was.
    ...(run.sampling && run.sampling.n > 1 ? { sampling: runSampling(run.sampling) } : {}),
    statements: quoted(verdict.checks),
    checks: verdict.checks.map((c) => maskOutside(c, redactor)),
  };
}

/**
 * The interfaces found unreachable that the run set out to judge: those a selected check needs
 * (the scope's interfaces). The probe asks every URL given; one no selected check needs (--only
 * rest beside an RPC_URL, a --grep of checks that judge only the --openapi document) was never
 * judged, so its being down is no fact of this run's verdict.
 */
function unreachableInScope(run: Pick<RunRecord, 'results' | 'unreachable'>): NonNullable<RunFacts['unreachable']> {
  return Object.fromEntries(Object.entries(run.unreachable ?? {}).filter(([i]) => selectedNeed(run.results, i)));
}

/** The run's facts with the words that may quote the outside (a transport error, an abort reason) masked. */
function maskedFacts(facts: RunFacts, redactor: Redactor): RunFacts {
  const unreachable = facts.unreachable && Object.fromEntries(Object.entries(facts.unreachable).map(([i, e]) => [i, redactor.text(e)]));
  return {
    ...facts,
    ...(facts.interrupted !== undefined ? { interrupted: redactor.text(facts.interrupted) } : {}),
    ...(unreachable ? { unreachable } : {}),
  };
}

/** The scope with the words a user gave (a --grep pattern) masked; its flags and booleans are the suite's own. */
function maskedScope(scope: RunScope, redactor: Redactor): RunScope {
  return {
    ...scope,
    ...(scope.grep !== undefined ? { grep: redactor.text(scope.grep) } : {}),
    leftOut: scope.leftOut.map((l) => ({ ...l, words: redactor.text(l.words) })),
    notJudged: scope.notJudged.map((w) => redactor.text(w)),
  };
}
