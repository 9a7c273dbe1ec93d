import { statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cap, verifyCommand, type VerifyRequest } from './certificate/command';
import { loadPublicKey, MAX_KEY_FILE_BYTES } from './signing-keys';
import { readRegularText, UnreadableFile } from '../harness/regular-file';
import { compareRuns, CompareError, statusesWords, verdictDifferences, writeComparison } from './compare';
import { parseDuration } from './config';
import { OPTIONS } from './options';
import { Egress } from './egress';
import { EXIT_CODE, type RunStatus } from '../verdict/status';
import { forTerminal } from './inert-text';
import { didYouMean } from './suggest';
import { fromUserDir, shownPath } from './paths';
import { parseUrl } from './url-flags';

const isFile = (file: string): boolean => {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

interface Io {
  out: Pick<NodeJS.WriteStream, 'write'>;
  err: Pick<NodeJS.WriteStream, 'write'>;
}

const COMPARE_HELP = `usage: conformance compare <report dir>… [--report-dir <out>] [--all]

Puts the verdicts of several runs side by side (one row per check, one column per target) and
writes compare.md and compare.html into --report-dir (default ${'compare-report'}). First the
run statuses when they differ (a run's status is its verdict: one difference), then the
checks whose verdicts differ (judged in two or more runs with different verdicts, or failed in one
run and not judged in another), each printed; then a count of the differences of scope only (a
check judged in one run, out of scope or skipped in another, or passed in one and not judged in
another), printed and listed with --all. Each argument is a report directory holding results.json
(or the file itself). Runs of different suite versions are refused. compare.md and compare.html
are its output (no --json: a script reads each run's results.json, and the exit code).

exit codes: 0 written, no verdict differs · 1 written, run statuses or verdicts differ (as diff does)
            2 bad invocation, unreadable input, or different suite versions`;

/**
 * node's parseArgs refusal (an unknown flag, a value missing or given to a switch) in the
 * suite's own words: the flag, the one meant, and the flags the subcommand takes.
 */
export function flagProblem(err: Error, flags: readonly string[]): string {
  const code = (err as NodeJS.ErrnoException).code;
  const flag = cap(/'(-[^'\s]*)/.exec(err.message)?.[1] ?? '', 80);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown flag ${flag}${didYouMean(flag, [...flags])}; the flags are ${flags.join(', ')}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return /does not take an argument/.test(err.message) ? `${flag} takes no value` : `${flag} needs a value (${flag}=<value> for one that starts with -)`;
  return cap(err.message.split('\n')[0], 200);
}

const VERIFY_HELP = `usage: conformance verify-certificate <report dir or its certificate.json> --key <public key PEM> [--target <url>] [--max-age <duration>]
                                    [--require-status conformant] [--json] [--live [--base-url <url>] [--rpc-url <url>] [other run flags: headers, timeouts…]]
       conformance verify-certificate <report dir> --allow-self-reported [--target …] [--max-age …] [--live …]

Checks certificate.json (an in-toto test-result statement in a DSSE envelope, or bare: self-reported):
  --key        the provider's ECDSA P-256 or Ed25519 public key: the envelope's one signature must be by
               that key (its keyid) and verify with it; without --key nothing is verified (exit 2)
  --allow-self-reported
               accept a certificate nobody vouches for (unsigned, or signed but no --key), said to be
               self-reported on every line; never needed with --key
  always       certificate.json is read strictly; its subjects are every file of the directory, each
               matching its SHA-256, and no other file is there; the verdict, scope and counts re-derived
               from results.json's checks match results.json and the statement; junit.xml, summary.md,
               report.html, predicate.json and badge.svg are exactly what results.json gives
  --target     the certificate is about this endpoint (origins compared: paths may be masked)
  --max-age    the run finished at most this long ago (e.g. 36h, 30d)
  --require-status conformant
               verified means authentic, not conformant: the first line states the certified status, and with
               this flag a certificate of any other status (non-conformant, incomplete) exits 1
  --json       one JSON document on stdout (verdict, certified status, reasons, --live's re-run), the same exit code
  --live       re-run, against the certified target, the checks it passed that need no signer; the target is
               --base-url/--rpc-url (or BASE_URL/RPC_URL, with their usual header flags) and must have the
               certified origin, or the certified URL itself when the certificate recorded it unmasked

exit codes: 0 verified (signature checked with --key), or self-reported and --allow-self-reported; whatever status it certifies
            1 rejected (each reason printed), self-reported without --allow-self-reported, a status other than --require-status,
              or --live: a certified check fails now
            2 bad invocation (no --key: not verified), no certificate there, or another suite version
            3 --live: nothing failed, but certified required checks could not be judged now (unreachable, throttled…, or a quiet chain:
              checks of other senders' transactions find none when nobody sends, so an idle node such as the reference ends here)`;

