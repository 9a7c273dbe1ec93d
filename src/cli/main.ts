import { groupOf, type Check } from '../harness/check';
import { ConfigError, loadConfig, type RunConfig } from './config';
import { HELP_EXAMPLES, helpRows } from './options';
import { PKG as pkg } from '../harness/paths';
import { notSelected, runChecks, type CheckResult, type Deselection, type RunEnv } from '../harness/runner';
import { planSampling, samplingLine } from '../harness/sampling';
import { allChecks } from '../../suites';
import { loadExpectations, type ExpectationsFile } from './expectations';
import { judge, type Judged } from '../verdict/outcome';
import { ConsoleReporter } from './reporters/console';
import { renderJson } from './reporters/json';
import { listJson, listText } from './reporters/list';
import { EXIT_CODE, EXIT_CODES_HELP, exitWords, runExitCode, type Writes } from '../verdict/status';
import { SPEC_VERSION, type RunDocument } from '../verdict/document';
import { ciRunUrl } from './certificate/statement';
import { buildRunDocument } from '../verdict/build-document';
import { readerCheck, readerDocument } from '../verdict/reader';
import { clearEarlierVerdict, earlierVerdictRemoved, writeReports } from './write-reports';
import { uncertifiable } from './certificate/write';
import { Egress, type Io, type OutStream } from './egress';
import { lockReportDir, ReportDirError, type ReportLock } from './report-lock';
import { openRun, OpenRunError, type RunTarget } from './open-run';
import { discardEarly } from './reference-process';
import { SUBCOMMAND_HELP, subcommandOf } from './subcommands';
import { didYouMean } from './suggest';
import { dotenvFile, dotenvProblem, fromUserDir, loadUserDotenv, shownPath } from './paths';
import { exitWhenDrained } from './exit';

export type { Io } from './egress';

function helpText(): string {
  return [
    `${pkg.name} ${pkg.version} — conformance checks for the Tokenized Stock Listing API and chain JSON-RPC (spec ${SPEC_VERSION})`,
    '',
    'usage: conformance [flags]    (npx tokenized-stocks-conformance [flags]; in its repository: npm run conformance -- [flags])',
    '',
    'With neither BASE_URL nor RPC_URL set (nor --base-url/--rpc-url), an embedded reference target',
    '(anvil + gateway + REST server) is started on loopback; under CI (CI=true, GITHUB_ACTIONS=true) only',
    'with --embedded, else exit 2. A URL set but empty is an error (exit 2).',
    'Flags override environment variables [shown in brackets]; a .env file in the directory the command is run from is read too',
    '(under npm run: the directory npm was run in, not the package root; relative paths are taken from there as well).',
    '',
    ...helpRows(),
    '',
    SUBCOMMAND_HELP,
    '',
    EXIT_CODES_HELP,
    '',
    'examples:',
    ...HELP_EXAMPLES.map((e) => `  ${e}`),
  ].join('\n');
}

export function selectChecks(checks: Check[], cfg: Pick<RunConfig, 'only' | 'grep'>): Check[] {
  return checks.filter((c) => !deselectedBy(c, cfg));
}

/** The flag that leaves a check out of the run (`--only rest`, `--grep …`), or undefined when it is selected. */
export function deselectedBy(c: Check, cfg: Pick<RunConfig, 'only' | 'grep'>): Deselection | undefined {
  if (!cfg.only.has(groupOf(c.id))) return { flag: '--only', words: `--only ${[...cfg.only].join(',')}` };
  if (cfg.grep && !cfg.grep.test(c.id)) return { flag: '--grep', words: `--grep ${cfg.grep.source}` };
  return undefined;
}

/**
 * For a --grep that selected nothing: the ids closest to it. A pattern written as an id (letters,
 * digits, dots, dashes, maybe escaped dots and anchors) is compared with the ids as text.
 */
