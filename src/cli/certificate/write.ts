import { escapeHtml } from '../inert-text';
import type { ReaderDocument } from '../../verdict/reader';
import { renderBadge } from './badge';
import { IN_TOTO_PAYLOAD_TYPE, signEnvelope } from './dsse';
import type { SigningKey } from '../signing-keys';
import { buildStatement, subjectsOf, type Statement } from './statement';

export const CERTIFICATE_FILE = 'certificate.json';
/** The test-result predicate alone, as GitHub's actions/attest takes it (predicate-path). */
export const PREDICATE_FILE = 'predicate.json';
export const BADGE_FILE = 'badge.svg';

/**
 * Why a run's document may not be certified, or undefined when it may: a certificate vouches for a
 * verdict, and a run a signal interrupted (exit 130) never reached one; its reports hold what was
 * measured until then, unsigned. The writer makes none and the verifier rejects one.
 */
export function uncertifiable(doc: Pick<ReaderDocument, 'stoppedBy'>): string | undefined {
  return doc.stoppedBy === 'signal'
    ? 'the run was interrupted by a signal (exit 130) before its verdict: a certificate is made only of a run that reached its verdict'
    : undefined;
}

export interface CertifyOptions {
  /** Sign the statement (a DSSE envelope); without it the certificate is the bare statement, self-reported. */
  signKey?: SigningKey;
  /** The CI run's address (ciRunUrl). */
  url?: string;
}

/** What summary.md and report.html say about the certificate beside them. */
function certificationNote(keyid: string | undefined): string {
  // Said by the writer, read by anyone: an envelope is a claim until a verifier checks it with a key it trusts.
  return keyid
    ? `${CERTIFICATE_FILE} is an in-toto statement in a DSSE envelope whose signature names the key ${keyid}; it covers every file of this directory by SHA-256. It counts as signed only once checked with the provider's public key: \`conformance verify-certificate <dir> --key <public key PEM>\`.`
    : `${CERTIFICATE_FILE} is self-reported: an unsigned in-toto statement. It shows that the files of this directory agree, not who ran the suite; check it with \`conformance verify-certificate <dir> --allow-self-reported\`.`;
}

export const summaryWithNote = (summary: string, keyid: string | undefined) => `${summary}## Certificate\n\n${certificationNote(keyid)}\n`;

export function htmlWithNote(html: string, keyid: string | undefined): string {
  const note = escapeHtml(certificationNote(keyid)).replace(/`([^`]+)`/g, '<code>$1</code>');
  const at = html.lastIndexOf('</main>');
  const section = `<section id="certificate"><h2>Certificate</h2><p>${note}</p></section>`;
  return at < 0 ? html + section : html.slice(0, at) + section + html.slice(at);
}

/**
 * certificate.json (signed envelope or bare statement), predicate.json and badge.svg of a run.
 * `published` is every other file written into the directory (results.json first), with the exact
 * bytes written: the statement names each of them, predicate.json and badge.svg by SHA-256, so
 * nothing published beside the certificate goes unvouched.
 */
export function certificateFiles(doc: ReaderDocument, published: ReadonlyArray<readonly [string, string]>, opts: CertifyOptions): Array<[string, string]> {
  const resultsJson = published.find(([name]) => name === 'results.json')?.[1];
  if (resultsJson === undefined) throw new Error('a certificate is about results.json: it must be among the files written');
  const about = buildStatement(doc, published, { url: opts.url });
  const beside: Array<[string, string]> = [
    [PREDICATE_FILE, JSON.stringify(about.predicate, null, 2) + '\n'],
    [BADGE_FILE, renderBadge(about.predicate.tokenizedStocksConformance.badge, !!opts.signKey)],
  ];
  const statement: Statement = { ...about, subject: subjectsOf([...published, ...beside]) };
  const certificate = opts.signKey ? signEnvelope(Buffer.from(JSON.stringify(statement)), IN_TOTO_PAYLOAD_TYPE, opts.signKey) : statement;
  return [...beside, [CERTIFICATE_FILE, JSON.stringify(certificate, null, 2) + '\n']];
}
