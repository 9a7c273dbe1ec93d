// What `conformance verify-certificate` says and the exit code it ends with, once its flags are read.
// Exit 0 means verified: one signature checked with a key the verifier gave, every published file
// agreeing, or, only when the verifier opts in with --allow-self-reported, an unsigned claim said to
// be one on every line.
import { readerCheck, type ReaderCheck } from '../../verdict/reader';
import type { KeyObject } from 'node:crypto';
import { scopeWords } from '../../verdict/scope';
import { jsonForLogs } from '../inert-text';
import { violatedSection } from '../../harness/result';
import { ConfigError, loadConfig } from '../config';
import type { Egress } from '../egress';
import { samplingLine } from '../../harness/sampling';
import { EXIT_CODE, type RunStatus } from '../../verdict/status';
import { SELF_REPORTED } from './badge';
import { liveRecheck, LiveError, type LiveOutcome } from './live';
import { verifyCertificate, VerifyError, type Verdict, type Verification } from './verify';

export interface VerifyRequest {
  dir: string;
  key?: KeyObject;
  target?: string;
  maxAgeSec?: number;
  /** Accept a certificate nobody vouches for (unsigned, or signed but no key given), said to be self-reported. */
  allowSelfReported?: boolean;
  /** Re-run the certified read-only checks against the target, with these run flags. */
  live?: { runArgs: string[] };
  /** Accept only a certificate of this status: one of any other, authentic or not, exits 1. */
  requireStatus?: RunStatus;
  /** One JSON document on stdout instead of lines (VerifyDocument). */
  json?: boolean;
}

interface Io {
  out: Pick<NodeJS.WriteStream, 'write'>;
  err: Pick<NodeJS.WriteStream, 'write'>;
}

