import { samplingLine } from '../harness/sampling';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SELF_REPORTED } from './certificate/badge';
import { loadPublicKey } from './certificate/dsse';
import { liveRecheck, LiveError, type LiveOutcome } from './certificate/live';
import { verifyCertificate, VerifyError, type Verification, type VerifyOptions } from './certificate/verify';
import { compareRuns, CompareError, writeComparison } from './compare';
import { ConfigError, loadConfig, parseDuration } from './config';
import { OPTIONS } from './options';
import { EXIT_CODE, statusLine } from './results';
import { forTerminal } from './reporters/untrusted';

interface Io {
  out: Pick<NodeJS.WriteStream, 'write'>;
  err: Pick<NodeJS.WriteStream, 'write'>;
}

const COMPARE_HELP = `usage: conformance compare <report dir>… [--report-dir <out>] [--all]

Puts the verdicts of several runs side by side (one row per check, one column per target) and
writes compare.md and compare.html into --report-dir (default ${'compare-report'}). First the
checks judged in two or more runs whose verdicts differ; then a count of the differences of
scope only (a check judged in one run, out of scope or not judged in another), listed with --all.
Each argument is a report directory holding results.json (or the file itself). Runs of
different suite versions are refused.

exit codes: 0 written · 2 bad invocation, unreadable input, or different suite versions`;

const VERIFY_HELP = `usage: conformance verify-certificate <report dir> [--key <public key PEM>] [--target <url>] [--max-age <duration>]
                                    [--live [--base-url <url>] [--rpc-url <url>] [other run flags: headers, timeouts…]]

Checks certificate.json (an in-toto test-result statement, bare or in a signed DSSE envelope):
  --key        the signature must verify with this ECDSA P-256 or Ed25519 public key (else: rejected);
               without it a signature is reported but not checked, and an unsigned certificate is self-reported
  always       the statement's subject is the SHA-256 of the results.json beside it; the verdict, scope and
               counts re-derived from results.json's checks match results.json and the statement; badge.svg,
               predicate.json, summary.md and report.html (when present) say the same
  --target     the certificate is about this endpoint (origins compared: paths may be masked)
  --max-age    the run finished at most this long ago (e.g. 36h, 30d)
  --live       re-run, against the certified target, the checks it passed that need no signer; the target is
               --base-url/--rpc-url (or BASE_URL/RPC_URL, with their usual header flags) and must have the
               certified origin, or the certified URL itself when the certificate recorded it unmasked

exit codes: 0 verified · 1 rejected (each reason printed), or --live: a certified check fails now
            2 bad invocation, unreadable or not a certificate
            3 --live: nothing failed, but a certified check could not be judged now`;

