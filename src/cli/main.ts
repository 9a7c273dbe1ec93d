import { mkdirSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';
import { groupOf, type Check } from '../harness/check';
import { ConfigError, loadConfig, OPTIONS, type RunConfig } from './config';
import { RateLimiter, ThrottledError, TransportError } from '../harness/http';
import { DocumentUnavailable, loadDocument, type OpenApiDocument } from '../harness/openapi-document';
import { PKG as pkg } from '../harness/paths';
import { Redactor } from '../harness/redact';
import { RestClient } from '../harness/rest';
import { RpcClient } from '../harness/rpc';
import { notSelected, runChecks, type RunEnv } from '../harness/runner';
import { createSigner, SpendBudget } from '../harness/signer';
import { Transcript } from '../harness/transcript';
import { ANVIL_PACKAGE, locateAnvil } from '../reference/anvil-binary';
import { allChecks } from '../../suites';
import { applyExpectations, loadExpectations, type ExpectationsFile } from './expectations';
import { ConsoleReporter } from './reporters/console';
import { EXIT_CODE, EXIT_CODES_HELP, SPEC_VERSION } from './results';
import { buildRunDocument, writeReports } from './run-document';
import { SUBCOMMAND_HELP, subcommandOf } from './subcommands';

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
export function deselectedBy(c: Check, cfg: Pick<RunConfig, 'only' | 'grep'>): string | undefined {
  if (!cfg.only.has(groupOf(c.id))) return `--only ${[...cfg.only].join(',')}`;
  if (cfg.grep && !cfg.grep.test(c.id)) return `--grep ${cfg.grep.source}`;
  return undefined;
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
    const shown = (url: string | undefined, flag: string) => (url ? redactor.text(url) : `none (no ${flag})`);
    io.out.write(`target: REST ${shown(cfg.baseUrl, '--base-url')}, JSON-RPC ${shown(cfg.rpcUrl, '--rpc-url')} (profile ${cfg.profile})\n`);
    return { baseUrl: cfg.baseUrl, rpcUrl: cfg.rpcUrl, signerKey: cfg.signerKey, stop: async () => {} };
  }
  const started = performance.now();
  // Loaded lazily: a run against remote URLs never pays for viem contracts and anvil plumbing.
  const { startReference } = require('../reference') as typeof import('../reference');
  const ref = await startReference({ profile: cfg.profile, blockTimeMs: cfg.blockTimeMs, flashblockMs: cfg.flashblockMs });
  io.out.write(`target: the embedded reference target (no BASE_URL or RPC_URL given), up in ${Math.round(performance.now() - started)} ms: REST ${ref.baseUrl}, JSON-RPC ${ref.rpcUrl} (profile ${ref.profile}, block time ${ref.blockTimeMs} ms, flashblocks ${ref.flashblockMs ? `every ${ref.flashblockMs} ms` : 'off'})\n`);
  return { baseUrl: ref.baseUrl, rpcUrl: ref.rpcUrl, signerKey: cfg.signerKey ?? ref.signerKey, stop: () => ref.stop() };
}

/** Any HTTP answer counts as reachable; judging the answer is the checks' job. */
async function probe(target: Target, cfg: RunConfig, redactor: Redactor, limiter?: RateLimiter): Promise<RunEnv['unreachable']> {
  const http = { timeoutMs: cfg.timeoutMs, redactor, transcript: new Transcript(), limiter };
  const down: NonNullable<RunEnv['unreachable']> = {};
  // Three tries, so one dropped connection does not fail every check of an interface.
  const attempt = async (key: 'rest' | 'rpc', f: () => Promise<unknown>) => {
    for (let i = 1; i <= 3; i++) {
      try {
        await f();
        delete down[key];
        return;
      } catch (err) {
        // A throttled answer is an HTTP answer: the target is there, only busy.
        if (err instanceof ThrottledError) return void delete down[key];
        if (!(err instanceof TransportError)) throw err;
        down[key] = err.message;
        if (i < 3) await new Promise((r) => setTimeout(r, 300 * i));
      }
    }
  };
  await Promise.all([
    target.baseUrl ? attempt('rest', () => new RestClient(target.baseUrl!, cfg.restHeaders, http).get('/v1/tokenized-stocks')) : undefined,
    target.rpcUrl ? attempt('rpc', () => new RpcClient(target.rpcUrl!, cfg.rpcHeaders, http).call('eth_chainId', [])) : undefined,
  ]);
  return Object.keys(down).length ? down : undefined;
}

