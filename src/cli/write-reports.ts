import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { RunDocument } from '../verdict/document';
import { readerDocument } from '../verdict/reader';
import { Egress } from './egress';
import { SUITE_FILES } from './report-files';
import { certificateFiles, htmlWithNote, summaryWithNote, uncertifiable, type CertifyOptions } from './certificate/write';
import { MAX_RESULTS_BYTES } from './certificate/open';
import { renderHtml } from './reporters/html';
import { renderJson } from './reporters/json';
import { renderJunit } from './reporters/junit';
import { renderSummary } from './reporters/summary';
import { pushAll } from '../harness/many';

/**
 * A folder holds one run's verdict or none: as a run takes its report folder, the verdict files an
 * earlier run left there (results.json, the reports, certificate.json, predicate.json, badge.svg)
 * are removed, so a run that ends without a verdict of its own (refused at the door, crashed,
 * killed) never leaves an older one standing for a job to publish. Returns the names removed.
 */
export function clearEarlierVerdict(dir: string, gate: Egress): string[] {
  const present = SUITE_FILES.filter((name) => {
    const found = lstatSync(path.join(dir, name), { throwIfNoEntry: false });
    return found !== undefined && !found.isDirectory();
  });
  gate.clearStale(dir, []);
  return present;
}

/** The one line a run that ended without a verdict says when it removed an earlier one (clearEarlierVerdict). */
export const earlierVerdictRemoved = (dir: string, removed: readonly string[]): string =>
  `${dir} holds no verdict: this run ended before its own, and the earlier run's ${removed.join(', ')} were removed as it began (a folder holds one run's verdict or none)`;

/**
 * Write results.json, junit.xml, summary.md, report.html (and with --certify, certificate.json,
 * predicate.json and badge.svg, made from the very bytes of results.json written here; summary.md
 * and report.html then say whether the certificate is signed; never for an interrupted run, see
 * uncertifiable) through the egress gate, after removing what an earlier run of the suite left that
 * this one does not write. Returns the paths.
 */
export function writeReports(doc: RunDocument, dir: string, opts: { certify?: boolean | CertifyOptions; gate?: Egress } = {}): string[] {
  const gate = opts.gate ?? new Egress();
  const resultsJson = renderJson(doc);
  const view = readerDocument(doc);
  const certify = uncertifiable(view) ? undefined : opts.certify === true ? {} : opts.certify || undefined;
  const keyid = certify?.signKey?.keyid;
  let tooLarge: Error | undefined;
  const files: Array<[string, string]> = [
    ['results.json', resultsJson],
    ['junit.xml', renderJunit(view)],
    ['summary.md', certify ? summaryWithNote(renderSummary(view), keyid) : renderSummary(view)],
    ['report.html', certify ? htmlWithNote(renderHtml(view), keyid) : renderHtml(view)],
  ];
  if (certify) {
    // The certificate digests the very bytes written below (the reports are written as rendered: their outside text was masked when the run was sealed).
    // A certificate no verifier would read is not made: the reports are written, and the run says why (exit 2).
    const large = files.find(([, body]) => Buffer.byteLength(body) > MAX_RESULTS_BYTES);
    if (large)
      tooLarge = new Error(
        `${large[0]} is ${(Buffer.byteLength(large[1]) / 2 ** 20).toFixed(1)} MiB, more than the ${MAX_RESULTS_BYTES / 2 ** 20} MiB verify-certificate reads: the reports were written, but no certificate was made`,
      );
    else pushAll(files, certificateFiles(view, files, certify));
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
    // A folder holds one run's verdict or none: the run now exits 2 (or keeps 1 or 130), so the files
    // already written, stating its sealed exit code, are not left standing to speak for it (a job
    // uploading the folder, the Action reading results.json); nor a certificate of a set with one missing.
    gate.clearStale(dir, []);
    throw failure;
  }
  if (tooLarge) throw tooLarge;
  return written;
}
