import { escapeHtml } from '../inert-text';
import type { ReaderDocument } from '../../verdict/reader';
import { NO_SIGNER_KEY, preconfNotJudged } from '../../verdict/scope';
import type { RunStatus } from '../../verdict/status';

export interface Badge {
  label: string;
  message: string;
  color: string;
}

const COLORS = { green: '#2c9a48', limited: '#8a9a1b', incomplete: '#d9822b', red: '#cf3a2b' };

export const BADGE_LABEL = 'tokenized-stocks conformance';
/** An unsigned certificate's badge says so in its label: nothing but the publisher vouches for it. */
export const SELF_REPORTED = 'self-reported';
/**
 * A self-reported badge differs from a signed one in more than a word: another label on another
 * colour, and a grey message whatever the status, so deleting "self-reported" from the SVG still
 * leaves a badge that does not look like a signed one (a green "conformant" only on a signed one).
 */
const SELF_REPORTED_LOOK = { label: `${SELF_REPORTED} conformance claim`, labelColor: '#6e4a9e', color: '#8c8c8c' };
const SIGNED_LOOK = { labelColor: '#555' };
/** The stored run status read as the badge shows it: a lookup, never a decision. */
const QUALIFIED: Readonly<Record<RunStatus, boolean>> = { conformant: true, incomplete: false, 'non-conformant': false };
/** A conformant run's colour depends on its scope (below); the others' on their status alone. */
const STATUS_COLOR: Readonly<Record<RunStatus, string | undefined>> = { conformant: undefined, incomplete: COLORS.incomplete, 'non-conformant': COLORS.red };

/**
 * The badge's words. Only a complete, conformant run in full scope (both interfaces, a signer,
 * every group) against a remote target says plainly "conformant"; anything less says what it is:
 * what limited the scope (one qualifier, the most consequential), and whenever the target was the
 * embedded reference, that too ("embedded reference" alone, "embedded" after another, to stay short).
 */
export function badgeOf(doc: Pick<ReaderDocument, 'status' | 'scope' | 'counts' | 'target' | 'finishedAt'>): Omit<Badge, 'label'> {
  const s = doc.counts;
  const sc = doc.scope;
  // Passed of those in scope (every outcome but skipped), from the stored counts.
  const passed = s.passed + s['stale-expectation'];
  const judged = passed + s.failed + s.warning + s['known-failure'] + s['not-judged'] + s.blocked;
  let limit: string | undefined;
  // Only a conformant run's words are qualified by its scope; the others say their status alone.
  if (QUALIFIED[doc.status]) {
    if (sc.interfaces.length === 1) limit = `${sc.interfaces[0]} only`;
    else if (sc.interfaces.length === 0) limit = 'nothing judged';
    else if (preconfNotJudged(sc) === NO_SIGNER_KEY) limit = 'no signer';
    else if (!sc.full) limit = 'partial';
  }
  const embedded = sc.target === 'embedded' ? (limit ? 'embedded' : 'embedded reference') : undefined;
  // Which target and when: the host of the node judged (else of the API judged) as results.json
  // names it, masked; none for the embedded reference (a loopback port that ended with its run).
  const judgedHost = (i: 'rest' | 'rpc', url: string | null) => (sc.interfaces.includes(i) ? hostOf(url) : undefined);
  const host = sc.target === 'embedded' ? undefined : (judgedHost('rpc', doc.target.rpcUrl) ?? judgedHost('rest', doc.target.baseUrl));
  const day = /^\d{4}-\d{2}-\d{2}/.exec(doc.finishedAt ?? '')?.[0];
  const message = [doc.status, limit, embedded, sc.profile, `${passed}/${judged}`, host, day].filter((w) => w !== undefined).join(' · ');
  const color = STATUS_COLOR[doc.status] ?? (limit || embedded ? COLORS.limited : COLORS.green);
  return { message, color };
}

function hostOf(url: string | null): string | undefined {
  try {
    return url ? new URL(url).host : undefined;
  } catch {
    return undefined;
  }
}

/** The label a badge carries: the suite's name when the certificate is signed, the self-reported claim's otherwise. */
export const badgeLabel = (signed: boolean) => (signed ? BADGE_LABEL : SELF_REPORTED_LOOK.label);

const xml = escapeHtml;

/** Approximate advance widths of 11 px Verdana/DejaVu Sans, enough to size the two halves. */
function textWidth(s: string): number {
  let w = 0;
  for (const ch of s)
    w += /[il.,:;'|!·\s()]/.test(ch) ? 3.6 : /[mwMW]/.test(ch) ? 10 : /[A-Z]/.test(ch) ? 7.6 : /[0-9]/.test(ch) ? 7 : /[ft/rj-]/.test(ch) ? 4.6 : 6.6;
  return Math.ceil(w);
}

/**
 * A small self-contained SVG (no fonts, scripts or links to fetch) in the familiar two-part badge
 * shape; `signed` says whether the certificate beside it is a signed envelope (its look, above).
 */
export function renderBadge(badge: Omit<Badge, 'label'>, signed: boolean): string {
  const look = signed ? { ...SIGNED_LOOK, label: BADGE_LABEL, color: badge.color } : SELF_REPORTED_LOOK;
  const { label, color, labelColor } = look;
  const { message } = badge;
  const lw = textWidth(label) + 12;
  const mw = textWidth(message) + 12;
  const w = lw + mw;
  const title = `${label}: ${message}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${xml(title)}"><title>${xml(title)}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="${labelColor}"/><rect x="${lw}" width="${mw}" height="20" fill="${color}"/><rect width="${w}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${lw / 2}" y="15" fill="#010101" fill-opacity=".3">${xml(label)}</text><text x="${lw / 2}" y="14">${xml(label)}</text>
<text x="${lw + mw / 2}" y="15" fill="#010101" fill-opacity=".3">${xml(message)}</text><text x="${lw + mw / 2}" y="14">${xml(message)}</text>
</g></svg>
`;
}
