// What `conformance verify-certificate` says and the exit code it ends with, once its flags are read.
// Exit 0 means verified: one signature checked with a key the verifier gave, every published file
// agreeing, or, only when the verifier opts in with --allow-self-reported, an unsigned claim said to
// be one on every line.
import type { KeyObject } from 'node:crypto';
import type { CheckResult } from '../../harness/runner';
import { violatedSection } from '../../harness/result';
import { ConfigError, loadConfig } from '../config';
import type { Egress } from '../egress';
import { samplingLine } from '../../harness/sampling';
import { EXIT_CODE } from '../../verdict/status';
import { ownTexts } from '../own-words';
import { garblesVocabulary, GARBLED_VOCABULARY } from '../secret-rules';
import { allChecks } from '../../../suites';
import { SELF_REPORTED } from './badge';
import { liveRecheck, LiveError, type LiveOutcome } from './live';
import { verifyCertificate, VerifyError, type Verification } from './verify';

export interface VerifyRequest {
  dir: string;
  key?: KeyObject;
  target?: string;
  maxAgeSec?: number;
  /** Accept a certificate nobody vouches for (unsigned, or signed but no key given), said to be self-reported. */
  allowSelfReported?: boolean;
  /** Re-run the certified read-only checks against the target, with these run flags. */
  live?: { runArgs: string[] };
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The words of a verdict that is not a rejection: how the certificate is vouched for, and what it says. */
function accepted(v: Verification): string {
  const c = v.statement!.predicate.tokenizedStocksConformance;
  const what = `${plural(v.covered.length, 'file')} covered, each matching its SHA-256 (results.json ${v.resultsSha256}): ${cap(c.status, 40)}, badge "${cap(c.badge.message, 160)}"`;
  if (v.verdict === 'verified') return `certificate VERIFIED: signed by ${v.signature!.keyid}, signature checked with --key; ${what}\n`;
  const how = v.signature ? `signature not checked (no --key; the envelope names ${v.signature.keyid})` : 'not signed, so nobody vouches for who ran the suite';
  return `certificate ${SELF_REPORTED.toUpperCase()}, not verified (accepted with --allow-self-reported): ${how}; ${what}\n`;
}

/** Checks not judged now, counted by cause, with the most frequent cause's first reason as the root: one line. */
function notJudgedLine(unjudged: CheckResult[]): string {
  const byCause = new Map<string, CheckResult[]>();
  for (const r of unjudged) byCause.set(r.cause ?? r.status, [...(byCause.get(r.cause ?? r.status) ?? []), r]);
  const counts = [...byCause.entries()].sort((a, b) => b[1].length - a[1].length);
  return `live: could not judge ${plural(unjudged.length, 'certified check')} now (${counts.map(([cause, rs]) => `${cause} ${rs.length}`).join(', ')}); root cause: ${oneLine(counts[0][1][0].reason)}\n`;
}

export async function verifyCommand(req: VerifyRequest, io: Io, env: NodeJS.ProcessEnv, gate: Egress): Promise<number> {
  const fail = (why: string) => (io.err.write(`conformance verify-certificate: ${why}\n`), EXIT_CODE.config);
  // The verdict lines leave through the gate like a run's: a credential given for --live that would
  // garble the suite's own words there (`?apikey=conformant`) is refused as a run refuses it.
  if (req.live && garblesVocabulary(gate.redactor, () => ownTexts(allChecks()))) return fail(GARBLED_VOCABULARY);
  let v: Verification;
  try {
    v = verifyCertificate(req.dir, { key: req.key, target: req.target, maxAgeSec: req.maxAgeSec });
  } catch (err) {
    if (!(err instanceof VerifyError)) throw err;
    return fail(err.message);
  }
  if (v.verdict === 'rejected') {
    const unsigned = v.statement && !v.signature ? ` (${SELF_REPORTED}: not signed)` : '';
    io.out.write(`certificate REJECTED${unsigned}: ${plural(v.differences.length, 'reason')}\n${v.differences.map((d) => `  - ${cap(d, 400)}`).join('\n')}\n`);
    return EXIT_CODE.nonConformant;
  }
  if (v.verdict === 'no-key' && !req.allowSelfReported)
    return fail(
      `not verified: no key given (certificate.json is an envelope naming the key ${v.signature!.keyid}; signature not checked). Give --key <the provider's public key PEM>, or --allow-self-reported to accept it unchecked, as self-reported`,
    );
  if (v.verdict === 'self-reported' && !req.allowSelfReported) {
    io.out.write(
      `certificate NOT VERIFIED: ${SELF_REPORTED} (not signed): its files agree with the statement, but nobody vouches for who ran the suite; --allow-self-reported accepts it as ${SELF_REPORTED}\n`,
    );
    return EXIT_CODE.nonConformant;
  }
  io.out.write(accepted(v));
  const sampled = v.statement!.predicate.tokenizedStocksConformance.sampling;
  if (sampled) io.out.write(`${samplingLine(sampled)}\n`);
  if (!req.live) return EXIT_CODE.conformant;

  let live: LiveOutcome;
  try {
    // A re-check writes nothing: a certifying environment (CERTIFY, its key) is not its concern.
    live = await liveRecheck(v.statement!, loadConfig(req.live.runArgs, { ...env, CERTIFY: undefined }), gate);
  } catch (err) {
    if (!(err instanceof LiveError) && !(err instanceof ConfigError)) throw err;
    return fail(`--live: ${err.message}`);
  }
  const self = v.verdict === 'verified' ? '' : ` (certificate ${SELF_REPORTED})`;
  if (live.unreachable) {
    const why = (['rest', 'rpc'] as const)
      .filter((i) => live.unreachable?.[i])
      .map((i) => `${i === 'rest' ? 'REST' : 'JSON-RPC'}: ${oneLine(live.unreachable![i]!)}`);
    io.out.write(`live${self}: could not judge: the certified target is unreachable now (${why.join('; ')}); nothing re-run\n`);
    return EXIT_CODE.incomplete;
  }
  const where = [live.targets.baseUrl && `REST ${live.targets.baseUrl}`, live.targets.rpcUrl && `JSON-RPC ${live.targets.rpcUrl}`].filter(Boolean).join(', ');
  io.out.write(
    `live${self}: re-ran ${live.results.length} certified check(s) that need no signer against ${where}: ${live.results.length - live.failed.length - live.warned.length - live.unjudged.length} pass, ${live.failed.length} fail now, ${live.unjudged.length} not judged now${live.warned.length ? `, ${live.warned.length} advisory warning(s)` : ''}\n`,
  );
  for (const r of live.failed) io.out.write(`  FAILS NOW ${r.id} (§${violatedSection(r)}): ${oneLine(r.reason)}\n`);
  for (const r of live.warned) io.out.write(`  warns now (advisory, does not fail the run) ${r.id} (§${violatedSection(r)}): ${oneLine(r.reason)}\n`);
  if (live.unjudged.length) io.out.write(notJudgedLine(live.unjudged));
  // The exit code a fresh run of these checks would end with (liveVerdict): --live has no model of its own.
  return live.exitCode;
}