function compare(argv: string[], given: Io, env: NodeJS.ProcessEnv, gate: Egress): number {
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
    io.err.write(`conformance compare: ${flagProblem(err as Error, ['--report-dir', '--all', '--help'])} (see --help)\n`);
    return EXIT_CODE.config;
  }
  if (values.help) return (io.out.write(COMPARE_HELP + '\n'), EXIT_CODE.conformant);
  try {
    // Paths are the user's: from the directory the command was run in (INIT_CWD under npm run), printed to work from there.
    // Published as written, an absolute one by its folder's name only (no local path in a report).
    const comparison = compareRuns(
      positionals.map((p) => fromUserDir(p, env)),
      positionals.map((p) => (path.isAbsolute(p) ? path.basename(p) : p)),
    );
    const files = writeComparison(comparison, fromUserDir(values['report-dir'] ?? 'compare-report', env), { all: values.all }, gate).map((f) =>
      shownPath(f, env),
    );
    for (const r of comparison.runs) io.out.write(`${r.label}: ${r.doc.headline} (exit ${r.doc.exitCode})\n`);
    const line = (kind: string, row: (typeof comparison.rows)[number]) =>
      io.out.write(
        `  ${kind}: ${row.id} (${row.section}): ${row.verdicts.map((v, i) => `${comparison.runs[i].label} ${v === 'skipped' && row.outOfScope[i] ? 'out of scope' : (v ?? '—')}`).join(' · ')}\n`,
      );
    // The run statuses are each run's verdict: when they differ, that is one difference, stated once.
    if (comparison.statusDiffers) io.out.write(`  differs: run status: ${statusesWords(comparison)}\n`);
    for (const row of comparison.rows.filter((x) => x.differs)) line('differs', row);
    if (values.all) for (const row of comparison.rows.filter((x) => x.scopeOnly)) line('scope only', row);
    io.out.write(
      `${comparison.statusDiffers ? 'run statuses differ; ' : ''}${comparison.rows.length} checks, ${comparison.differences} with different verdicts, ${comparison.scopeDifferences} differing in scope only${comparison.scopeDifferences && !values.all ? ' (--all lists them)' : ''}\nreports: ${files.join(', ')}\n`,
    );
    // As diff: 1 when the verdicts differ (a run's status is its verdict), so a script can gate on it.
    return verdictDifferences(comparison) > 0 ? EXIT_CODE.nonConformant : EXIT_CODE.conformant;
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
  'allow-self-reported': { type: 'boolean' },
  'require-status': { type: 'string' },
  json: { type: 'boolean' },
  live: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type VerifyValues = {
  key?: string;
  target?: string;
  'max-age'?: string;
  'allow-self-reported'?: boolean;
  'require-status'?: string;
  json?: boolean;
  live?: boolean;
  help?: boolean;
};

/** The statuses --require-status takes: those a run ends with. */
const STATUSES: readonly RunStatus[] = ['conformant', 'non-conformant', 'incomplete'];

/** The subcommand's own flags, and the run flags (--base-url, headers…) that --live passes on to the usual configuration. */
function verifyArgs(
  argv: string[],
  env: NodeJS.ProcessEnv,
): {
  dir: string;
  values: VerifyValues;
  runArgs: string[];
} {
  const runOptions = Object.fromEntries(OPTIONS.map(([flag, , arg]) => [flag, { type: arg ? 'string' : 'boolean', multiple: true }] as const));
  const parsed = parseArgs({
    args: argv,
    options: { ...runOptions, ...VERIFY_FLAGS },
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  const { values, tokens } = parsed;
  const { positionals } = parsed;
  const runArgs: string[] = [];
  for (const t of tokens) if (t.kind === 'option' && !(t.name in VERIFY_FLAGS)) runArgs.push(t.value === undefined ? `--${t.name}` : `--${t.name}=${t.value}`);
  if (values.help) return { dir: '', values: { help: true }, runArgs };
  if (positionals.length !== 1) throw new Error('name one report directory');
  // The certificate itself named (`reports/certificate.json`): its directory is the report directory.
  const named = fromUserDir(positionals[0], env);
  const dir = path.basename(named) === 'certificate.json' && isFile(named) ? path.dirname(named) : named;
  if (runArgs.length && !values.live) throw new Error(`${runArgs.map((a) => a.split('=')[0]).join(', ')}: run flags are taken only with --live`);
  return {
    dir,
    values: values as VerifyValues,
    runArgs,
  };
}

async function verify(argv: string[], given: Io, env: NodeJS.ProcessEnv, gate: Egress): Promise<number> {
  const io = inert(given);
  const fail = (why: string) => (io.err.write(`conformance verify-certificate: ${why}\n`), EXIT_CODE.config);
  let req: VerifyRequest;
  try {
    const args = verifyArgs(argv, env);
    if (args.values.help) return (io.out.write(VERIFY_HELP + '\n'), EXIT_CODE.conformant);
    const { key, target, 'max-age': maxAge, 'allow-self-reported': allowSelfReported, live, json } = args.values;
    // In any case, as the run's --require and --profile are read.
    const requireStatus = args.values['require-status']?.trim().toLowerCase();
    if (requireStatus !== undefined && !STATUSES.includes(requireStatus as RunStatus))
      throw new Error(`--require-status ${cap(args.values['require-status']!, 40)}: give one of ${STATUSES.join(', ')}${didYouMean(requireStatus, STATUSES)}`);
    // A URL as a run's flags take it (no scheme, a mistyped one: refused with the URL meant), never "not that URL".
    if (target !== undefined) parseUrl(target, 'target', '');
    req = {
      dir: args.dir,
      ...(key !== undefined ? { key: loadPublicKey(readKeyFile(fromUserDir(key, env)), `--key ${key}`) } : {}),
      ...(target !== undefined ? { target } : {}),
      ...(maxAge !== undefined ? { maxAgeSec: parseDuration(maxAge, 'max-age', '') } : {}),
      ...(allowSelfReported ? { allowSelfReported } : {}),
      ...(live ? { live: { runArgs: args.runArgs } } : {}),
      ...(requireStatus !== undefined ? { requireStatus: requireStatus as RunStatus } : {}),
      ...(json ? { json } : {}),
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS'))
      return fail(
        `${flagProblem(
          err as Error,
          Object.keys(VERIFY_FLAGS).map((f) => `--${f}`),
        )}, and with --live the run flags (see --help)`,
      );
    return fail(`${(err as Error).message}\n${VERIFY_HELP}`);
  }
  return verifyCommand(req, io, env, gate);
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
    return readRegularText(file, MAX_KEY_FILE_BYTES, `--key ${file}`);
  } catch (err) {
    if (err instanceof UnreadableFile) throw new Error(err.message, { cause: err });
    throw err;
  }
}

const SUBCOMMANDS: Record<string, (argv: string[], io: Io, env: NodeJS.ProcessEnv, gate: Egress) => number | Promise<number>> = {
  compare,
  'verify-certificate': verify,
};

/**
 * `conformance compare …` and `conformance verify-certificate …`; undefined for a plain run. Files are
 * written through `gate`. A first word that is no subcommand (`verify-certifcate`) is answered here,
 * with the one meant.
 */
export function subcommandOf(argv: string[], env: NodeJS.ProcessEnv = {}): ((io: Io, gate?: Egress) => number | Promise<number>) | undefined {
  if (argv.length === 0) return undefined;
  const run = Object.hasOwn(SUBCOMMANDS, argv[0]) ? SUBCOMMANDS[argv[0]] : undefined;
  if (run) return (io, gate) => run(argv.slice(1), io, env, gate ?? Egress.forRun(argv, env));
  if (argv[0].startsWith('-')) return undefined;
  const names = Object.keys(SUBCOMMANDS);
  return (io) => (
    inert(io).err.write(
      `conformance: unknown subcommand ${cap(argv[0], 80)}${didYouMean(argv[0], names)}; the subcommands are ${names.join(', ')}, and a run takes flags only (see --help)\n`,
    ),
    EXIT_CODE.config
  );
}

export const SUBCOMMAND_HELP = [
  'subcommands:',
  '  conformance compare <report dir>… [--report-dir <out>] [--all]   verdicts of several runs side by side (compare.md, compare.html; exit 1: they differ)',
  '  conformance verify-certificate <report dir or certificate.json> --key <public PEM> [--target <url>] [--max-age <d>] [--require-status conformant]',
  '                                  [--live] [--allow-self-reported] [--json]',
  '                                                          check certificate.json (its one signature, every file it covers; the status it certifies',
  '                                                          first; --live: the target still passes)',
].join('\n');
