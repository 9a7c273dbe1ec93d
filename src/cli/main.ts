import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { groupOf, type Check } from '../harness/check';
import { ConfigError, loadConfig, OPTIONS, type RunConfig } from '../harness/config';
import { RateLimiter, ThrottledError, TransportError } from '../harness/http';
import { PKG as pkg } from '../harness/paths';
import { Redactor } from '../harness/redact';
import { RestClient } from '../harness/rest';
import { RpcClient } from '../harness/rpc';
import { runChecks, type RunEnv } from '../harness/runner';
import { createSigner, SpendBudget } from '../harness/signer';
import { Transcript } from '../harness/transcript';
import { allChecks } from '../../suites';
import { applyExpectations, loadExpectations, type ExpectationsFile } from './expectations';
import { ConsoleReporter } from './reporters/console';
import { renderHtml } from './reporters/html';
import { renderJson } from './reporters/json';
import { renderJunit } from './reporters/junit';
import { renderSummary } from './reporters/summary';
import { exitCodeOf, SPEC_VERSION, summarize, type RunDocument } from './results';

export const EXIT = { ok: 0, failed: 1, config: 2, interrupted: 130 } as const;


export interface Io {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
}

function helpText(): string {
  const rows = OPTIONS.map(([flag, env, arg, what]) => `  --${flag}${arg ? ` ${arg}` : ''}`.padEnd(44) + `${what}${env ? ` [${env}]` : ''}`);
  return [
    `${pkg.name} ${pkg.version} — conformance checks for the Tokenized Stock Listing API and chain JSON-RPC (spec ${SPEC_VERSION})`,
    '',
    'usage: npm run conformance -- [flags]      (or: npx conformance [flags])',
    '',
    'With no URL, an embedded reference target (anvil + gateway + REST server) is started on loopback.',
    'Flags override environment variables; a .env file in the working directory is read too.',
    '',
    ...rows,
    '',
    'exit codes: 0 no required check failed · 1 a required check failed or the target could not be reached',
    '            2 bad invocation or configuration · 130 interrupted (reports of what was measured are still written)',
  ].join('\n');
}

export function selectChecks(checks: Check[], cfg: Pick<RunConfig, 'only' | 'grep'>): Check[] {
  return checks.filter((c) => cfg.only.has(groupOf(c.id)) && (!cfg.grep || cfg.grep.test(c.id)));
}

interface Target {
  baseUrl?: string;
  rpcUrl?: string;
  signerKey?: `0x${string}`;
  stop(): Promise<void>;
}

