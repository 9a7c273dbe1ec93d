import path from 'node:path';
import type { RunDocument } from '../verdict/document';
import { Egress, SUITE_FILES } from './egress';
import { BADGE_FILE, CERTIFICATE_FILE, PREDICATE_FILE, certificateFiles, htmlWithNote, summaryWithNote, type CertifyOptions } from './certificate/write';
import { renderHtml } from './reporters/html';
import { renderJson } from './reporters/json';
import { renderJunit } from './reporters/junit';
import { renderSummary } from './reporters/summary';

const CERTIFICATE_FILES: readonly string[] = [CERTIFICATE_FILE, PREDICATE_FILE, BADGE_FILE];

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
