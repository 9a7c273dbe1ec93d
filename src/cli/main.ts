import { mkdirSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';
import { groupOf, type Check } from '../harness/check';
import { ConfigError, loadConfig, type RunConfig } from './config';
import { OPTIONS } from './options';
import { RateLimiter } from '../harness/http';
import { DocumentUnavailable, loadDocument, type OpenApiDocument } from '../harness/openapi-document';
import { PKG as pkg } from '../harness/paths';
import { Redactor } from '../harness/redact';
import { notSelected, runChecks, type CheckResult, type Deselection, type RunEnv } from '../harness/runner';
import { createSigner, SpendBudget } from '../harness/signer';
import { planSampling, samplingLine } from '../harness/sampling';
import { allChecks } from '../../suites';
import { applyExpectations, loadExpectations, type ExpectationsFile } from './expectations';
import { ConsoleReporter } from './reporters/console';
import { EXIT_CODE, EXIT_CODES_HELP, SPEC_VERSION } from './results';
import { ciRunUrl } from './certificate/statement';
import { buildRunDocument, writeReports } from './run-document';
import { probe, redactorFor } from './target';
import { SUBCOMMAND_HELP, subcommandOf } from './subcommands';
import { didYouMean } from './suggest';

export interface Io {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
}

function helpText(): string {
  const rows = OPTIONS.map(([flag, env, arg, what]) => `  --${flag}${arg ? ` ${arg}` : ''}`.padEnd(44) + `${what}${env ? ` [${env}]` : ''}`);
  return [
    `${pkg.name} ${pkg.version} — conformance checks for the Tokenized Stock Listing API and chain JSON-RPC (spec ${SPEC_VERSION})`,
    '',
    'usage: conformance [flags]    (npx tokenized-stocks-conformance [flags]; in its repository: npm run conformance -- [flags])',
    '',
    'With neither BASE_URL nor RPC_URL set (nor --base-url/--rpc-url), an embedded reference target',
    '(anvil + gateway + REST server) is started on loopback; a URL set but empty is an error (exit 2).',
    'Flags override environment variables [shown in brackets]; a .env file in the working directory is read too.',
    '',
    ...rows,
    '',
    SUBCOMMAND_HELP,
    '',
    EXIT_CODES_HELP,
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
  if (!source || !/^\^?[\w.\\-]+\$?$/.test(source)) return '';
  const literal = source.replace(/^\^|\$$/g, '').replace(/\\\./g, '.');
  return didYouMean(
    literal,
    selectChecks(catalogue, { only: cfg.only }).map((c) => c.id),
    (id) => `--grep '${id}'`,
  );
}

interface Target {
  baseUrl?: string;
  rpcUrl?: string;
  signerKey?: `0x${string}`;
  stop(): Promise<void>;
}

/** The first line of the console output: what is being judged, so an embedded run is never mistaken for a deployment. */
async function openTarget(cfg: RunConfig, io: Io, redactor: Redactor): Promise<Target> {
  if (!cfg.embedded) {
    const shown = (url: string | undefined, flag: string) => (url ? redactor.publicUrl(url) : `none (no ${flag})`);
    io.out.write(`target: REST ${shown(cfg.baseUrl, '--base-url')}, JSON-RPC ${shown(cfg.rpcUrl, '--rpc-url')} (profile ${cfg.profile})\n`);
    return { baseUrl: cfg.baseUrl, rpcUrl: cfg.rpcUrl, signerKey: cfg.signerKey, stop: async () => {} };
  }
  const started = performance.now();
  // Loaded lazily: a run against remote URLs never pays for viem contracts and anvil plumbing.
  const { startReference } = require('../reference') as typeof import('../reference');
  const ref = await startReference({ profile: cfg.profile, blockTimeMs: cfg.blockTimeMs, flashblockMs: cfg.flashblockMs });
  io.out.write(
    `target: the embedded reference target (no BASE_URL or RPC_URL given), up in ${Math.round(performance.now() - started)} ms: REST ${ref.baseUrl}, JSON-RPC ${ref.rpcUrl} (profile ${ref.profile}, block time ${ref.blockTimeMs} ms, flashblocks ${ref.flashblockMs ? `every ${ref.flashblockMs} ms` : 'off'})\n`,
  );
  return { baseUrl: ref.baseUrl, rpcUrl: ref.rpcUrl, signerKey: cfg.signerKey ?? ref.signerKey, stop: () => ref.stop() };
}

/** The whole run; returns the exit code. Never throws for bad input. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const subcommand = subcommandOf(argv, env);
  if (subcommand) return subcommand(io);
  let cfg: RunConfig;
  let expectations: ExpectationsFile | undefined;
  const catalogue = allChecks();
  try {
    cfg = loadConfig(argv, env);
    if (cfg.expectationsFile) expectations = loadExpectations(cfg.expectationsFile, new Set(catalogue.map((c) => c.id)));
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err.write(`conformance: ${err.message}\n`);
      return EXIT_CODE.config;
    }
    throw err;
  }
  if (cfg.help) return (io.out.write(helpText() + '\n'), EXIT_CODE.conformant);
  if (cfg.version) return (io.out.write(`${pkg.version}\n`), EXIT_CODE.conformant);
  const checks = selectChecks(catalogue, cfg);
  // The same answer for --list as for a run: a selection of nothing is a mistake in either.
  if (checks.length === 0) {
    io.err.write(`conformance: --only/--grep selected no check${grepSuggestion(catalogue, cfg)} (--list without them shows every id)\n`);
    return EXIT_CODE.config;
  }
  if (cfg.list) {
    for (const c of checks) io.out.write(`${c.id}\t${c.section}\t${c.level}\t${c.needs.join('+')}\t${c.title}\n`);
    return EXIT_CODE.conformant;
  }
  if (cfg.embedded) {
    // Loaded here, not at the top: a remote run loads nothing of the embedded target.
    const { ANVIL_PACKAGE, locateAnvil } = require('../reference/anvil-binary') as typeof import('../reference/anvil-binary');
    const anvil = locateAnvil({ version: (pkg as { optionalDependencies?: Record<string, string> }).optionalDependencies?.[ANVIL_PACKAGE] });
    if (!anvil.found) {
      io.err.write(`conformance: ${anvil.problem}\n`);
      return EXIT_CODE.config;
    }
  }
  try {
    mkdirSync(cfg.reportDir, { recursive: true });
  } catch (err) {
    io.err.write(`conformance: --report-dir (or REPORT_DIR): cannot create ${cfg.reportDir}: ${(err as Error).message}\n`);
    return EXIT_CODE.config;
  }

  // Secrets are known before any request is made, so nothing unredacted is ever recorded.
  const redactor = redactorFor(cfg);
  const ciUrl = ciRunUrl(env);
  const controller = new AbortController();
  // What stopped the run, as a fact beside the words the abort carries.
  let stoppedBy: 'signal' | 'deadline' | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT_CODE.interrupted);
    io.err.write(`\nconformance: ${sig} received: stopping; reports of what was measured will be written (again to quit now)\n`);
    stoppedBy = 'signal';
    controller.abort(`interrupted by ${sig}`);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  const deadline = setTimeout(() => {
    if (controller.signal.aborted) return;
    stoppedBy = 'deadline';
    controller.abort(`run deadline of ${cfg.deadlineMs} ms reached`);
  }, cfg.deadlineMs);
  deadline.unref();

  const startedAt = new Date();
  let openapi: OpenApiDocument | undefined;
  try {
    // Once, before anything else: a document that cannot be had is a mistake in the configuration.
    openapi = cfg.openapi
      ? await loadDocument(cfg.openapi, {
          baseUrl: cfg.baseUrl,
          headers: cfg.restHeaders,
          http: { timeoutMs: cfg.timeoutMs, redactor, signal: controller.signal },
        })
      : undefined;
  } catch (err) {
    if (!(err instanceof DocumentUnavailable)) throw err;
    clearTimeout(deadline);
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    if (controller.signal.aborted) return EXIT_CODE.interrupted;
    io.err.write(`conformance: --openapi (or OPENAPI): ${redactor.text(cfg.openapi!)}: ${redactor.text(err.message)}\n`);
    return EXIT_CODE.config;
  }
  let target: Target;
  try {
    target = await openTarget(cfg, io, redactor);
  } catch (err) {
    io.err.write(`conformance: the embedded reference target could not start: ${redactor.text((err as Error).message)}\n`);
    clearTimeout(deadline);
    return EXIT_CODE.nonConformant;
  }
  redactor.add(target.signerKey);
  const reporter = new ConsoleReporter(io.out, checks.length);
  try {
    const limiter = cfg.maxRps ? new RateLimiter(cfg.maxRps) : undefined;
    const unreachable = await probe(target, cfg, redactor, limiter);
    for (const [k, why] of Object.entries(unreachable ?? {})) io.err.write(`conformance: ${k} target unreachable: ${why}\n`);
    const env: RunEnv = {
      baseUrl: target.baseUrl,
      rpcUrl: target.rpcUrl,
      restHeaders: cfg.restHeaders,
      rpcHeaders: cfg.rpcHeaders,
      settings: {
        profile: cfg.profile,
        clockSkewSec: cfg.clockSkewSec,
        navMaxAgeSec: cfg.navMaxAgeSec,
        timeoutMs: cfg.timeoutMs,
        openapi,
        archive: cfg.archive,
      },
      redactor,
      signer: target.signerKey ? createSigner(target.signerKey, new SpendBudget(cfg.maxSpendWei)) : undefined,
      unreachable,
      signal: controller.signal,
      limiter,
    };
    // Expectations are applied as each result comes, so a known failure streams as known, not as FAIL.
    const onResult = (r: CheckResult) => reporter.result(expectations ? (applyExpectations([r], expectations), r) : r);
    const sampling = await planSampling(cfg.samples, {
      rpcUrl: target.rpcUrl,
      rpcHeaders: cfg.rpcHeaders,
      http: { timeoutMs: cfg.timeoutMs, redactor, signal: controller.signal, limiter },
      // The embedded reference seals every --block-time: nothing to observe.
      ...(cfg.embedded ? { blockIntervalMs: cfg.blockTimeMs } : {}),
    });
    if (sampling.n > 1) io.out.write(`${samplingLine(sampling)}\n`);
    const ran = new Map(
      (await runChecks(checks, env, { concurrency: cfg.concurrency, onStart: (c) => reporter.started(c), onResult, sampling })).map((r) => [r.id, r]),
    );
    // Checks left out by --only/--grep are reported as skipped by the user's choice, not dropped.
    const results = catalogue.map((c) => {
      const leftOut = deselectedBy(c, cfg);
      return leftOut ? notSelected(c, leftOut) : ran.get(c.id)!;
    });
    if (expectations) applyExpectations(results, expectations);
    const doc = buildRunDocument(
      {
        suite: { name: pkg.name, version: pkg.version },
        cfg,
        target,
        startedAt,
        finishedAt: new Date(),
        results,
        ...(stoppedBy ? { stopped: { by: stoppedBy, reason: String(controller.signal.reason) } } : {}),
        unreachable,
        sampling,
      },
      redactor,
    );
    let files: string[] = [];
    let unwritten: string | undefined;
    try {
      files = writeReports(doc, cfg.reportDir, { certify: cfg.certify && { signKey: cfg.signKey, url: ciUrl } });
    } catch (err) {
      unwritten = (err as Error).message;
    }
    reporter.finished(doc, files);
    if (unwritten === undefined) return doc.exitCode;
    // The verdict stands in the console, but a job reading the exit code must not take a run whose
    // reports (or certificate) are missing for a pass: a failure keeps its 1, anything else is 2.
    io.err.write(`conformance: could not write reports to ${cfg.reportDir}: ${unwritten}\n`);
    return doc.exitCode === EXIT_CODE.nonConformant || doc.exitCode === EXIT_CODE.interrupted ? doc.exitCode : EXIT_CODE.config;
  } finally {
    clearTimeout(deadline);
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    await target.stop();
  }
}

/** The process entry point (bin/conformance.js): .env, the run, and the exit code. */
export function runCli(argv: string[] = process.argv.slice(2)): void {
  loadDotenv({ quiet: true });
  // `conformance --list | head -1`: the reader is gone, which is no error of ours. Later writes
  // are dropped; a run still finishes, writes its reports and exits with its verdict.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
  main(argv, process.env, { out: process.stdout, err: process.stderr }).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`conformance: unexpected error: ${String((err as Error)?.stack ?? err)}\n`);
      process.exit(EXIT_CODE.nonConformant);
    },
  );
}
