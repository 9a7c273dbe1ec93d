import { parseArgs } from 'node:util';
import { compareRuns, CompareError, writeComparison } from './compare';
import { verifyCertificate, VerifyError } from './certify';
import { EXIT_CODE, statusLine } from './results';

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

const VERIFY_HELP = `usage: conformance verify-certificate <report dir>

Recomputes the SHA-256 of results.json and re-derives the run status, scope and counts from
its checks, and compares them with certificate.json (and badge.svg, when present).

exit codes: 0 they match · 1 something was altered (each difference is printed) · 2 bad invocation`;

function compare(argv: string[], io: Io): number {
  let values: { 'report-dir'?: string; all?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { 'report-dir': { type: 'string' }, all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }));
  } catch (err) {
    io.err.write(`conformance compare: ${(err as Error).message}\n${COMPARE_HELP}\n`);
    return EXIT_CODE.config;
  }
  if (values.help) return io.out.write(COMPARE_HELP + '\n'), EXIT_CODE.conformant;
  try {
    const comparison = compareRuns(positionals);
    const files = writeComparison(comparison, values['report-dir'] ?? 'compare-report', { all: values.all });
    for (const r of comparison.runs) io.out.write(`${r.label}: ${statusLine(r.doc)} (exit ${r.doc.exitCode})\n`);
    for (const row of comparison.rows.filter((x) => x.differs)) io.out.write(`  differs: ${row.id} (${row.section}): ${row.verdicts.map((v, i) => `${comparison.runs[i].label} ${v ?? '—'}`).join(' · ')}\n`);
    io.out.write(`${comparison.rows.length} checks, ${comparison.differences} with different verdicts, ${comparison.scopeDifferences} differing in scope only${comparison.scopeDifferences && !values.all ? ' (--all lists them)' : ''}\nreports: ${files.join(', ')}\n`);
    return EXIT_CODE.conformant;
  } catch (err) {
    if (!(err instanceof CompareError)) throw err;
    io.err.write(`conformance compare: ${err.message}\n`);
    return EXIT_CODE.config;
  }
}

function verify(argv: string[], io: Io): number {
  if (argv.includes('--help') || argv.includes('-h')) return io.out.write(VERIFY_HELP + '\n'), EXIT_CODE.conformant;
  if (argv.length !== 1 || argv[0].startsWith('-')) {
    io.err.write(`conformance verify-certificate: name one report directory\n${VERIFY_HELP}\n`);
    return EXIT_CODE.config;
  }
  try {
    const { certificate, differences } = verifyCertificate(argv[0]);
    if (differences.length === 0) {
      io.out.write(`certificate matches results.json (SHA-256 ${certificate.results.sha256}): ${certificate.status}, badge "${certificate.badge.message}"\n`);
      return EXIT_CODE.conformant;
    }
    io.out.write(`certificate does NOT match: ${differences.length} difference(s)\n${differences.map((d) => `  - ${d}`).join('\n')}\n`);
    return EXIT_CODE.nonConformant;
  } catch (err) {
    if (!(err instanceof VerifyError)) throw err;
    io.err.write(`conformance verify-certificate: ${err.message}\n`);
    return EXIT_CODE.config;
  }
}

const SUBCOMMANDS: Record<string, (argv: string[], io: Io) => number> = { compare, 'verify-certificate': verify };

/** `conformance compare …` and `conformance verify-certificate …`; undefined for a plain run. */
export function subcommandOf(argv: string[]): ((io: Io) => number) | undefined {
  const run = argv.length > 0 ? SUBCOMMANDS[argv[0]] : undefined;
  return run ? (io) => run(argv.slice(1), io) : undefined;
}

export const SUBCOMMAND_HELP = [
  'subcommands:',
  '  conformance compare <report dir>… [--report-dir <out>] [--all]   verdicts of several runs side by side (compare.md, compare.html)',
  '  conformance verify-certificate <report dir>             check certificate.json and badge.svg against results.json',
].join('\n');
