// The GitHub Action's step (action.yml; action/main.js starts it once the checkout is built). It:
//   1. registers every secret input with `::add-mask::`, before printing anything else;
//   2. removes the reports an earlier run left, and refuses inputs that make no run (exit 2);
//   3. runs the suite with the inputs as its environment variables (never on the command line,
//      where a process list would show them), its output fenced by `::stop-commands::` so a
//      target's text echoed in a log line can never be read as a workflow command;
//   4. appends summary.md to the step summary (without a report: the suite's own message, in the
//      inputs' terms), writes one `::error` per root cause that fails the run (from results.json:
//      the checks it covers, its curl line), sets the outputs, and exits non-zero exactly when the
//      run fails.
// Every write after the `::add-mask::` lines goes through output.ts: the suite's egress gate, so
// the log, the step summary and the outputs hold no secret the suite knows.
import { readerDocument, type ReaderDocument } from '../verdict/reader';
import type { RunDocument } from '../verdict/document';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { OutStream } from '../cli/egress';
import { SUITE_FILES } from '../cli/report-files';
import { EXIT_CODE, EXIT_OF_STATUS } from '../verdict/status';
import { command, fencedOutput, keyValue, type Fence } from './commands';
import { ConfigError, input, plan, reportDirOf, secretsOf, suiteArgs, suiteEnv, type Env } from './inputs';
import { annotation, inInputTerms, list, noReportSummary, rootHints, storedRootCauses } from './messages';
import { Output, type Forwarded } from './output';

/** The suite's command, built beside this file (dist/src/cli/run.js). */
const SUITE_ENTRY = path.join(__dirname, '..', 'cli', 'run.js');
/** GitHub shows at most this many annotations of one step. */
const MAX_ANNOTATIONS = 10;
/** The suite's own lines on stderr (`conformance: …`), kept (bounded) to say in the annotation why it refused its configuration. */
const MAX_SAID = 10;

/** The status output for each exit code: the suite's statuses, and the two codes that come with no results.json. */
const STATUS_OF_CODE: Readonly<Record<number, string>> = {
  ...Object.fromEntries(Object.entries(EXIT_OF_STATUS).map(([status, code]) => [code, status])),
  [EXIT_CODE.config]: 'configuration-error',
  [EXIT_CODE.interrupted]: 'interrupted',
};

/**
 * Whether the step fails, from the suite's exit code: only 0 (and 3 when allowed) passes. An exit 3
 * passes only beside a results.json that says incomplete (`status`, undefined when none was
 * written): without one, or beside another status, the suite stopped on an error it did not
 * expect (a defect of the suite), which fail-on-incomplete: false must not show green.
 */
export function fails(exitCode: number, failOnIncomplete: boolean, status: ReaderDocument['status'] | undefined): boolean {
  if (exitCode === EXIT_CODE.conformant) return false;
  if (exitCode === EXIT_CODE.incomplete) return failOnIncomplete || status !== 'incomplete';
  return true;
}

interface SuiteExit {
  code: number;
  /** Set when the suite could not be started. */
  error?: string;
  /** The suite's own `conformance: …` lines on stderr. */
  said: string[];
}

function runSuite(args: string[], cwd: string, env: Env, io: Output, fence: Fence): Promise<SuiteExit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE_ENTRY, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const said: string[] = [];
    const out: Forwarded = io.forward(
      'stdout',
      () => {},
      (l) => fence.beforeLine(l),
    );
    const err: Forwarded = io.forward('stderr', (l) => {
      if (l.startsWith('conformance: ') && said.length < MAX_SAID) said.push(l.slice('conformance: '.length));
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => out.take(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => err.take(d));
    // A cancelled job signals this process: the suite stops cleanly and writes its reports (exit 130).
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('error', (e) => resolve({ code: EXIT_CODE.config, error: e.message, said }));
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      out.end();
      err.end();
      fence.end();
      resolve({ code: code ?? (signal ? EXIT_CODE.interrupted : EXIT_CODE.config), said });
    });
  });
}

/**
 * An earlier run's report file, removed. A report-dir that is no folder (a file, or a path through
 * one) holds no earlier report: the suite refuses it with its own message (exit 2).
 */
function removeEarlier(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
  }
}

/** results.json as the suite this step ran wrote it; undefined when none was written. */
function readResults(file: string): ReaderDocument | undefined {
  try {
    return readerDocument(JSON.parse(fs.readFileSync(file, 'utf8')) as RunDocument);
  } catch {
    return undefined;
  }
}

/** The gate for this step's inputs: what the suite will be given (its environment, its command line, each part of `secrets`). */
const outputFor = (env: Env, out?: OutStream, err?: OutStream): Output => new Output(suiteArgs(env), suiteEnv(env), input(env, 'secrets'), out, err);