async function openTarget(cfg: RunConfig, io: Io): Promise<Target> {
  if (!cfg.embedded) return { baseUrl: cfg.baseUrl, rpcUrl: cfg.rpcUrl, signerKey: cfg.signerKey, stop: async () => {} };
  const started = performance.now();
  // Loaded lazily: a run against remote URLs never pays for viem contracts and anvil plumbing.
  const { startReference } = require('../reference') as typeof import('../reference');
  const ref = await startReference({ profile: cfg.profile, blockTimeMs: cfg.blockTimeMs });
  io.err.write(`embedded reference target up in ${Math.round(performance.now() - started)} ms: REST ${ref.baseUrl}, JSON-RPC ${ref.rpcUrl} (profile ${ref.profile}, block time ${cfg.blockTimeMs} ms)\n`);
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

function writeReports(doc: RunDocument, dir: string): string[] {
  const files: Array<[string, string]> = [
    ['results.json', renderJson(doc)],
    ['junit.xml', renderJunit(doc)],
    ['summary.md', renderSummary(doc)],
    ['report.html', renderHtml(doc)],
  ];
  mkdirSync(dir, { recursive: true });
  return files.map(([name, body]) => {
    const file = path.join(dir, name);
    writeFileSync(file, body);
    return file;
  });
}

/** The whole run; returns the exit code. Never throws for bad input. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let cfg: RunConfig;
  let expectations: ExpectationsFile | undefined;
  const catalogue = allChecks();
  try {
    cfg = loadConfig(argv, env);
    if (cfg.expectationsFile) expectations = loadExpectations(cfg.expectationsFile, new Set(catalogue.map((c) => c.id)));
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err.write(`conformance: ${err.message}\n`);
      return EXIT.config;
    }
    throw err;
  }
  if (cfg.help) return io.out.write(helpText() + '\n'), EXIT.ok;
  if (cfg.version) return io.out.write(`${pkg.version}\n`), EXIT.ok;
  const checks = selectChecks(catalogue, cfg);
  if (cfg.list) {
    for (const c of checks) io.out.write(`${c.id}\t${c.section}\t${c.level}\t${c.needs.join('+')}\t${c.title}\n`);
    return EXIT.ok;
  }
  if (checks.length === 0) {
    io.err.write('conformance: --only/--grep selected no check (see --list)\n');
    return EXIT.config;
  }
  try {
    mkdirSync(cfg.reportDir, { recursive: true });
  } catch (err) {
    io.err.write(`conformance: --report-dir (or REPORT_DIR): cannot create ${cfg.reportDir}: ${(err as Error).message}\n`);
    return EXIT.config;
  }

  // Secrets are known before any request is made, so nothing unredacted is ever recorded.
  const redactor = new Redactor().add(cfg.signerKey).addHeaders(cfg.restHeaders).addHeaders(cfg.rpcHeaders).addUrl(cfg.baseUrl).addUrl(cfg.rpcUrl);
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    io.err.write(`\nconformance: ${sig} received: stopping; reports of what was measured will be written (again to quit now)\n`);
    controller.abort(`interrupted by ${sig}`);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  const deadline = setTimeout(() => controller.abort(`run deadline of ${cfg.deadlineMs} ms reached`), cfg.deadlineMs);
  deadline.unref();

  const startedAt = new Date();
  let target: Target;
  try {
    target = await openTarget(cfg, io);
  } catch (err) {
    io.err.write(`conformance: the embedded reference target could not start: ${redactor.text((err as Error).message)}\n`);
    clearTimeout(deadline);
    return EXIT.failed;
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
      settings: { profile: cfg.profile, clockSkewSec: cfg.clockSkewSec, navMaxAgeSec: cfg.navMaxAgeSec, timeoutMs: cfg.timeoutMs, archive: cfg.archive },
      redactor,
      signer: target.signerKey ? createSigner(target.signerKey, new SpendBudget(cfg.maxSpendWei)) : undefined,
      unreachable,
      signal: controller.signal,
      limiter,
    };
    const results = await runChecks(checks, env, { concurrency: cfg.concurrency, onResult: (r) => reporter.result(r) });
    if (expectations) applyExpectations(results, expectations);
    const finishedAt = new Date();
    const interrupted = controller.signal.aborted ? String(controller.signal.reason) : undefined;
    const exitCode = interrupted?.startsWith('interrupted') ? EXIT.interrupted : interrupted ? EXIT.failed : exitCodeOf(results);
    const doc: RunDocument = redactor.value({
      suite: { name: pkg.name, version: pkg.version },
      spec: { version: SPEC_VERSION },
      target: { baseUrl: target.baseUrl ?? null, rpcUrl: target.rpcUrl ?? null, profile: cfg.profile, embedded: cfg.embedded, ...(cfg.expectationsFile ? { expectations: cfg.expectationsFile } : {}) },
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      summary: summarize(results),
      exitCode,
      ...(interrupted ? { interrupted } : {}),
      checks: results,
    });
    let files: string[] = [];
    try {
      files = writeReports(doc, cfg.reportDir);
    } catch (err) {
      io.err.write(`conformance: could not write reports to ${cfg.reportDir}: ${(err as Error).message}\n`);
    }
    reporter.finished(doc, files);
    return exitCode;
  } finally {
    clearTimeout(deadline);
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    await target.stop();
  }
}

/** The process entry point (bin/conformance.js): .env, the run, and the exit code. */
export function runCli(argv: string[] = process.argv.slice(2)): void {
  loadDotenv({ quiet: true });
  main(argv, process.env, { out: process.stdout, err: process.stderr }).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`conformance: unexpected error: ${String((err as Error)?.stack ?? err)}\n`);
      process.exit(EXIT.failed);
    },
  );
}
