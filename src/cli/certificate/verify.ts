import { existsSync, readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { validateRef } from '../../harness/schemas';
import { renderHtml } from '../reporters/html';
import { renderSummary } from '../reporters/summary';
import { countOutcomes, countSections, decideOutcome } from '../outcome';
import { deriveScope, deriveStatus, exitCodeFor, factsOf, type RunDocument } from '../results';
import { badgeLabel, renderBadge } from './badge';
import { IN_TOTO_PAYLOAD_TYPE, verifyEnvelope, type Envelope } from './dsse';
import { buildStatement, CONFORMANCE_FORMAT, sha256, STATEMENT_TYPE, TEST_RESULT_PREDICATE, type Statement } from './statement';
import { BADGE_FILE, CERTIFICATE_FILE, htmlWithNote, PREDICATE_FILE, summaryWithNote } from './write';

export class VerifyError extends Error {
  override name = 'VerifyError';
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

function differences(what: string, stated: unknown, derived: unknown): string[] {
  const a = leaves(stated);
  const b = leaves(derived);
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(key) !== b.get(key)) out.push(`${what} ${key || '(whole)'}: says ${a.get(key) ?? '(absent)'}, results.json gives ${b.get(key) ?? '(absent)'}`);
  }
  return out;
}

export interface VerifyOptions {
  /** The signer's public key: the certificate must be an envelope with a signature that verifies with it. */
  key?: KeyObject;
  /** The certificate must be about this endpoint (its origin). */
  target?: string;
  /** The certificate must be at most this old (from the run's end). */
  maxAgeSec?: number;
  now?: Date;
}

export interface Verification {
  statement: Statement;
  /** null: a bare statement (self-reported); else the keyids the envelope names and whether --key verified it. */
  signature: { keyids: string[]; verified: boolean } | null;
  /** Every reason to reject, in words; none: verified. */
  differences: string[];
  /** The SHA-256 of the results.json beside it, computed here (never read from the certificate). */
  resultsSha256: string;
}

function parseJson<T>(bytes: Buffer, name: string): T {
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch (err) {
    throw new VerifyError(`${name} is not JSON: ${(err as Error).message}`);
  }
}

/** The statement inside certificate.json, and its envelope when signed. Throws on what is no certificate at all. */
function openCertificate(bytes: Buffer): { statement: Statement; envelope?: Envelope } {
  const cert = parseJson<Record<string, unknown>>(bytes, CERTIFICATE_FILE);
  let statement: Statement;
  let envelope: Envelope | undefined;
  if (cert && typeof cert.payloadType === 'string') {
    envelope = cert as unknown as Envelope;
    if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
      throw new VerifyError(`${CERTIFICATE_FILE}: payloadType ${JSON.stringify(envelope.payloadType)}, expected ${IN_TOTO_PAYLOAD_TYPE}`);
    if (typeof envelope.payload !== 'string' || Buffer.from(envelope.payload, 'base64').toString('base64') !== envelope.payload)
      throw new VerifyError(`${CERTIFICATE_FILE}: the payload is not canonical base64`);
    if (!Array.isArray(envelope.signatures) || envelope.signatures.some((s) => typeof s?.sig !== 'string'))
      throw new VerifyError(`${CERTIFICATE_FILE}: signatures is not a list of {keyid, sig}`);
    statement = parseJson<Statement>(Buffer.from(envelope.payload, 'base64'), `${CERTIFICATE_FILE}'s payload`);
  } else statement = cert as unknown as Statement;
  if (
    statement?._type !== STATEMENT_TYPE ||
    statement.predicateType !== TEST_RESULT_PREDICATE ||
    statement.predicate?.tokenizedStocksConformance?.format !== CONFORMANCE_FORMAT
  ) {
    throw new VerifyError(
      `${CERTIFICATE_FILE} is not a certificate of this suite (expected an in-toto ${STATEMENT_TYPE} of ${TEST_RESULT_PREDICATE} with tokenizedStocksConformance.format ${CONFORMANCE_FORMAT}, optionally in a DSSE envelope)`,
    );
  }
  return { statement, envelope };
}

/** results.json again, with its status, scope, exit code and counts re-derived from its checks. */
function rederive(doc: RunDocument): { doc: RunDocument; differences: string[] } {
  const facts = factsOf(doc);
  // Each stored outcome decided again from the check's own facts, so an edited outcome is caught like an edited count.
  const checks = doc.checks.map((r) => ({ ...r, outcome: decideOutcome(r) }));
  const { status, reasons } = deriveStatus(checks, facts, doc.scope);
  const counts = countOutcomes(checks);
  const sections = countSections(checks);
  const exitCode = exitCodeFor(status, facts);
  const out = differences(
    'results.json',
    { status: doc.status, statusReasons: doc.statusReasons, exitCode: doc.exitCode, counts: doc.counts, sections: doc.sections },
    { status, statusReasons: reasons, exitCode, counts, sections },
  );
  doc.checks.forEach((r, i) => {
    if (r.outcome !== checks[i].outcome) out.push(`results.json checks[${i}] (${r.id}) outcome: says ${r.outcome}, its facts give ${checks[i].outcome}`);
  });
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
  return { doc: { ...doc, checks, status, statusReasons: reasons, exitCode, scope, counts, sections }, differences: out };
}