/** The whole run; returns the exit code. Never throws for bad input. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const subcommand = subcommandOf(argv);
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
  if (cfg.help) return io.out.write(helpText() + '\n'), EXIT_CODE.conformant;
  if (cfg.version) return io.out.write(`${pkg.version}\n`), EXIT_CODE.conformant;
  const checks = selectChecks(catalogue, cfg);
  // The same answer for --list as for a run: a selection of nothing is a mistake in either.
  if (checks.length === 0) {
    io.err.write('conformance: --only/--grep selected no check (--list without them shows every id)\n');
    return EXIT_CODE.config;
  }
  if (cfg.list) {
    for (const c of checks) io.out.write(`${c.id}\t${c.section}\t${c.level}\t${c.needs.join('+')}\t${c.title}\n`);
    return EXIT_CODE.conformant;
  }
  if (cfg.embedded) {
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
  // Curl lines name the variables of the configuration (BASE_URL, RPC_URL) where a secret was.
  const redactor = new Redactor()
    .add(cfg.signerKey)
    .addTarget({ urlVar: 'BASE_URL', url: cfg.baseUrl, headerVar: 'REST_HEADER', headers: cfg.restHeaders })
    .addTarget({ urlVar: 'RPC_URL', url: cfg.rpcUrl, headerVar: 'RPC_HEADER', headers: cfg.rpcHeaders });
  redactor.addUrl(cfg.openapi);
  for (const secret of cfg.secrets) redactor.add(secret);
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT_CODE.interrupted);
    io.err.write(`\nconformance: ${sig} received: stopping; reports of what was measured will be written (again to quit now)\n`);
    controller.abort(`interrupted by ${sig}`);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  const deadline = setTimeout(() => controller.abort(`run deadline of ${cfg.deadlineMs} ms reached`), cfg.deadlineMs);
  deadline.unref();

  const startedAt = new Date();
  let openapi: OpenApiDocument | undefined;
  try {
    // Once, before anything else: a document that cannot be had is a mistake in the configuration.
    openapi = cfg.openapi ? await loadDocument(cfg.openapi, { baseUrl: cfg.baseUrl, headers: cfg.restHeaders, http: { timeoutMs: cfg.timeoutMs, redactor, signal: controller.signal } }) : undefined;
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
      settings: { profile: cfg.profile, clockSkewSec: cfg.clockSkewSec, navMaxAgeSec: cfg.navMaxAgeSec, timeoutMs: cfg.timeoutMs, openapi, archive: cfg.archive },
      redactor,
      signer: target.signerKey ? createSigner(target.signerKey, new SpendBudget(cfg.maxSpendWei)) : undefined,
      unreachable,
      signal: controller.signal,
      limiter,
    };
    const ran = new Map((await runChecks(checks, env, { concurrency: cfg.concurrency, onStart: (c) => reporter.started(c), onResult: (r) => reporter.result(r) })).map((r) => [r.id, r]));
    // Checks left out by --only/--grep are reported as skipped by the user's choice, not dropped.
    const results = catalogue.map((c) => ran.get(c.id) ?? notSelected(c, deselectedBy(c, cfg) ?? 'not selected'));
    if (expectations) applyExpectations(results, expectations);
    const stopReason = controller.signal.aborted ? String(controller.signal.reason) : undefined;
    const doc = buildRunDocument(
      {
        suite: { name: pkg.name, version: pkg.version },
        cfg,
        target,
        startedAt,
        finishedAt: new Date(),
        results,
        ...(stopReason ? { stopped: { by: stopReason.startsWith('interrupted') ? 'signal' : 'deadline', reason: stopReason } } : {}),
        unreachable,
      },
      redactor,
    );
    let files: string[] = [];
    try {
      files = writeReports(doc, cfg.reportDir, { certify: cfg.certify });
    } catch (err) {
      io.err.write(`conformance: could not write reports to ${cfg.reportDir}: ${(err as Error).message}\n`);
    }
    reporter.finished(doc, files);
    return doc.exitCode;
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