function compare(argv: string[], given: Io): number {
  const io = inert(given);
  let values: { 'report-dir'?: string; all?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { 'report-dir': { type: 'string' }, all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (err) {
    io.err.write(`conformance compare: ${(err as Error).message}\n${COMPARE_HELP}\n`);
    return EXIT_CODE.config;
  }
  if (values.help) return (io.out.write(COMPARE_HELP + '\n'), EXIT_CODE.conformant);
  try {
    const comparison = compareRuns(positionals);
    const files = writeComparison(comparison, values['report-dir'] ?? 'compare-report', { all: values.all });
    for (const r of comparison.runs) io.out.write(`${r.label}: ${statusLine(r.doc)} (exit ${r.doc.exitCode})\n`);
    for (const row of comparison.rows.filter((x) => x.differs))
      io.out.write(`  differs: ${row.id} (${row.section}): ${row.verdicts.map((v, i) => `${comparison.runs[i].label} ${v ?? '—'}`).join(' · ')}\n`);
    io.out.write(
      `${comparison.rows.length} checks, ${comparison.differences} with different verdicts, ${comparison.scopeDifferences} differing in scope only${comparison.scopeDifferences && !values.all ? ' (--all lists them)' : ''}\nreports: ${files.join(', ')}\n`,
    );
    return EXIT_CODE.conformant;
  } catch (err) {
    if (!(err instanceof CompareError)) throw err;
    io.err.write(`conformance compare: ${err.message}\n`);
    return EXIT_CODE.config;
  }
}

const VERIFY_FLAGS = {
  key: { type: 'string' },
  target: { type: 'string' },
  'max-age': { type: 'string' },
  live: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The subcommand's own flags, and the run flags (--base-url, headers…) that --live passes on to the usual configuration. */
function verifyArgs(argv: string[]): {
  dir: string;
  values: { key?: string; target?: string; 'max-age'?: string; live?: boolean; help?: boolean };
  runArgs: string[];
} {
  const runOptions = Object.fromEntries(OPTIONS.map(([flag, , arg]) => [flag, { type: arg ? 'string' : 'boolean', multiple: true }] as const));
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    options: { ...runOptions, ...VERIFY_FLAGS },
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  const runArgs: string[] = [];
  for (const t of tokens) if (t.kind === 'option' && !(t.name in VERIFY_FLAGS)) runArgs.push(t.value === undefined ? `--${t.name}` : `--${t.name}=${t.value}`);
  if (values.help) return { dir: '', values: { help: true }, runArgs };
  if (positionals.length !== 1) throw new Error('name one report directory');
  if (runArgs.length && !values.live) throw new Error(`${runArgs.map((a) => a.split('=')[0]).join(', ')}: run flags are taken only with --live`);
  return { dir: positionals[0], values: values as { key?: string; target?: string; 'max-age'?: string; live?: boolean }, runArgs };
}

async function verify(argv: string[], given: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const io = inert(given);
  const fail = (why: string) => (io.err.write(`conformance verify-certificate: ${why}\n`), EXIT_CODE.config);
  let args: ReturnType<typeof verifyArgs>;
  let opts: VerifyOptions;
  try {
    args = verifyArgs(argv);
    if (args.values.help) return (io.out.write(VERIFY_HELP + '\n'), EXIT_CODE.conformant);
    const { key, target, 'max-age': maxAge } = args.values;
    opts = {
      ...(key !== undefined ? { key: loadPublicKey(readKeyFile(key), `--key ${key}`) } : {}),
      ...(target !== undefined ? { target } : {}),
      ...(maxAge !== undefined ? { maxAgeSec: parseDuration(maxAge, 'max-age', '') } : {}),
    };
  } catch (err) {
    return fail(`${(err as Error).message}\n${VERIFY_HELP}`);
  }
  let v: Verification;
  try {
    v = verifyCertificate(args.dir, opts);
  } catch (err) {
    if (!(err instanceof VerifyError)) throw err;
    return fail(err.message);
  }
  const conformance = v.statement.predicate.tokenizedStocksConformance;
  if (v.differences.length > 0) {
    io.out.write(`certificate REJECTED: ${v.differences.length} reason(s)\n${v.differences.map((d) => `  - ${cap(d, 400)}`).join('\n')}\n`);
    return EXIT_CODE.nonConformant;
  }
  const who = !v.signature
    ? `${SELF_REPORTED}: not signed, so it shows that the files agree, not who ran the suite`
    : v.signature.verified
      ? `signed by ${v.signature.keyids.map((k) => cap(k, 100)).join(', ')}: signature verified with --key`
      : `signed by ${v.signature.keyids.map((k) => cap(k, 100)).join(', ')}: signature NOT checked (give --key <public key PEM>)`;
  io.out.write(
    `certificate matches results.json (SHA-256 ${v.resultsSha256}): ${cap(conformance.status, 40)}, badge "${cap(conformance.badge.message, 120)}" — ${who}\n`,
  );
  if (conformance.sampling) io.out.write(`${samplingLine(conformance.sampling)}\n`);
  if (!args.values.live) return EXIT_CODE.conformant;

  let live: LiveOutcome;
  try {
    // A re-check writes nothing: a certifying environment (CERTIFY, its key) is not its concern.
    live = await liveRecheck(v.statement, loadConfig(args.runArgs, { ...env, CERTIFY: undefined }));
  } catch (err) {
    if (!(err instanceof LiveError) && !(err instanceof ConfigError)) throw err;
    return fail(`--live: ${err.message}`);
  }
  const where = [live.targets.baseUrl && `REST ${live.targets.baseUrl}`, live.targets.rpcUrl && `JSON-RPC ${live.targets.rpcUrl}`].filter(Boolean).join(', ');
  io.out.write(
    `live: re-ran ${live.results.length} certified check(s) that need no signer against ${where}: ${live.results.length - live.failed.length - live.unjudged.length} pass, ${live.failed.length} fail now, ${live.unjudged.length} not judged now\n`,
  );
  for (const r of live.failed) io.out.write(`  FAILS NOW ${r.id} (§${r.failedSection ?? r.section}): ${oneLine(r.reason)}\n`);
  for (const r of live.unjudged) io.out.write(`  not judged now ${r.id}: ${oneLine(r.reason)}\n`);
  return live.failed.length ? EXIT_CODE.nonConformant : live.unjudged.length ? EXIT_CODE.incomplete : EXIT_CODE.conformant;
}

/** A line as shown: cut to `max` characters (what other people's files say can be any length). */
function cap(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A reason as one bounded console line: it may quote what the target answered. */
function oneLine(s: string, max = 200): string {
  return cap(s.split('\n')[0], max);
}

/**
 * The subcommands print what other people's files say (a certificate, results documents): every
 * line goes out inert for a terminal and a CI log (no escape sequence, no workflow command).
 */
function inert(io: Io): Io {
  const wrap = (stream: Io['out']): Io['out'] => ({ write: (text: string | Uint8Array) => stream.write(typeof text === 'string' ? forTerminal(text) : text) });
  return { out: wrap(io.out), err: wrap(io.err) };
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--key ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
}

const SUBCOMMANDS: Record<string, (argv: string[], io: Io, env: NodeJS.ProcessEnv) => number | Promise<number>> = { compare, 'verify-certificate': verify };

/** `conformance compare …` and `conformance verify-certificate …`; undefined for a plain run. */
export function subcommandOf(argv: string[], env: NodeJS.ProcessEnv = {}): ((io: Io) => number | Promise<number>) | undefined {
  const run = argv.length > 0 ? SUBCOMMANDS[argv[0]] : undefined;
  return run ? (io) => run(argv.slice(1), io, env) : undefined;
}

export const SUBCOMMAND_HELP = [
  'subcommands:',
  '  conformance compare <report dir>… [--report-dir <out>] [--all]   verdicts of several runs side by side (compare.md, compare.html)',
  '  conformance verify-certificate <report dir> [--key <public PEM>] [--target <url>] [--max-age <d>] [--live]',
  '                                                          check certificate.json (signature, results.json, badge, reports; --live: the target still passes)',
].join('\n');
