// Reading certificate.json strictly: whoever wrote it may be hostile, so anything this suite does
// not write (a second signature, an unknown member, loose base64, a statement nested to crash a
// parser) is refused in one line before any of it is believed.
import { readRegularFile, UnreadableFile } from '../../harness/regular-file';
import { MAX_JSON_DEPTH } from '../../harness/json';
import { IN_TOTO_PAYLOAD_TYPE, type Envelope } from './dsse';
import { CONFORMANCE_FORMAT, STATEMENT_KEYS, STATEMENT_TYPE, TEST_RESULT_PREDICATE, type Statement } from './statement';
import { CERTIFICATE_FILE } from './write';

/** certificate.json is not one a verifier can accept: the one-line reason. */
export class Refused extends Error {
  override name = 'Refused';
}

/** Far above any certificate the suite writes (a few kilobytes, nested 6 levels), far below what strains a parser. */
export const MAX_CERTIFICATE_BYTES = 4 * 1024 * 1024;
export const MAX_STATEMENT_DEPTH = 32;
/**
 * The bound on results.json, and on every other file of a certified directory (each is made from
 * it), when verify-certificate or compare reads one: checked before a byte is read. A run keeps at
 * most a few KiB per value and 48 KiB of exchanges per result (harness/result.ts), so its
 * results.json is a few MiB; a certified run whose files would pass this bound is not certified
 * (write-reports.ts), so every certificate the suite makes can be verified. `npm run bench` states
 * what verifying and comparing a file near the bound costs.
 */
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;
/** results.json nests as deep as a target's answer may be kept, plus its own levels. */
export const MAX_RESULTS_DEPTH = MAX_JSON_DEPTH + 64;

/** A file of the directory cannot be read at all (not a regular file, unreadable): a usage error, exit 2. */
export class NotAFile extends Error {
  override name = 'NotAFile';
}

/**
 * A file of a certified directory, read only if it is a regular file (or a link to one) of at most
 * `maxBytes`: a FIFO there would block the read forever and a link to /dev/zero would read until
 * memory ran out, so either is NotAFile (the directory named is not a certified report directory);
 * a regular file larger than the bound is Refused unread (a reason to reject, like any other).
 */
export function readCertifiedFile(file: string, maxBytes: number): Buffer {
  try {
    return readRegularFile(file, maxBytes);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    if (err.code === 'too-large') throw new Refused(err.message);
    throw new NotAFile(err.message);
  }
}

const ENVELOPE_KEYS = ['payloadType', 'payload', 'signatures'];
const SIGNATURE_KEYS = ['keyid', 'sig'];

/**
 * What makes JSON text unfit to parse, found in one pass without recursion and without parsing:
 * nesting deeper than `maxDepth` (a hostile text would overflow the stack first), or, when
 * `duplicates` is asked, an object with a member named twice (JSON.parse keeps the last, a
 * first-wins reader or `grep -m1` the first: two readers, two verdicts). Undefined when neither.
 */
export function jsonProblem(text: string, maxDepth: number, duplicates = true): { deeper: true } | { duplicate: string } | undefined {
  // One entry per open container: the member names seen in an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x22) break;
        if (d === 0x5c) {
          escaped = true;
          i++; // the next character is escaped
        }
      }
      if (keyNext && duplicates) {
        const raw = text.slice(start, i + 1);
        const name = escaped ? decodedName(raw) : raw.slice(1, -1);
        const seen = open[open.length - 1]!;
        if (seen.has(name)) return { duplicate: name };
        seen.add(name);
      }
      keyNext = false;
    } else if (c === 0x7b || c === 0x5b) {
      if (open.length >= maxDepth) return { deeper: true };
      open.push(c === 0x7b ? new Set() : null);
      keyNext = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      keyNext = false;
    } else if (c === 0x2c) keyNext = open.length > 0 && open[open.length - 1] !== null;
  }
  return undefined;
}

/** A member name as JSON means it (`"\u0061"` is `"a"`); a malformed one is left for JSON.parse to refuse. */
function decodedName(raw: string): string {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw;
  }
}

