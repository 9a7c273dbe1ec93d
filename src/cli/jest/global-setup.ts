/**
 * jest's globalSetup for jest.conformance.config.ts: the conformance run itself, once, before jest
 * collects any test. It is the CLI's own run (same configuration from the environment and .env,
 * same runner, same reports, the embedded reference when no URL is set); the test file then maps
 * each result of reports/results.json to a test named by the check id.
 *
 * `jest -t <pattern>` narrows the run to the checks whose id it matches, as --grep would.
 */
import path from 'node:path';
import type { Config } from '@jest/types';
import { allChecks } from '../../../suites';
import { ConfigError, loadConfig, type RunConfig } from '../config';
import { Egress } from '../egress';
import { main, selectChecks } from '../main';
import { loadUserDotenv } from '../paths';
import { EXIT_CODE, NOTHING_JUDGED } from '../../verdict/status';

/** Set for the test file: where results.json is, and when this run started (older files are stale). */
export const RESULTS_ENV = 'CONFORMANCE_JEST_RESULTS';
export const STARTED_ENV = 'CONFORMANCE_JEST_STARTED';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A configuration the run refuses is the user's mistake: its one message and exit 2, as `npm run
 * conformance` ends, never jest's "Got error running globalSetup" and a stack trace. Nothing ran
 * and no test could read a result, so jest is ended here (writes to a pipe or a file are
 * synchronous on Linux: the message is out first).
 */
function refused(message: string, say: { write(text: string): unknown }): never {
  if (message) say.write(message);
  process.exit(EXIT_CODE.config);
}

export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  loadUserDotenv();
  process.env[STARTED_ENV] = String(Date.now());
  const argv: string[] = [];
  // What this adapter says itself leaves through a gate too; the run's own output goes through main's.
  const gate = Egress.forRun([], process.env);
  const say = gate.stream(process.stderr, 'stderr');
  let cfg: RunConfig;
  try {
    cfg = loadConfig([], process.env); // a configuration error is thrown here, before any target starts
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return refused(`conformance: ${gate.redactor.text(err.message)}\n`, say);
  }
  if (globalConfig.testNamePattern) {
    // jest matches test names case-insensitively; the run takes the ids it would keep.
    const pattern = new RegExp(globalConfig.testNamePattern, 'i');
    const ids = selectChecks(allChecks(), cfg)
      .filter((c) => pattern.test(c.id))
      .map((c) => c.id);
    if (ids.length === 0) {
      // Nothing to run: jest reports every test skipped, which must not read as a pass.
      say.write(`conformance: ${NOTHING_JUDGED}: -t matched no check id (exit ${EXIT_CODE.incomplete})\n`);
      process.exitCode = EXIT_CODE.incomplete;
      return;
    }
    argv.push('--grep', `^(${ids.map(escapeRegExp).join('|')})$`);
  }
  // The run's console goes to stderr: stdout stays jest's (--json writes there).
  const code = await main(argv, process.env, { out: process.stderr, err: process.stderr });
  // Its message is said above, by the run itself.
  if (code === EXIT_CODE.config) return refused('', say);
  // An incomplete run (nothing judged, --require full unmet, a required check not judged) has no
  // failing test of its own when every selected check was skipped: jest exits 0 unless told.
  // jest keeps a code set here when every test passed, and replaces it with 1 when one failed.
  if (code === EXIT_CODE.incomplete) process.exitCode = code;
  process.env[RESULTS_ENV] = path.resolve(cfg.reportDir, 'results.json');
}