/** The step: returns the exit code the step ends with. */
export async function main(env: Env = process.env, out?: OutStream, err?: OutStream): Promise<number> {
  const io = outputFor(env, out, err);
  // First, before any other line: the runner hides these values from every later log line.
  for (const secret of secretsOf(env)) io.mask(command('add-mask', {}, secret));

  let exitCode: number;
  let reportDir = '';
  let failOnIncomplete = true;
  let doc: ReaderDocument | undefined;
  let stopped: boolean; // the reason is already annotated
  let refused: string[] = []; // the suite's own words when it refused its configuration
  try {
    // First, before anything can stop the step: no report an earlier run left (a persistent
    // workspace) may speak for this one, since a workflow uploads the directory and may attest its
    // predicate.json whatever this step's outcome.
    for (const f of SUITE_FILES) removeEarlier(path.join(reportDirOf(env), f));
    const p = plan(env);
    ({ reportDir, failOnIncomplete } = p);
    const fence = fencedOutput((line) => io.log(line));
    fence.open();
    const r = await runSuite(p.args, p.workspace, p.childEnv, io, fence);
    fence.close();
    if (r.error) io.log(command('error', { title: 'conformance' }, `the suite did not start: ${r.error}`));
    stopped = Boolean(r.error);
    exitCode = r.code;
    doc = readResults(path.join(reportDir, 'results.json'));
    // Without a report, the suite's own words say why (a configuration refused, reports it could not write).
    if (!doc) refused = r.said.map(inInputTerms);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.log(command('error', { title: 'conformance' }, e.message));
    refused = [e.message];
    exitCode = EXIT_CODE.config;
    stopped = true;
  }

  const summary = reportDir && fs.existsSync(path.join(reportDir, 'summary.md')) ? fs.readFileSync(path.join(reportDir, 'summary.md'), 'utf8') : undefined;
  if (env.GITHUB_STEP_SUMMARY) {
    // Without a report, the suite's own message (in the inputs' terms) is what the reader needs: the fix is in it.
    io.append(
      env.GITHUB_STEP_SUMMARY,
      summary ?? noReportSummary(STATUS_OF_CODE[exitCode] ?? 'stopped', exitCode, refused),
      'the step summary ($GITHUB_STEP_SUMMARY)',
    );
  }

  const failed = fails(exitCode, failOnIncomplete, doc?.status);
  // The step summary's anchor for the failures, when the runner says where this run is.
  const summaryLink =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
      : 'the step summary (What fails the run)';
  const roots = doc ? storedRootCauses(doc) : [];
  // GitHub shows 10 annotations of a step: past that, the tenth names the rest rather than being lost.
  const annotations = roots.slice(0, roots.length > MAX_ANNOTATIONS ? MAX_ANNOTATIONS - 1 : MAX_ANNOTATIONS).map((root) => annotation(root, summaryLink));
  if (roots.length > MAX_ANNOTATIONS) {
    const rest = roots.slice(MAX_ANNOTATIONS - 1).map((r) => r.check?.id ?? `${r.interface} target unreachable`);
    annotations.push(command('error', { title: `conformance: ${rest.length} more root causes` }, `${list(rest, 40)}: see ${summaryLink}`));
  }
  for (const a of annotations) io.log(a);
  const reasons = (doc?.statusReasons ?? []).join('; ');
  const hints = doc ? inInputTerms(rootHints(doc).join('; ')) : '';
  const status = doc?.status ?? STATUS_OF_CODE[exitCode] ?? 'stopped';
  if (failed && annotations.length === 0 && !stopped) {
    const why = refused.length
      ? refused.join('; ')
      : exitCode === EXIT_CODE.config
        ? 'the suite refused its configuration: see its message in the log'
        : doc
          ? `${reasons}${hints ? ` — ${hints}` : ''}`
          : 'the suite stopped without a report (an unexpected error is a defect of the suite): see its message in the log';
    io.log(command('error', { title: `conformance: ${status}` }, `exit ${exitCode}${why ? `: ${why}` : ''}`));
  }
  if (!failed && exitCode === EXIT_CODE.incomplete)
    io.log(
      command(
        'warning',
        { title: 'conformance: incomplete' },
        `nothing failed, but not everything in scope was judged${reasons ? `: ${reasons}` : ''}${hints ? ` — ${hints}` : ''} (fail-on-incomplete is false)`,
      ),
    );

  if (env.GITHUB_OUTPUT) {
    // One append per output: a value the gate withholds (a report-dir named after a secret) leaves the others set.
    for (const [name, value] of [
      ['status', status],
      ['exit-code', exitCode],
      ['report-dir', reportDir],
    ] as const)
      io.append(env.GITHUB_OUTPUT, keyValue(name, value), `output ${name} ($GITHUB_OUTPUT)`);
  }
  if (io.withheld.length) {
    // Fail closed: what the gate withheld is named, never what it held.
    io.log(command('error', { title: 'conformance action' }, `withheld (it would still have carried a secret): ${[...new Set(io.withheld)].join(', ')}`));
    return exitCode || 1;
  }
  return failed ? exitCode || 1 : 0;
}

/** Run the step in this process: its exit code, or 1 with the error (through the gate: it may quote an input) when it crashed. */
export function runStep(env: Env = process.env): Promise<void> {
  return main(env).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      outputFor(env).log(command('error', { title: 'conformance action' }, String((e as Error)?.stack ?? e)));
      process.exitCode = 1;
    },
  );
}
