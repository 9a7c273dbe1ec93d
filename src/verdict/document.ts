import path from 'node:path';
import type { RunConfig } from '../cli/config';
import type { Redactor } from '../harness/redact';
import type { CheckResult } from '../harness/runner';
import { Egress, SUITE_FILES } from '../cli/egress';
import { BADGE_FILE, CERTIFICATE_FILE, PREDICATE_FILE, certificateFiles, htmlWithNote, summaryWithNote, type CertifyOptions } from '../cli/certificate/write';
import { renderHtml } from '../cli/reporters/html';
import { renderJson } from '../cli/reporters/json';
import { renderJunit } from '../cli/reporters/junit';
import { renderSummary } from '../cli/reporters/summary';
import { countOutcomes, countSections, judged, type Judged } from './outcome';
import { deriveScope, RESULTS_SCHEMA_VERSION, SPEC_VERSION, type RunDocument, type RunFacts, type RunScope } from './status';
import { sealVerdict } from './seal';
import { maskOutside } from '../harness/mask-result';
import { quoted } from '../cli/traceability';
import { runSampling, type SamplingPlan } from '../harness/sampling';

const CERTIFICATE_FILES: readonly string[] = [CERTIFICATE_FILE, PREDICATE_FILE, BADGE_FILE];

export interface RunRecord {
  suite: { name: string; version: string };
  cfg: Pick<RunConfig, 'only' | 'grep' | 'profile' | 'embedded' | 'expectationsFile'> & { archive?: boolean; require?: RunConfig['require'] };
  target: { baseUrl?: string; rpcUrl?: string; signerKey?: string };
  startedAt: Date;
  finishedAt: Date;
  /** Each with its outcome decided as it came (outcome.ts judge); one made outside the run (deselected) gets it here. */
  results: Array<CheckResult | Judged>;
  /** The abort reason when the run stopped early (`interrupted by SIGINT`, `run deadline … reached`). */
  stopped?: { by: 'signal' | 'deadline'; reason: string };
  unreachable?: RunFacts['unreachable'];
  /** --samples: how the read-only checks were sampled. */
  sampling?: SamplingPlan;
}

/** Assemble results.json: the counts, status and scope are derived here, once, from the judged results and the run facts. */
export function buildRunDocument(run: RunRecord, redactor: Redactor): RunDocument {
  const checks = run.results.map(judged);
  const facts: RunFacts = {
    ...(run.stopped ? { interrupted: run.stopped.reason, stoppedBy: run.stopped.by } : {}),
    ...(run.unreachable && Object.keys(run.unreachable).length ? { unreachable: run.unreachable } : {}),
  };
  const scope = deriveScope(checks, {
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
  });
  const verdict = sealVerdict(checks, facts, scope);
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
    scope: maskedScope(scope, redactor),
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

/**
 * Write results.json, junit.xml, summary.md, report.html (and with --certify, certificate.json,
 * predicate.json and badge.svg, made from the very bytes of results.json written here; summary.md
 * and report.html then say whether the certificate is signed) through the egress gate, after
 * removing what an earlier run of the suite left that this one does not write. Returns the paths.
 */
export function writeReports(doc: RunDocument, dir: string, opts: { certify?: boolean | CertifyOptions; gate?: Egress } = {}): string[] {
  const gate = opts.gate ?? new Egress();
  const resultsJson = renderJson(doc);
  const certify = opts.certify === true ? {} : opts.certify || undefined;
  const keyid = certify?.signKey?.keyid;
  let files: Array<[string, string]> = [
    ['results.json', resultsJson],
    ['junit.xml', renderJunit(doc)],
    ['summary.md', certify ? summaryWithNote(renderSummary(doc), keyid) : renderSummary(doc)],
    ['report.html', certify ? htmlWithNote(renderHtml(doc), keyid) : renderHtml(doc)],
  ];
  if (certify) {
    // The certificate digests the bytes that will be written: each report as the gate lets it out
    // (masking is idempotent, so writing it below changes nothing), and none at all when one is refused.
    const refusedBefore = gate.refused.length;
    files = files.map(([name, body]) => [name, gate.pass(body, path.join(dir, name)) ?? '']);
    if (gate.refused.length > refusedBefore) {
      gate.clearStale(dir, []);
      throw new Error(`${gate.refused.join(', ')}: not written: it would still have carried a secret, so no certificate was made`);
    }
    files.push(...certificateFiles(doc, files, certify));
  }
  gate.clearStale(
    dir,
    files.map(([name]) => name),
  );
  // Every file is tried, so one refusal does not leave an older copy of another standing; the first error is raised after.
  const written: string[] = [];
  let failure: Error | undefined;
  for (const [name, body] of files) {
    try {
      written.push(gate.writeFile(dir, name, body));
    } catch (err) {
      failure ??= err as Error;
    }
  }
  if (failure) {
    // A certificate vouches for the set of files beside it: with one of them missing it is not left standing.
    gate.clearStale(
      dir,
      SUITE_FILES.filter((f) => !CERTIFICATE_FILES.includes(f)),
    );
    throw failure;
  }
  return written;
}