const hours = (sec: number) => (sec < 7200 ? `${Math.round(sec / 60)} min` : `${Math.round(sec / 3600)} h`);

const originOf = (url: string | null) => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Check a certified report directory: the signature (with a key), that the statement is about
 * the results.json beside it (SHA-256), that results.json's verdict is what its checks give, that
 * the statement, predicate.json, badge.svg, summary.md and report.html say what results.json gives,
 * and, when asked, that it is about a given target and recent enough. Returns every reason to reject.
 */
export function verifyCertificate(dir: string, opts: VerifyOptions = {}): Verification {
  const file = (name: string) => path.join(dir, name);
  const read = (name: string) => {
    if (!existsSync(file(name))) throw new VerifyError(`${file(name)} not found (a certified report directory holds results.json and certificate.json)`);
    return readFileSync(file(name));
  };
  const { statement, envelope } = openCertificate(read(CERTIFICATE_FILE));
  const resultsBytes = read('results.json');
  const out: string[] = [];
  const keyids = envelope ? envelope.signatures.map((s) => s.keyid ?? '(no keyid)') : [];
  const signature = envelope ? { keyids, verified: false } : null;
  if (opts.key) {
    if (!envelope) out.push(`${CERTIFICATE_FILE} is not signed (self-reported), but --key asks for a signature`);
    else {
      const v = verifyEnvelope(envelope, opts.key);
      signature!.verified = v.ok;
      if (!v.ok) out.push(`signature: ${v.why}`);
    }
  }

  // Exactly one subject, results.json: anything else beside it would be vouched for unchecked.
  const subjects = Array.isArray(statement.subject) ? statement.subject : [];
  const subject = subjects.length === 1 && subjects[0]?.name === 'results.json' ? subjects[0] : undefined;
  const hash = sha256(resultsBytes);
  if (!subject) out.push(`subject: the certificate must name exactly one subject, results.json (it names ${subjects.length})`);
  else if (subject.digest?.sha256 !== hash)
    out.push(`results.json: SHA-256 is ${hash}, the certificate says ${subject.digest?.sha256} (results.json changed after it was certified)`);
  const doc = parseJson<RunDocument>(resultsBytes, 'results.json');
  if (!Array.isArray(doc?.checks) || !doc.scope || !doc.target)
    throw new VerifyError('results.json lacks checks, scope or target: not a results document of this suite');
  // Nothing is re-derived from a document that breaks its own contract: that alone rejects it.
  const schema = validateRef('results.json', doc);
  if (!schema.valid)
    return {
      statement,
      signature,
      resultsSha256: hash,
      differences: [...out, ...schema.errors.slice(0, 10).map((e) => `results.json does not match its schema: ${e}`)],
    };
  const stated = statement.predicate.tokenizedStocksConformance;
  if (stated.suite?.version !== doc.suite?.version)
    throw new VerifyError(`the certificate was made by suite version ${stated.suite?.version}, results.json by ${doc.suite?.version}`);

  const again = rederive(doc);
  out.push(...again.differences);
  const expected = buildStatement(again.doc, resultsBytes, { url: statement.predicate.url });
  out.push(...differences(CERTIFICATE_FILE, { ...statement, subject: undefined }, { ...expected, subject: undefined }));

  // The files beside it, when published, must say what the statement says.
  const keyid = envelope ? keyids[0] : undefined;
  const beside: Array<[string, () => string]> = [
    [BADGE_FILE, () => renderBadge({ label: badgeLabel(!!envelope), ...expected.predicate.tokenizedStocksConformance.badge })],
    [PREDICATE_FILE, () => JSON.stringify(statement.predicate, null, 2) + '\n'],
    ['summary.md', () => summaryWithNote(renderSummary(again.doc), keyid)],
    ['report.html', () => htmlWithNote(renderHtml(again.doc), keyid)],
  ];
  for (const [name, render] of beside) {
    if (existsSync(file(name)) && readFileSync(file(name), 'utf8') !== render())
      out.push(
        `${name} does not say what the certificate and results.json say ("${badgeLabel(!!envelope)}: ${expected.predicate.tokenizedStocksConformance.badge.message}")`,
      );
  }

  if (opts.target !== undefined) {
    const want = originOf(opts.target);
    const origins = [stated.target?.baseUrl, stated.target?.rpcUrl].map((u) => originOf(u ?? null)).filter((o): o is string => !!o);
    if (!want || !origins.includes(want))
      out.push(`target: the certificate is about ${origins.join(' and ') || 'no remote target'}, not ${want ?? 'that URL'}`);
  }
  if (opts.maxAgeSec !== undefined) {
    const ageSec = ((opts.now ?? new Date()).getTime() - Date.parse(stated.date)) / 1000;
    if (!(ageSec <= opts.maxAgeSec))
      out.push(
        `age: the run finished ${stated.date}, ${Number.isFinite(ageSec) ? `${hours(ageSec)} ago` : 'at no valid date'}, older than --max-age (${hours(opts.maxAgeSec)})`,
      );
  }
  return { statement, signature, resultsSha256: hash, differences: out };
}
