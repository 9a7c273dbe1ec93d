import { existsSync, readdirSync, statSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { validateRef } from '../../harness/schemas';
import { renderHtml } from '../reporters/html';
import { renderJunit } from '../reporters/junit';
import { renderSummary } from '../reporters/summary';
import { countOutcomes, countSections, decide } from '../../verdict/outcome';
import { deriveScope } from '../../verdict/scope';
import { factsOf } from '../../verdict/status';
import type { RunDocument } from '../../verdict/document';
import { readerDocument, type ReaderDocument } from '../../verdict/reader';
import { sealVerdict } from '../../verdict/seal';
import { badgeLabel, renderBadge } from './badge';
import { verifyEnvelope } from './dsse';
import { boundedJson, MAX_CERTIFICATE_BYTES, MAX_RESULTS_BYTES, MAX_RESULTS_DEPTH, NotAFile, openCertificate, readCertifiedFile, Refused } from './open';
import { buildStatement, sha256, type Statement } from './statement';
import { BADGE_FILE, CERTIFICATE_FILE, htmlWithNote, PREDICATE_FILE, summaryWithNote, uncertifiable } from './write';

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
  /** The signer's public key: the certificate must be an envelope whose one signature verifies with it. */
  key?: KeyObject;
  /** The certificate must be about this endpoint (its origin). */
  target?: string;
  /** The certificate must be at most this old (from the run's end). */
  maxAgeSec?: number;
  now?: Date;
}

/**
 * What a verifier may say of a certificate: `verified` only when it checked the one signature with
 * a key it was given and every published file agrees; `no-key` when the files agree but a
 * signature went unchecked (no key given); `self-reported` when the files agree and nothing is
 * signed; `rejected` on any reason to reject.
 */
export type Verdict = 'verified' | 'no-key' | 'self-reported' | 'rejected';

export interface Verification {
  verdict: Verdict;
  /** The statement, when certificate.json could be opened as one. */
  statement?: Statement;
  /** null: no envelope (a bare statement, self-reported); else the keyid its one signature names and whether this verifier checked it. */
  signature: { keyid: string; checked: boolean } | null;
  /** Every reason to reject, in words; none: the files agree with the statement. */
  differences: string[];
  /** The SHA-256 of the results.json beside it, computed here (never read from the certificate). */
  resultsSha256?: string;
  /** The files the statement covers (every file of the directory but certificate.json), when all agree. */
  covered: readonly string[];
}

type Render = (ctx: { doc: ReaderDocument; statement: Statement; keyid: string | undefined; signed: boolean }) => string;
/**
 * Every file a certified directory publishes beside certificate.json, in the order they are
 * written, with how the verifier makes it again from results.json to compare byte for byte
 * (results.json itself is the source). A file not named here is not accepted in the directory.
 */
export const PUBLISHED: ReadonlyArray<readonly [string, Render | undefined]> = [
  ['results.json', undefined],
  ['junit.xml', ({ doc }) => renderJunit(doc)],
  ['summary.md', ({ doc, keyid }) => summaryWithNote(renderSummary(doc), keyid)],
  ['report.html', ({ doc, keyid }) => htmlWithNote(renderHtml(doc), keyid)],
  [PREDICATE_FILE, ({ statement }) => JSON.stringify(statement.predicate, null, 2) + '\n'],
  [BADGE_FILE, ({ statement, signed }) => renderBadge(statement.predicate.tokenizedStocksConformance.badge, signed)],
];
const PUBLISHED_NAMES = PUBLISHED.map(([name]) => name);