function grepSuggestion(catalogue: Check[], cfg: Pick<RunConfig, 'only' | 'grep'>): string {
  const source = cfg.grep?.source;
  // `--grep 'a,b'` or `'a b'`, written as a list (a comma that is no `{m,n}` quantifier): it is one regular expression.
  if (source && /\s|,(?!\d*\})/.test(source))
    return ` (--grep is a regular expression, not a list: join ids with |, as in --grep '${source
      .split(/[\s,]+/)
      .filter(Boolean)
      .join('|')}')`;
  if (!source || !/^\^?[\w.\\-]+\$?$/.test(source)) return '';
  const literal = source.replace(/^\^|\$$/g, '').replace(/\\\./g, '.');
  return didYouMean(
    literal,
    selectChecks(catalogue, { only: cfg.only }).map((c) => c.id),
    (id) => `--grep '${id}'`,
  );
}

/**
 * The whole run; returns the exit code. Never throws for bad input. Every byte it writes leaves
 * through one egress gate that knows the secrets of `argv` and `env` before they are parsed; a
 * write the gate refused makes a run that would have exited 0 or 3 exit 2 (a failure keeps its 1).
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv, given: Io): Promise<number> {
  const gate = Egress.forRun(argv, env, (line) => given.err.write(line));
  const io = gate.io(given);
  const code = await gated(argv, env, io, gate, given.out);
  if (gate.refused.length === 0 || code === EXIT_CODE.nonConformant || code === EXIT_CODE.interrupted || code === EXIT_CODE.config) return code;
  // The last two lines of a run are its status and the exit code it really ends with (on stderr: --json keeps stdout for the document).
  io.err.write(`status: not published whole — a write was withheld (it would still have carried a secret)\n${exitWords(EXIT_CODE.config)}\n`);
  return EXIT_CODE.config;
}

/**
 * An expectations file turns a listed failure into a known one, which fails no run: right for CI,
 * wrong for a certificate, which would then state "conformant" (predicate PASSED, a green badge)
 * for a target that failed required checks.
 */
const CERTIFY_WITH_EXPECTATIONS =
  '--certify with --expectations (or EXPECTATIONS): a certificate states what the target did, and the expectations file would make its listed failures known instead of failed (a target failing required checks certified conformant); certify without --expectations';

/** The configuration and the expectations file, or exit 2 with one message (a .env that cannot be read, a bad flag or file). */
function configure(argv: string[], env: NodeJS.ProcessEnv, io: Io, catalogue: Check[]): { cfg: RunConfig; expectations?: ExpectationsFile } | number {
  try {
    const unreadableDotenv = dotenvProblem();
    if (unreadableDotenv) throw new ConfigError(`.env: ${unreadableDotenv}`);
    const cfg = loadConfig(argv, env);
    if (!cfg.expectationsFile) return { cfg };
    const expectations = loadExpectations(fromUserDir(cfg.expectationsFile, env), new Set(catalogue.map((c) => c.id)));
    if (cfg.certify) throw new ConfigError(CERTIFY_WITH_EXPECTATIONS);
    return { cfg, expectations };
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err.write(`conformance: ${err.message}\n`);
      return EXIT_CODE.config;
    }
    throw err;
  }
}

/**
 * Before anything is judged: the notices, the questions (--help, --version, --list) answered, and the
 * mistakes that judge nothing said (exit 2): a selection of no check. Returns the checks to run, or the exit code.
 */
function checksToRun(argv: string[], env: NodeJS.ProcessEnv, io: Io, cfg: RunConfig, catalogue: Check[]): Check[] | number {
  // Which .env the settings came from (the one in the directory the command was run from), if any.
  const dotenv = dotenvFile();
  if (dotenv) io.err.write(`conformance: read ${dotenv} (variables already set win over it)\n`);
  for (const warning of cfg.warnings) io.err.write(`conformance: ${warning}\n`);
  if (cfg.help) return (io.out.write(helpText() + '\n'), EXIT_CODE.conformant);
  if (cfg.version) return (io.out.write(`${pkg.version}\n`), EXIT_CODE.conformant);
  const checks = selectChecks(catalogue, cfg);
  // The same answer for --list as for a run: a selection of nothing is a mistake in either.
  if (checks.length === 0) {
    io.err.write(`conformance: --only/--grep selected no check${grepSuggestion(catalogue, cfg)} (--list without them shows every id)\n`);
    return EXIT_CODE.config;
  }
  if (cfg.list) {
    io.out.write(cfg.json ? listJson(checks) : listText(checks));
    return EXIT_CODE.conformant;
  }
  return checks;
}