/** A line as shown: cut to `max` characters (what other people's files say can be any length). */
export function cap(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A reason as one bounded console line: it may quote what the target answered. */
const oneLine = (s: string, max = 200) => cap(s.split('\n')[0], max);

/** A reason to reject, or an error, as one bounded line: it may quote the certificate's own text, which may hold line breaks. */
const reasonLine = (s: string) => cap(s.replace(/\s*[\r\n]+\s*/g, ' '), 400);

/** The reasons shown: the first MAX_REASONS_SHOWN, then how many more there are (a hostile certificate can give thousands). */
const MAX_REASONS_SHOWN = 50;
function shownReasons(reasons: readonly string[]): string[] {
  const shown = reasons.slice(0, MAX_REASONS_SHOWN).map(reasonLine);
  if (reasons.length > MAX_REASONS_SHOWN) shown.push(`… and ${reasons.length - MAX_REASONS_SHOWN} more, not shown`);
  return shown;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What the certificate states, said first: a verified certificate is authentic, which is not the
 * same as conformant, and a script reading the first line must not take one for the other.
 */
function statusFirst(status: string): string {
  const other = status === 'conformant' ? '' : ' (verified means authentic, not conformant: --require-status conformant exits 1 for any other status)';
  return `certified status: ${cap(status, 40)}${other}\n`;
}

/** The words of a verdict that is not a rejection: how the certificate is vouched for, and what it says. */
function accepted(v: Verification): string {
  const c = v.statement!.predicate.tokenizedStocksConformance;
  const what = `${plural(v.covered.length, 'file')} covered, each matching its SHA-256 (results.json ${v.resultsSha256}), badge "${cap(c.badge.message, 160)}"`;
  if (v.verdict === 'verified') return `certificate VERIFIED: signed by ${v.signature!.keyid}, signature checked with --key; ${what}\n`;
  const how = v.signature ? `signature not checked (no --key; the envelope names ${v.signature.keyid})` : 'not signed, so nobody vouches for who ran the suite';
  return `certificate ${SELF_REPORTED.toUpperCase()}, not verified (accepted with --allow-self-reported): ${how}; ${what}\n`;
}

/** Checks not judged now, counted by cause, with the most frequent cause's first reason as the root: one line. */
function notJudgedLine(unjudged: ReaderCheck[]): string {
  const byCause = new Map<string, ReaderCheck[]>();
  for (const r of unjudged) byCause.set(r.notJudgedBecause ?? r.outcome, [...(byCause.get(r.notJudgedBecause ?? r.outcome) ?? []), r]);
  const counts = [...byCause.entries()].sort((a, b) => b[1].length - a[1].length);
  return `live: could not judge ${plural(unjudged.length, 'certified check')} now (${counts.map(([cause, rs]) => `${cause} ${rs.length}`).join(', ')}); root cause: ${oneLine(counts[0][1][0].reason)}\n`;
}

/** What verify-certificate found, as --json prints it: the same facts as its lines, and the exit code it ends with. */
interface VerifyDocument {
  /** verified, no-key, self-reported or rejected (verify.ts), or error: nothing could be checked (exit 2). */
  verdict: Verdict | 'error';
  /** The status the certificate states: authentic is not conformant. */
  certifiedStatus?: string;
  signature?: Verification['signature'];
  resultsSha256?: string;
  covered?: readonly string[];
  /** Every reason to reject. */
  reasons: string[];
  /** Why nothing (or not all that was asked) could be checked: a usage error, exit 2. */
  error?: string;
  requireStatus?: { status: RunStatus; met: boolean };
  live?: ReturnType<typeof liveFacts>;
  exitCode: number;
}

/** --live's re-check as --json states it. */
function liveFacts(live: LiveOutcome) {
  const brief = (r: ReaderCheck) => ({
    id: r.id,
    section: violatedSection(r),
    outcome: r.outcome,
    ...(r.notJudgedBecause ? { cause: r.notJudgedBecause } : {}),
    reason: oneLine(r.reason, 400),
  });
  return {
    targets: live.targets,
    status: live.status,
    statusReasons: live.statusReasons,
    headline: live.headline,
    scope: scopeWords(live.scope),
    ...(live.unreachable ? { unreachable: live.unreachable } : {}),
    rerun: live.results.length,
    failed: live.failed.map(readerCheck).map(brief),
    warned: live.warned.map(readerCheck).map(brief),
    notJudged: live.unjudged.map(readerCheck).map(brief),
    rootCauses: live.rootCauses.map((r) => ({
      id: r.id,
      ...(r.cause ? { cause: r.cause } : {}),
      reason: oneLine(r.reason, 400),
      effect: r.effect,
      checks: r.checks,
    })),
    exitCode: live.exitCode,
  };
}

export async function verifyCommand(req: VerifyRequest, io: Io, env: NodeJS.ProcessEnv, gate: Egress): Promise<number> {
  const found: VerifyDocument = { verdict: 'error', reasons: [], exitCode: EXIT_CODE.config };
  // --json: one document on stdout at the end (made inert for a log as results.json is), no line of words there.
  const say = (text: string) => void (req.json ? undefined : io.out.write(text));
  const done = (code: number): number => {
    if (req.json) io.out.write(jsonForLogs(JSON.stringify({ ...found, exitCode: code }, null, 2)) + '\n');
    return code;
  };
  const fail = (given: string) => {
    const why = reasonLine(given);
    return (io.err.write(`conformance verify-certificate: ${why}\n`), (found.error = why), done(EXIT_CODE.config));
  };
  // The verdict lines leave through the gate like a run's: a credential given for --live that would
  // garble the suite's own words there (`?apikey=conformant`) is refused as a run refuses it.
  let v: Verification;
  try {
    v = verifyCertificate(req.dir, { key: req.key, target: req.target, maxAgeSec: req.maxAgeSec });
  } catch (err) {
    if (!(err instanceof VerifyError)) throw err;
    return fail(err.message);
  }
  Object.assign(found, {
    verdict: v.verdict,
    ...(v.statement ? { certifiedStatus: v.statement.predicate.tokenizedStocksConformance.status } : {}),
    signature: v.signature,
    ...(v.resultsSha256 ? { resultsSha256: v.resultsSha256 } : {}),
    covered: v.covered,
    reasons: shownReasons(v.differences),
  });
  if (v.verdict === 'rejected') {
    const unsigned = v.statement && !v.signature ? ` (${SELF_REPORTED}: not signed)` : '';
    say(
      `certificate REJECTED${unsigned}: ${plural(v.differences.length, 'reason')}\n${shownReasons(v.differences)
        .map((d) => `  - ${d}`)
        .join('\n')}\n`,
    );
    return done(EXIT_CODE.nonConformant);
  }
  if (v.verdict === 'no-key' && !req.allowSelfReported)
    return fail(
      `not verified: no key given (certificate.json is an envelope naming the key ${v.signature!.keyid}; signature not checked). Give --key <the provider's public key PEM>, or --allow-self-reported to accept it unchecked, as self-reported`,
    );
  if (v.verdict === 'self-reported' && !req.allowSelfReported) {
    say(
      `certificate NOT VERIFIED: ${SELF_REPORTED} (not signed): its files agree with the statement, but nobody vouches for who ran the suite; --allow-self-reported accepts it as ${SELF_REPORTED}\n`,
    );
    return done(EXIT_CODE.nonConformant);
  }
  const certifiedStatus = v.statement!.predicate.tokenizedStocksConformance.status;
  say(statusFirst(certifiedStatus) + accepted(v));
  const sampled = v.statement!.predicate.tokenizedStocksConformance.sampling;
  if (sampled) say(`${samplingLine(sampled)}\n`);
  if (req.requireStatus) {
    found.requireStatus = { status: req.requireStatus, met: certifiedStatus === req.requireStatus };
    if (!found.requireStatus.met) {
      say(`certificate NOT ACCEPTED: it certifies ${cap(certifiedStatus, 40)}, and --require-status asks for ${req.requireStatus}\n`);
      return done(EXIT_CODE.nonConformant);
    }
  }
  if (!req.live) return done(EXIT_CODE.conformant);

  let live: LiveOutcome;
  try {
    // A re-check writes nothing: a certifying environment (CERTIFY, its key) is not its concern.
    live = await liveRecheck(v.statement!, loadConfig(req.live.runArgs, { ...env, CERTIFY: undefined }), gate);
  } catch (err) {
    if (!(err instanceof LiveError) && !(err instanceof ConfigError)) throw err;
    return fail(`--live: ${err.message}`);
  }
  found.live = liveFacts(live);
  const self = v.verdict === 'verified' ? '' : ` (certificate ${SELF_REPORTED})`;
  if (live.unreachable) {
    const why = (['rest', 'rpc'] as const)
      .filter((i) => live.unreachable?.[i])
      .map((i) => `${i === 'rest' ? 'REST' : 'JSON-RPC'}: ${oneLine(live.unreachable![i]!)}`);
    say(`live${self}: could not judge: the certified target is unreachable now (${why.join('; ')}); nothing re-run\n`);
    return done(live.exitCode);
  }
  const where = [live.targets.baseUrl && `REST ${live.targets.baseUrl}`, live.targets.rpcUrl && `JSON-RPC ${live.targets.rpcUrl}`].filter(Boolean).join(', ');
  say(
    `live${self}: re-ran ${live.results.length} certified check(s) that need no signer against ${where}: ${live.results.length - live.failed.length - live.warned.length - live.unjudged.length} pass, ${live.failed.length} fail now, ${live.unjudged.length} not judged now${live.warned.length ? `, ${live.warned.length} advisory warning(s)` : ''}\n`,
  );
  for (const r of live.failed) say(`  FAILS NOW ${r.id} (§${violatedSection(r)}): ${oneLine(r.reason)}\n`);
  for (const r of live.warned) say(`  warns now (advisory, does not fail the run) ${r.id} (§${violatedSection(r)}): ${oneLine(r.reason)}\n`);
  if (live.unjudged.length) say(notJudgedLine(live.unjudged.map(readerCheck)));
  // The exit code of the re-check's sealed verdict (liveVerdict): --live has no model of its own.
  return done(live.exitCode);
}
