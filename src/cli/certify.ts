import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { latencyOf } from './reporters/metrics';
import { bySection, escapeHtml } from './reporters/shared';
import { deriveScope, deriveStatus, exitCodeFor, factsOf, NO_SIGNER_KEY, preconfNotJudged, summarize, type RunDocument, type RunScope, type RunStatus } from './results';

export const CERTIFICATE_FORMAT = 'tokenized-stocks-conformance-certificate/1';

/**
 * certificate.json: what a run established, bound to the exact bytes of its results.json by
 * SHA-256. It is not signed: it lets a reader check that a published results.json and its
 * certificate and badge agree (verify-certificate), not who produced them.
 */
export interface Certificate {
  format: typeof CERTIFICATE_FORMAT;
  suite: { name: string; version: string };
  spec: { version: string };
  status: RunStatus;
  exitCode: number;
  scope: Pick<RunScope, 'profile' | 'signer' | 'archive' | 'interfaces' | 'groups' | 'target' | 'full' | 'notJudged'> & { grep?: string };
  /** As results.json has it: secrets already redacted there. */
  target: { baseUrl: string | null; rpcUrl: string | null; embedded: boolean };
  date: string;
  totals: { passed: number; failed: number; inconclusive: number; skipped: number };
  /** Counts by primary spec section. */
  sections: Record<string, { passed: number; failed: number; inconclusive: number; skipped: number }>;
  /** Send → visible at "pending", when the run measured it. */
  preconfLatencyMs: { n: number; p50: number; p95: number } | null;
  badge: { label: string; message: string; color: string };
  results: { file: 'results.json'; sha256: string };
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

const COLORS = { green: '#2c9a48', limited: '#8a9a1b', incomplete: '#d9822b', red: '#cf3a2b' };

/**
 * The badge's words. Only a complete, conformant run in full scope (both interfaces, a signer,
 * every group) against a remote target says plainly "conformant"; anything less says what it is:
 * what limited the scope (one qualifier, the most consequential), and whenever the target was the
 * embedded reference, that too ("embedded reference" alone, "embedded" after another, to stay short).
 */
export function badgeOf(doc: Pick<RunDocument, 'status' | 'scope' | 'summary'>): Certificate['badge'] {
  const s = doc.summary;
  const sc = doc.scope;
  const judged = s.passed + s.failed + s.inconclusive;
  const label = 'tokenized-stocks conformance';
  let limit: string | undefined;
  if (doc.status === 'conformant') {
    if (sc.interfaces.length === 1) limit = `${sc.interfaces[0]} only`;
    else if (sc.interfaces.length === 0) limit = 'nothing judged';
    else if (preconfNotJudged(sc) === NO_SIGNER_KEY) limit = 'no signer';
    else if (!sc.full) limit = 'partial';
  }
  const embedded = sc.target === 'embedded' ? (limit ? 'embedded' : 'embedded reference') : undefined;
  const message = [doc.status, limit, embedded, sc.profile, `${s.passed}/${judged}`].filter((w) => w !== undefined).join(' · ');
  const color = doc.status === 'non-conformant' ? COLORS.red : doc.status === 'incomplete' ? COLORS.incomplete : limit || embedded ? COLORS.limited : COLORS.green;
  return { label, message, color };
}

/** Build the certificate of a run from its document and the exact text written as results.json. */
export function buildCertificate(doc: RunDocument, resultsJson: string | Buffer): Certificate {
  const sections: Certificate['sections'] = {};
  for (const g of bySection(doc.checks)) sections[g.section] = { passed: g.passed, failed: g.failed, inconclusive: g.inconclusive, skipped: g.skipped };
  const latency = latencyOf(doc.checks);
  const { profile, signer, archive, interfaces, groups, target, full, notJudged, grep } = doc.scope;
  return {
    format: CERTIFICATE_FORMAT,
    suite: { name: doc.suite.name, version: doc.suite.version },
    spec: { version: doc.spec.version },
    status: doc.status,
    exitCode: doc.exitCode,
    scope: { profile, signer, archive, interfaces, groups, target, full, notJudged, ...(grep !== undefined ? { grep } : {}) },
    target: { baseUrl: doc.target.baseUrl, rpcUrl: doc.target.rpcUrl, embedded: doc.target.embedded },
    date: doc.finishedAt,
    totals: { passed: doc.summary.passed, failed: doc.summary.failed, inconclusive: doc.summary.inconclusive, skipped: doc.summary.skipped },
    sections,
    preconfLatencyMs: latency?.all ? { n: latency.all.n, p50: latency.all.p50, p95: latency.all.p95 } : null,
    badge: badgeOf(doc),
    results: { file: 'results.json', sha256: sha256(resultsJson) },
  };
}

const xml = escapeHtml;

/** Approximate advance widths of 11 px Verdana/DejaVu Sans, enough to size the two halves. */
function textWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += /[il.,:;'|!·\s]/.test(ch) ? 3.6 : /[mwMW]/.test(ch) ? 10 : /[A-Z]/.test(ch) ? 7.6 : /[0-9]/.test(ch) ? 7 : /[ft/rj-]/.test(ch) ? 4.6 : 6.6;
  return Math.ceil(w);
}

/** A small self-contained SVG (no fonts, scripts or links to fetch) in the familiar two-part badge shape. */
export function renderBadge(cert: Pick<Certificate, 'badge'>): string {
  const { label, message, color } = cert.badge;
  const lw = textWidth(label) + 12;
  const mw = textWidth(message) + 12;
  const w = lw + mw;
  const title = `${label}: ${message}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${xml(title)}"><title>${xml(title)}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${mw}" height="20" fill="${color}"/><rect width="${w}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${lw / 2}" y="15" fill="#010101" fill-opacity=".3">${xml(label)}</text><text x="${lw / 2}" y="14">${xml(label)}</text>
<text x="${lw + mw / 2}" y="15" fill="#010101" fill-opacity=".3">${xml(message)}</text><text x="${lw + mw / 2}" y="14">${xml(message)}</text>
</g></svg>
`;
}

/** Leaf paths of a JSON value with their values, for a readable difference; a list of plain values is one leaf. */
function leaves(v: unknown, at = '', out = new Map<string, string>()): Map<string, string> {
  const plainList = Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object');
  if (v !== null && typeof v === 'object' && !plainList) {
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    if (entries.length === 0) out.set(at, JSON.stringify(v));
    for (const [k, x] of entries) leaves(x, at ? `${at}.${k}` : k, out);
  } else if (v !== undefined) out.set(at, JSON.stringify(v));
  return out;
}

export function differences(what: string, stated: unknown, derived: unknown): string[] {
  const a = leaves(stated);
  const b = leaves(derived);
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(key) !== b.get(key)) out.push(`${what} ${key || '(whole)'}: says ${a.get(key) ?? '(absent)'}, results.json gives ${b.get(key) ?? '(absent)'}`);
  }
  return out;
}