/** The embedded target's anvil binary, located (a remote run loads nothing of the embedded target); false, said, when it is missing. */
function anvilFound(io: Io): boolean {
  const { ANVIL_PACKAGE, locateAnvil } = require('../reference/anvil-binary') as typeof import('../reference/anvil-binary');
  const anvil = locateAnvil({ version: (pkg as { optionalDependencies?: Record<string, string> }).optionalDependencies?.[ANVIL_PACKAGE] });
  if (!anvil.found) io.err.write(`conformance: ${anvil.problem}\n`);
  return anvil.found;
}

/** What stops a run early: a signal (a second one quits at once) or its deadline, with which one it was as a fact. */
interface RunStop {
  controller: AbortController;
  stoppedBy(): 'signal' | 'deadline' | undefined;
  /** The deadline cleared and the signal handlers removed. */
  dispose(): void;
}

function stopOnSignalOrDeadline(io: Io, deadlineMs: number): RunStop {
  const controller = new AbortController();
  let stoppedBy: 'signal' | 'deadline' | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    // "Again to quit now": what is written still leaves, but a reader that takes nothing is not waited for.
    if (controller.signal.aborted) return exitWhenDrained(EXIT_CODE.interrupted, 1_000);
    io.err.write(`\nconformance: ${sig} received: stopping; reports of what was measured will be written (again to quit now)\n`);
    stoppedBy = 'signal';
    controller.abort(`interrupted by ${sig}`);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  const deadline = setTimeout(() => {
    if (controller.signal.aborted) return;
    stoppedBy = 'deadline';
    controller.abort(`run deadline of ${deadlineMs} ms reached`);
  }, deadlineMs);
  deadline.unref();
  return {
    controller,
    stoppedBy: () => stoppedBy,
    dispose: () => {
      clearTimeout(deadline);
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    },
  };
}

interface OpenedRun {
  cfg: RunConfig;
  catalogue: Check[];
  checks: Check[];
  expectations?: ExpectationsFile;
  target: RunTarget;
  runEnv: RunEnv;
  reporter: ConsoleReporter;
  stop: RunStop;
  startedAt: Date;
}

/** The checks run, each result judged once as it comes (a known failure streams as known), and results.json assembled. */
async function judgeRun(run: OpenedRun, io: Io, redactor: Egress['redactor']): Promise<RunDocument> {
  const { cfg, catalogue, checks, expectations, target, runEnv, reporter, stop } = run;
  const judgedById = new Map<string, Judged>();
  // A result with a blocker is decided with its root, in the seal: the console shows it then, as results.json holds it.
  const blocked = new Set<string>();
  const onResult = (r: CheckResult) => {
    const j = judge(r, expectations);
    judgedById.set(j.id, j);
    if (r.blocker) blocked.add(r.id);
    else reporter.result(readerCheck(j));
  };
  const sampling = await planSampling(cfg.samples, {
    rpcUrl: target.rpcUrl,
    rpcHeaders: cfg.rpcHeaders,
    http: { timeoutMs: cfg.timeoutMs, redactor, signal: stop.controller.signal, limiter: runEnv.limiter },
    // The embedded reference seals every --block-time: nothing to observe.
    ...(cfg.embedded ? { blockIntervalMs: cfg.blockTimeMs } : {}),
  });
  if (sampling.n > 1) io.out.write(`${samplingLine(sampling)}\n`);
  const ran = new Map(
    (await runChecks(checks, runEnv, { concurrency: cfg.concurrency, onStart: (c) => reporter.started(c), onResult, sampling })).map((r) => [r.id, r]),
  );
  // Nothing asks the target anything more: an embedded one stops while the document and the reports are made (gated awaits it).
  void target.stop();
  // Checks left out by --only/--grep are reported as skipped by the user's choice, not dropped.
  const results = catalogue.map((c) => {
    const leftOut = deselectedBy(c, cfg);
    return judgedById.get(c.id) ?? judge(leftOut ? notSelected(c, leftOut) : ran.get(c.id)!, expectations);
  });
  const stoppedBy = stop.stoppedBy();
  const doc = buildRunDocument(
    {
      suite: { name: pkg.name, version: pkg.version },
      cfg,
      target,
      startedAt: run.startedAt,
      finishedAt: new Date(),
      results,
      ...(stoppedBy ? { stopped: { by: stoppedBy, reason: String(stop.controller.signal.reason) } } : {}),
      unreachable: runEnv.unreachable,
      sampling,
    },
    redactor,
  );
  for (const c of doc.checks) if (blocked.has(c.id)) reporter.result(readerCheck(c));
  return doc;
}

