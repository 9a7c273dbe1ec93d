import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunConfig } from './config';
import type { Redactor } from '../harness/redact';
import type { CheckResult } from '../harness/runner';
import { certificateFiles, htmlWithNote, summaryWithNote, type CertifyOptions } from './certificate/write';
import { renderHtml } from './reporters/html';
import { renderJson } from './reporters/json';
import { renderJunit } from './reporters/junit';
import { renderSummary } from './reporters/summary';
import { deriveScope, deriveStatus, exitCodeFor, SPEC_VERSION, summarize, type RunDocument, type RunFacts } from './results';
import { quoted } from './traceability';
import { runSampling, type SamplingPlan } from '../harness/sampling';

export interface RunRecord {
  suite: { name: string; version: string };
  cfg: Pick<RunConfig, 'only' | 'grep' | 'profile' | 'embedded' | 'expectationsFile'> & { archive?: boolean; require?: RunConfig['require'] };
  target: { baseUrl?: string; rpcUrl?: string; signerKey?: string };
  startedAt: Date;
  finishedAt: Date;
  results: CheckResult[];
  /** The abort reason when the run stopped early (`interrupted by SIGINT`, `run deadline … reached`). */
  stopped?: { by: 'signal' | 'deadline'; reason: string };
  unreachable?: RunFacts['unreachable'];
  /** --samples: how the read-only checks were sampled. */
  sampling?: SamplingPlan;
}

/** Assemble results.json: the status and scope are derived here, once, from the results and the run facts. */
export function buildRunDocument(run: RunRecord, redactor: Redactor): RunDocument {
  const facts: RunFacts = {
    ...(run.stopped ? { interrupted: run.stopped.reason, stoppedBy: run.stopped.by } : {}),
    ...(run.unreachable && Object.keys(run.unreachable).length ? { unreachable: run.unreachable } : {}),
  };
  const scope = deriveScope(run.results, {
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
  const { status, reasons } = deriveStatus(run.results, facts, scope);
  return redactor.value({
    suite: run.suite,
    spec: { version: SPEC_VERSION },
    target: {
      // Masked by the one rule (publicUrl): the certificate copies these, and both are published.
      baseUrl: run.target.baseUrl ? redactor.publicUrl(run.target.baseUrl) : null,
      rpcUrl: run.target.rpcUrl ? redactor.publicUrl(run.target.rpcUrl) : null,
      profile: run.cfg.profile,
      embedded: run.cfg.embedded,
      ...(run.cfg.expectationsFile ? { expectations: run.cfg.expectationsFile } : {}),
    },
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt.toISOString(),
    durationMs: run.finishedAt.getTime() - run.startedAt.getTime(),
    status,
    statusReasons: reasons,
    scope,
    summary: summarize(run.results),
    exitCode: exitCodeFor(status, facts),
    ...facts,
    // Absent at N = 1: a plain run's document is what it was.
    ...(run.sampling && run.sampling.n > 1 ? { sampling: runSampling(run.sampling) } : {}),
    statements: quoted(run.results),
    checks: run.results,
  });
}

/**
 * Write results.json, junit.xml, summary.md, report.html (and with --certify, certificate.json,
 * predicate.json and badge.svg, made from the very bytes of results.json written here; summary.md
 * and report.html then say whether the certificate is signed). Returns the paths.
 */
export function writeReports(doc: RunDocument, dir: string, opts: { certify?: boolean | CertifyOptions } = {}): string[] {
  const resultsJson = renderJson(doc);
  const certify = opts.certify === true ? {} : opts.certify || undefined;
  const keyid = certify?.signKey?.keyid;
  const files: Array<[string, string]> = [
    ['results.json', resultsJson],
    ['junit.xml', renderJunit(doc)],
    ['summary.md', certify ? summaryWithNote(renderSummary(doc), keyid) : renderSummary(doc)],
    ['report.html', certify ? htmlWithNote(renderHtml(doc), keyid) : renderHtml(doc)],
  ];
  if (certify) files.push(...certificateFiles(doc, resultsJson, certify));
  mkdirSync(dir, { recursive: true });
  return files.map(([name, body]) => {
    const file = path.join(dir, name);
    writeFileSync(file, body);
    return file;
  });
}