export class VerifyError extends Error {
  override name = 'VerifyError';
}

/**
 * Check a certified report directory: the SHA-256 of results.json against the certificate, the
 * status and scope stored in results.json against what its checks give, and the certificate and
 * badge against what results.json gives. Returns every difference found (none: they match).
 */
export function verifyCertificate(dir: string): { certificate: Certificate; differences: string[] } {
  const read = (name: string) => {
    const file = path.join(dir, name);
    if (!existsSync(file)) throw new VerifyError(`${file} not found (a certified report directory holds results.json and certificate.json)`);
    return readFileSync(file);
  };
  const certBytes = read('certificate.json');
  const resultsBytes = read('results.json');
  let certificate: Certificate;
  let doc: RunDocument;
  try {
    certificate = JSON.parse(certBytes.toString('utf8')) as Certificate;
  } catch (err) {
    throw new VerifyError(`certificate.json is not JSON: ${(err as Error).message}`);
  }
  if (certificate?.format !== CERTIFICATE_FORMAT) throw new VerifyError(`certificate.json is not a certificate of this suite (format ${JSON.stringify(certificate?.format)}, expected ${CERTIFICATE_FORMAT})`);
  const out: string[] = [];
  const hash = sha256(resultsBytes);
  if (hash !== certificate.results?.sha256) out.push(`results.json: SHA-256 is ${hash}, the certificate says ${certificate.results?.sha256} (results.json changed after it was certified)`);
  try {
    doc = JSON.parse(resultsBytes.toString('utf8')) as RunDocument;
  } catch (err) {
    return { certificate, differences: [...out, `results.json is not JSON: ${(err as Error).message}`] };
  }
  if (!Array.isArray(doc.checks) || !doc.scope || !doc.target) return { certificate, differences: [...out, 'results.json lacks checks, scope or target: not a results document of this suite'] };

  // The verdict again, from the checks themselves.
  const facts = factsOf(doc);
  const { status, reasons } = deriveStatus(doc.checks, facts, doc.scope);
  const summary = summarize(doc.checks);
  out.push(...differences('results.json', { status: doc.status, statusReasons: doc.statusReasons, exitCode: doc.exitCode, summary: doc.summary }, { status, statusReasons: reasons, exitCode: exitCodeFor(status, facts), summary }));
  const scope = deriveScope(doc.checks, {
    only: doc.scope.groups ?? [],
    grep: doc.scope.grep,
    profile: doc.target.profile,
    embedded: doc.target.embedded,
    baseUrl: doc.target.baseUrl,
    rpcUrl: doc.target.rpcUrl,
    signer: doc.scope.signer,
    archive: doc.scope.archive,
    required: doc.scope.required,
  });
  out.push(...differences('results.json scope', doc.scope, scope));
  const rederived: RunDocument = { ...doc, status, statusReasons: reasons, exitCode: exitCodeFor(status, facts), scope, summary };
  const expected = buildCertificate(rederived, resultsBytes);
  out.push(...differences('certificate.json', { ...certificate, results: undefined }, { ...expected, results: undefined }));
  const badgeFile = path.join(dir, 'badge.svg');
  if (existsSync(badgeFile) && readFileSync(badgeFile, 'utf8') !== renderBadge(expected)) out.push(`badge.svg does not show what results.json gives ("${expected.badge.message}")`);
  return { certificate, differences: out };
}