/** The reports written through the gate, the console's last lines, and the exit code they end with. */
function reportRun(
  doc: RunDocument,
  ctx: {
    cfg: RunConfig;
    env: NodeJS.ProcessEnv;
    io: Io;
    gate: Egress;
    reporter: ConsoleReporter;
    ciUrl: string | undefined;
    printDocument?: (doc: RunDocument) => void;
  },
): number {
  const { cfg, env, io, gate, reporter } = ctx;
  let files: string[] = [];
  let writes: Writes = { written: true };
  const notCertified = cfg.certify ? uncertifiable(doc) : undefined;
  if (notCertified) io.err.write(`conformance: no certificate written: ${notCertified}\n`);
  try {
    files = writeReports(doc, cfg.reportDir, { certify: cfg.certify && { signKey: cfg.signKey, url: ctx.ciUrl }, gate });
  } catch (err) {
    writes = { written: false, why: (err as Error).message };
  }
  reporter.finished(
    readerDocument(doc),
    files.map((f) => shownPath(f, env)),
  );
  ctx.printDocument?.(doc);
  const code = runExitCode(doc, writes);
  if (writes.written) return code;
  io.err.write(`conformance: could not write reports to ${cfg.reportDir}: ${writes.why}\n`);
  // The last two lines of a run are its status and the exit code it really ends with.
  io.out.write(`status: ${doc.status} as judged, but the reports were not written\n${exitWords(code)}\n`);
  return code;
}