/** results.json again, with its verdict (status, exit code, headline, root causes), scope and counts re-derived from its checks. */
function rederive(doc: RunDocument): { doc: RunDocument; differences: string[] } {
  const facts = factsOf(doc);
  // Each stored outcome and effect decided again from the check's own facts, so an edited one is caught like an edited count.
  // A blocker is the runner's, decided in the seal and never written: one in a document is ignored here, and said below.
  const decided = doc.checks.map(({ blocker: _, ...r }) => ({ ...r, ...decide(r) }));
  const { checks, status, statusReasons, exitCode, headline, rootCauses } = sealVerdict(decided, facts, () => doc.scope);
  const counts = countOutcomes(checks);
  const sections = countSections(checks);
  const out = differences(
    'results.json',
    {
      status: doc.status,
      statusReasons: doc.statusReasons,
      exitCode: doc.exitCode,
      headline: doc.headline,
      rootCauses: doc.rootCauses,
      counts: doc.counts,
      sections: doc.sections,
    },
    { status, statusReasons, exitCode, headline, rootCauses, counts, sections },
  );
  const interrupted = uncertifiable(doc);
  if (interrupted) out.push(`results.json: ${interrupted}`);
  doc.checks.forEach((r, i) => {
    // A certificate states what the target did: a failure counted as known (--expectations) is not certifiable.
    if (r.expectation !== undefined) out.push(`results.json checks[${i}] (${r.id}) carries an expectation: a certificate never counts a failure as known`);
    if (r.blocker !== undefined) out.push(`results.json checks[${i}] (${r.id}) carries a blocker: results.json holds what the seal decided of it`);
    if (r.outcome !== checks[i].outcome) out.push(`results.json checks[${i}] (${r.id}) outcome: says ${r.outcome}, its facts give ${checks[i].outcome}`);
    if (r.effect !== checks[i].effect) out.push(`results.json checks[${i}] (${r.id}) effect: says ${r.effect}, its facts give ${checks[i].effect}`);
    const s = r.samples;
    // The schema holds each field's range and what a pass or a failure may keep; the counts' sums are checked here.
    if (s && (s.judged + s.notJudged !== s.n || s.failed > s.judged || s.shown >= s.n))
      out.push(
        `results.json checks[${i}] (${r.id}) samples: ${s.failed} failed of ${s.judged} judged and ${s.notJudged} not judged, shown ${s.shown}, do not add up to its ${s.n} samples`,
      );
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
  for (const d of differences('results.json scope', doc.scope, scope)) out.push(d);
  return { doc: { ...doc, checks, status, statusReasons, exitCode, headline, rootCauses, scope, counts, sections }, differences: out };
}

const hours = (sec: number) => (sec < 7200 ? `${Math.round(sec / 60)} min` : `${Math.round(sec / 3600)} h`);

const originOf = (url: string | null) => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

const quote = (s: string) => JSON.stringify(s.slice(0, 80));

/**
 * The statement's subjects against the directory: exactly the files the suite publishes, each
 * once, each present with the SHA-256 stated, and no other file in the directory. Each file's
 * size is checked before it is read, and its bytes are only hashed; results.json's are kept, read
 * once, for the caller to parse only if nothing here gave a reason to reject.
 */
function coverage(dir: string, statement: Statement): { out: string[]; results?: Buffer } {
  const out: string[] = [];
  let results: Buffer | undefined;
  const stated = new Map<string, string>();
  // A statement of this suite names its few published files: more entries than twice those are one reason, not one each.
  if (statement.subject.length > 2 * PUBLISHED_NAMES.length)
    out.push(`subject: ${statement.subject.length} entries, where a certificate of this suite names the ${PUBLISHED_NAMES.length} files it publishes`);
  else
    statement.subject.forEach((s: unknown, i) => {
      const entry = s as Statement['subject'][number];
      const ok =
        typeof s === 'object' &&
        s !== null &&
        JSON.stringify(Object.keys(s)) === '["name","digest"]' &&
        typeof entry.name === 'string' &&
        typeof entry.digest === 'object' &&
        entry.digest !== null &&
        JSON.stringify(Object.keys(entry.digest)) === '["sha256"]';
      if (!ok) return void out.push(`subject ${i}: not {name, digest: {sha256}}`);
      if (stated.has(entry.name)) out.push(`subject: ${quote(entry.name)} is named more than once`);
      else if (!PUBLISHED_NAMES.includes(entry.name)) out.push(`subject: ${quote(entry.name)} is not a file this suite publishes`);
      stated.set(entry.name, String(entry.digest.sha256));
    });
  for (const name of PUBLISHED_NAMES) {
    const file = path.join(dir, name);
    if (!stated.has(name)) out.push(`subject: ${name} is not covered by the statement`);
    else if (!existsSync(file)) out.push(`${name}: covered by the statement, but not in the directory`);
    else {
      let hash: string;
      try {
        const bytes = readCertifiedFile(file, MAX_RESULTS_BYTES);
        if (name === 'results.json') results = bytes;
        hash = sha256(bytes);
      } catch (err) {
        if (err instanceof Refused) {
          out.push(err.message);
          continue;
        }
        throw err;
      }
      if (hash !== stated.get(name)) out.push(`${name}: SHA-256 is ${hash}, the certificate says ${stated.get(name)} (${name} changed after it was certified)`);
    }
  }
  for (const name of readdirSync(dir).sort())
    if (name !== CERTIFICATE_FILE && !PUBLISHED_NAMES.includes(name))
      out.push(
        `${quote(name)}: a file the certificate does not cover (a certified directory holds ${[...PUBLISHED_NAMES, CERTIFICATE_FILE].join(', ')} and nothing else)`,
      );
  return { out, ...(results ? { results } : {}) };
}

function verdictOf(v: Omit<Verification, 'verdict'>): Verdict {
  if (v.differences.length > 0) return 'rejected';
  if (!v.signature) return 'self-reported';
  return v.signature.checked ? 'verified' : 'no-key';
}

/**
 * Check a certified report directory: certificate.json read strictly; its one signature (with a
 * key); that the statement covers every file of the directory by SHA-256; that results.json's
 * verdict is what its checks give; that the statement and every other published file say exactly
 * what results.json gives (made again and compared byte for byte); and, when asked, that it is
 * about a given target and recent enough. Returns every reason to reject, and the verdict.
 */
export function verifyCertificate(dir: string, opts: VerifyOptions = {}): Verification {
  try {
    const v = verifyFiles(dir, opts);
    return { ...v, verdict: verdictOf(v) };
  } catch (err) {
    // A FIFO, a device or a directory where a file of the certified directory should be: a usage error.
    if (err instanceof NotAFile) throw new VerifyError(`${err.message} (verify-certificate reads only regular files)`);
    throw err;
  }
}

function verifyFiles(dir: string, opts: VerifyOptions): Omit<Verification, 'verdict'> {
  const file = (name: string) => path.join(dir, name);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new VerifyError(`${dir}: no such directory (name the certified report directory)`);
  if (!existsSync(file(CERTIFICATE_FILE)))
    throw new VerifyError(`${file(CERTIFICATE_FILE)} not found (a certified report directory holds results.json and certificate.json)`);
  const rejected = (why: string[], rest: Partial<Omit<Verification, 'verdict'>> = {}): Omit<Verification, 'verdict'> => ({
    signature: null,
    ...rest,
    covered: [],
    differences: why,
  });
  let opened: ReturnType<typeof openCertificate>;
  try {
    opened = openCertificate(readCertifiedFile(file(CERTIFICATE_FILE), MAX_CERTIFICATE_BYTES));
  } catch (err) {
    if (err instanceof Refused) return rejected([err.message]);
    throw err;
  }
  const { statement, envelope } = opened;
  const out: string[] = [];
  const keyid = envelope?.signatures[0].keyid;
  const signature = keyid !== undefined ? { keyid, checked: false } : null;
  if (opts.key) {
    if (!envelope) out.push(`${CERTIFICATE_FILE} is not signed (self-reported), but --key asks for a signature`);
    else {
      const checked = verifyEnvelope(envelope, opts.key);
      signature!.checked = checked.ok;
      if (!checked.ok) out.push(`signature: ${checked.why}`);
    }
  }
  const covered = coverage(dir, statement);
  for (const d of covered.out) out.push(d);
  const resultsBytes = covered.results;
  if (!resultsBytes) return rejected(out, { statement, signature });
  const hash = sha256(resultsBytes);
  // Size, signature and digests before any parsing: a results.json that is not the one certified
  // (or beside a file that is not) is rejected unread, whatever its size or shape.
  if (out.length) return rejected(out, { statement, signature, resultsSha256: hash });
  let doc: RunDocument;
  try {
    doc = boundedJson(resultsBytes, 'results.json', MAX_RESULTS_BYTES, MAX_RESULTS_DEPTH) as RunDocument;
  } catch (err) {
    if (err instanceof Refused) return rejected([...out, err.message], { statement, signature, resultsSha256: hash });
    throw err;
  }
  const done = (why: string[]) => ({ statement, signature, resultsSha256: hash, differences: why, covered: why.length ? [] : PUBLISHED_NAMES });
  if (!Array.isArray(doc?.checks) || !doc.scope || !doc.target)
    return done(out.concat('results.json lacks checks, scope or target: not a results document of this suite'));
  // Nothing is re-derived from a document that breaks its own contract: that alone rejects it.
  const schema = validateRef('results.json', doc);
  if (!schema.valid) return done(out.concat(schema.errors.slice(0, 10).map((e) => `results.json does not match its schema: ${e}`)));
  const stated = statement.predicate.tokenizedStocksConformance;
  if (stated.suite?.version !== doc.suite?.version)
    throw new VerifyError(
      `the certificate was made by suite version ${quote(String(stated.suite?.version))}, results.json by ${quote(String(doc.suite?.version))}: verify it with that version`,
    );

  const again = rederive(doc);
  for (const d of again.differences) out.push(d);
  const expected = buildStatement(readerDocument(again.doc), resultsBytes, { url: statement.predicate.url });
  for (const d of differences(CERTIFICATE_FILE, { ...statement, subject: undefined }, { ...expected, subject: undefined })) out.push(d);

  // Every other published file is made again from results.json and must be exactly what is there.
  const ctx = { doc: readerDocument(again.doc), statement: expected, keyid, signed: !!envelope };
  const says = `"${badgeLabel(!!envelope)}: ${expected.predicate.tokenizedStocksConformance.badge.message}"`;
  for (const [name, render] of PUBLISHED) {
    if (!render || !existsSync(file(name))) continue;
    let bytes: Buffer;
    try {
      bytes = readCertifiedFile(file(name), MAX_RESULTS_BYTES);
    } catch (err) {
      if (err instanceof Refused) continue; // said once already, by coverage
      throw err;
    }
    if (!bytes.equals(Buffer.from(render(ctx)))) out.push(`${name} does not say what the certificate and results.json say (${says})`);
  }

  if (opts.target !== undefined) {
    const want = originOf(opts.target);
    // Only the endpoints of the interfaces in its scope: a URL given to the run for an interface left
    // out of its scope (--only rest with --rpc-url) was recorded, never judged.
    const judged = new Set<string>(stated.scope?.interfaces ?? []);
    const given = [
      ['rest', stated.target?.baseUrl],
      ['rpc', stated.target?.rpcUrl],
    ] as const;
    const origins = given.filter(([i]) => judged.has(i)).flatMap(([, u]) => originOf(u ?? null) ?? []);
    const unjudged = given.filter(([i]) => !judged.has(i)).flatMap(([, u]) => originOf(u ?? null) ?? []);
    if (!want || !origins.includes(want))
      out.push(
        `target: the certificate is about ${origins.join(' and ') || 'no remote target'}, not ${want ?? 'that URL'}${want && unjudged.includes(want) ? ` (the run was given ${want}, but its interface was outside the run's scope)` : ''}`,
      );
  }
  if (opts.maxAgeSec !== undefined) {
    const ageSec = ((opts.now ?? new Date()).getTime() - Date.parse(stated.date)) / 1000;
    if (!(ageSec <= opts.maxAgeSec))
      out.push(
        `age: the run finished ${stated.date}, ${Number.isFinite(ageSec) ? `${hours(ageSec)} ago` : 'at no valid date'}, older than --max-age (${hours(opts.maxAgeSec)})`,
      );
  }
  return done(out);
}