/** Bounded JSON: refused past the size or depth bound, with a member named twice in one object, or when it does not parse. */
export function boundedJson(bytes: Buffer, name: string, maxBytes: number, maxDepth: number): unknown {
  if (bytes.length > maxBytes) throw new Refused(`${name} is ${bytes.length} bytes, more than the ${maxBytes} a certificate may have: not read`);
  const text = bytes.toString('utf8');
  const problem = jsonProblem(text, maxDepth);
  if (problem && 'deeper' in problem) throw new Refused(`${name} nests deeper than ${maxDepth} levels: not read`);
  if (problem)
    throw new Refused(
      `${name} names the member ${JSON.stringify(problem.duplicate.slice(0, 40))} twice in one object: readers would differ on which one counts, so it is not read`,
    );
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Refused(`${name} is not JSON: ${(err as Error).message}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyKeys(v: Record<string, unknown>, allowed: readonly string[], what: string): void {
  const unknown = Object.keys(v).filter((k) => !allowed.includes(k));
  if (unknown.length) throw new Refused(`${what} has member(s) this suite does not write: ${unknown.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}`);
}

/** RFC 4648 base64 with padding, nothing else: decoded and encoded again, it must be the same text. */
export function canonicalBase64(s: unknown, what: string): Buffer {
  if (typeof s !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) throw new Refused(`${what} is not canonical base64 (RFC 4648)`);
  const bytes = Buffer.from(s, 'base64');
  if (bytes.toString('base64') !== s) throw new Refused(`${what} is not canonical base64 (RFC 4648)`);
  return bytes;
}

export interface Opened {
  statement: Statement;
  /** The envelope when certificate.json is one, with its one signature. */
  envelope?: Envelope & { signatures: [{ keyid: string; sig: string }] };
}

/** The statement inside certificate.json, and its envelope when it is one. Throws Refused on anything else. */
export function openCertificate(bytes: Buffer): Opened {
  const cert = boundedJson(bytes, CERTIFICATE_FILE, MAX_CERTIFICATE_BYTES, MAX_STATEMENT_DEPTH);
  if (!isRecord(cert)) throw new Refused(`${CERTIFICATE_FILE} is not a JSON object`);
  let statement: unknown = cert;
  let envelope: Opened['envelope'];
  if ('payloadType' in cert || 'payload' in cert || 'signatures' in cert) {
    onlyKeys(cert, ENVELOPE_KEYS, `${CERTIFICATE_FILE} (a DSSE envelope)`);
    if (cert.payloadType !== IN_TOTO_PAYLOAD_TYPE)
      throw new Refused(`${CERTIFICATE_FILE}: payloadType ${JSON.stringify(cert.payloadType)?.slice(0, 80)}, expected ${IN_TOTO_PAYLOAD_TYPE}`);
    const payload = canonicalBase64(cert.payload, `${CERTIFICATE_FILE}: the payload`);
    const sigs = cert.signatures;
    if (!Array.isArray(sigs) || sigs.length !== 1)
      throw new Refused(`${CERTIFICATE_FILE}: ${Array.isArray(sigs) ? sigs.length : 'no list of'} signatures; a certificate carries exactly one`);
    const [sig] = sigs as unknown[];
    if (!isRecord(sig)) throw new Refused(`${CERTIFICATE_FILE}: the signature is not {keyid, sig}`);
    onlyKeys(sig, SIGNATURE_KEYS, `${CERTIFICATE_FILE}: the signature`);
    if (typeof sig.keyid !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(sig.keyid))
      throw new Refused(`${CERTIFICATE_FILE}: the signature's keyid is not sha256:<64 hex digits> (the SHA-256 of the public key's SPKI DER)`);
    if (canonicalBase64(sig.sig, `${CERTIFICATE_FILE}: the signature`).length === 0) throw new Refused(`${CERTIFICATE_FILE}: the signature is empty`);
    envelope = { payloadType: IN_TOTO_PAYLOAD_TYPE, payload: cert.payload as string, signatures: [{ keyid: sig.keyid, sig: sig.sig as string }] };
    statement = boundedJson(payload, `${CERTIFICATE_FILE}'s payload`, MAX_CERTIFICATE_BYTES, MAX_STATEMENT_DEPTH);
    // Signed bytes read one way only: no duplicate member another parser could take instead.
    if (JSON.stringify(statement) !== payload.toString('utf8'))
      throw new Refused(`${CERTIFICATE_FILE}'s payload is not the compact JSON this suite signs (a duplicate member, or spacing)`);
  }
  if (!isRecord(statement)) throw new Refused(`${CERTIFICATE_FILE}: the statement is not a JSON object`);
  const predicate = statement.predicate;
  const conformance = isRecord(predicate) ? predicate.tokenizedStocksConformance : undefined;
  if (
    statement._type !== STATEMENT_TYPE ||
    statement.predicateType !== TEST_RESULT_PREDICATE ||
    !isRecord(predicate) ||
    !isRecord(conformance) ||
    conformance.format !== CONFORMANCE_FORMAT
  ) {
    throw new Refused(
      `${CERTIFICATE_FILE} is not a certificate of this suite (expected an in-toto ${STATEMENT_TYPE} of ${TEST_RESULT_PREDICATE} with tokenizedStocksConformance.format ${CONFORMANCE_FORMAT}, optionally in a DSSE envelope)`,
    );
  }
  onlyKeys(statement, STATEMENT_KEYS, `${CERTIFICATE_FILE}: the statement`);
  if (!Array.isArray(statement.subject)) throw new Refused(`${CERTIFICATE_FILE}: the statement's subject is not a list`);
  return { statement: statement as unknown as Statement, ...(envelope ? { envelope } : {}) };
}