/** The steps of a run: a subcommand, or configure, answer the questions, lock the report folder, open the run, judge, report. */
async function gated(argv: string[], env: NodeJS.ProcessEnv, io: Io, gate: Egress, stdout: Io['out']): Promise<number> {
  const subcommand = subcommandOf(argv, env);
  if (subcommand) return subcommand(io, gate);
  const catalogue = allChecks();
  const configured = configure(argv, env, io, catalogue);
  if (typeof configured === 'number') return configured;
  const { cfg, expectations } = configured;
  const checks = checksToRun(argv, env, io, cfg, catalogue);
  if (typeof checks === 'number') return checks;
  // --json: the run's document alone on stdout, every human line on stderr (as gh --json does).
  const printDocument = cfg.json ? documentPrinter(stdout) : undefined;
  if (cfg.json) io = { out: io.err, err: io.err };
  // Loaded here, not at the top: a remote run loads nothing of the embedded target.
  if (cfg.embedded && !anvilFound(io)) return EXIT_CODE.config;
  // Before anything is judged: a folder the reports cannot go to, or one another run is writing, is said now (exit 2).
  let lock: ReportLock;
  try {
    lock = lockReportDir(cfg.reportDir, (line) => io.err.write(line));
  } catch (err) {
    if (!(err instanceof ReportDirError)) throw err;
    io.err.write(`conformance: ${err.message}\n`);
    return EXIT_CODE.config;
  }
  const earlier = clearEarlierVerdict(cfg.reportDir, gate);
  const noVerdict = () => {
    if (earlier.length) io.err.write(`conformance: ${earlierVerdictRemoved(shownPath(cfg.reportDir, env), earlier)}\n`);
  };

  const ciUrl = ciRunUrl(env);
  const stop = stopOnSignalOrDeadline(io, cfg.deadlineMs);
  const startedAt = new Date();
  let target: RunTarget;
  let runEnv: RunEnv;
  try {
    // Secrets are registered with the gate here, before any request, so nothing unredacted is ever recorded.
    ({ target, env: runEnv } = await openRun(cfg, gate, {
      signal: stop.controller.signal,
      say: { out: (line) => io.out.write(line), err: (line) => io.err.write(line) },
    }));
  } catch (err) {
    stop.dispose();
    lock.release();
    const stopped = err instanceof OpenRunError && err.stage !== 'target' && stop.controller.signal.aborted;
    // The run's deadline is no interrupt: the run ended with nothing judged (incomplete), and says why.
    const interrupted = stopped && stop.stoppedBy() !== 'deadline';
    // Why the run ended first, then that the folder holds no verdict.
    if (err instanceof OpenRunError && !interrupted) io.err.write(`conformance: ${err.message}\n`);
    noVerdict();
    if (!(err instanceof OpenRunError)) throw err;
    if (interrupted) return EXIT_CODE.interrupted;
    if (stopped) return EXIT_CODE.incomplete;
    return err.stage === 'target' ? EXIT_CODE.nonConformant : EXIT_CODE.config;
  }
  const reporter = new ConsoleReporter(io.out, checks.length);
  let doc: RunDocument | undefined;
  try {
    doc = await judgeRun({ cfg, catalogue, checks, expectations, target, runEnv, reporter, stop, startedAt }, io, gate.redactor);
    return reportRun(doc, { cfg, env, io, gate, reporter, ciUrl, printDocument });
  } catch (err) {
    // A crash before the verdict: the folder is left empty, and that is said before the crash is.
    if (!doc) noVerdict();
    throw err;
  } finally {
    stop.dispose();
    lock.release();
    await target.stop();
  }
}

/**
 * --json's stdout: the very bytes of results.json, as the report file is written (the sealed
 * document, its outside text masked when sealed; inert for a log already), not masked again as
 * text, which would mask the suite's own words, nor made inert line by line, which would change it.
 */
function documentPrinter(stdout: Io['out']): (doc: RunDocument) => void {
  return (doc) => void stdout.write(renderJson(doc));
}

/** The process entry point (bin/conformance.js): .env, the run, and the exit code. */
export function runCli(argv: string[] = process.argv.slice(2)): void {
  loadUserDotenv();
  // `conformance --list | head -1`: the reader is gone, which is no error of ours. Later writes
  // are dropped; a run still finishes, writes its reports and exits with its verdict.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
  main(argv, process.env, { out: process.stdout, err: process.stderr }).then(
    // A reference child started early (run.ts) that the run never took is stopped before exit.
    (code) => discardEarly().then(() => exitWhenDrained(code)),
    (err) => exitWhenDrained(crashed(err, argv, process.env, process.stderr)),
  );
}

/**
 * An error the run did not expect is a defect of this suite, not evidence about the target: said
 * through a gate that knows the command line's secrets, and the run is incomplete (exit 3), never
 * non-conformant (a verdict no check reached).
 */
export function crashed(err: unknown, argv: string[], env: NodeJS.ProcessEnv, stderr: OutStream): number {
  Egress.forRun(argv, env, (line) => stderr.write(line))
    .stream(stderr, 'stderr')
    .write(
      `conformance: unexpected error (a defect of this suite, not a verdict on the target; the run has no verdict): ${String((err as Error)?.stack ?? err)}\n`,
    );
  return EXIT_CODE.incomplete;
}
