import { escapeHtml } from '../reporters/shared';
import type { RunDocument } from '../results';
import { badgeLabel, renderBadge } from './badge';
import { IN_TOTO_PAYLOAD_TYPE, signEnvelope, type SigningKey } from './dsse';
import { buildStatement } from './statement';

export const CERTIFICATE_FILE = 'certificate.json';
/** The test-result predicate alone, as GitHub's actions/attest takes it (predicate-path). */
export const PREDICATE_FILE = 'predicate.json';
export const BADGE_FILE = 'badge.svg';

export interface CertifyOptions {
  /** Sign the statement (a DSSE envelope); without it the certificate is the bare statement, self-reported. */
  signKey?: SigningKey;
  /** The CI run's address (ciRunUrl). */
  url?: string;
}

/** What summary.md and report.html say about the certificate beside them. */
function certificationNote(keyid: string | undefined): string {
  return keyid
    ? `${CERTIFICATE_FILE} is an in-toto statement signed with the key ${keyid} (a DSSE envelope): check it with \`conformance verify-certificate <dir> --key <public key PEM>\`.`
    : `${CERTIFICATE_FILE} is self-reported: an unsigned in-toto statement. It shows that results.json, the certificate and the badge agree, not who ran the suite; check it with \`conformance verify-certificate <dir>\`.`;
}

export const summaryWithNote = (summary: string, keyid: string | undefined) => `${summary}## Certificate\n\n${certificationNote(keyid)}\n`;

export function htmlWithNote(html: string, keyid: string | undefined): string {
  const note = escapeHtml(certificationNote(keyid)).replace(/`([^`]+)`/g, '<code>$1</code>');
  const at = html.lastIndexOf('</main>');
  const section = `<section id="certificate"><h2>Certificate</h2><p>${note}</p></section>`;
  return at < 0 ? html + section : html.slice(0, at) + section + html.slice(at);
}

/** certificate.json (signed envelope or bare statement), predicate.json and badge.svg of a run. */
export function certificateFiles(doc: RunDocument, resultsJson: string, opts: CertifyOptions): Array<[string, string]> {
  const statement = buildStatement(doc, resultsJson, { url: opts.url });
  const certificate = opts.signKey ? signEnvelope(Buffer.from(JSON.stringify(statement)), IN_TOTO_PAYLOAD_TYPE, opts.signKey) : statement;
  return [
    [CERTIFICATE_FILE, JSON.stringify(certificate, null, 2) + '\n'],
    [PREDICATE_FILE, JSON.stringify(statement.predicate, null, 2) + '\n'],
    [BADGE_FILE, renderBadge({ label: badgeLabel(!!opts.signKey), ...statement.predicate.tokenizedStocksConformance.badge })],
  ];
}
