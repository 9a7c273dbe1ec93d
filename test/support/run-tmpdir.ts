import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * One temporary folder per jest run, removed when the run ends: the tests, the workers and the
 * child processes that inherit the environment (TMPDIR) make their temporary files under it, so
 * a run leaves nothing in the machine's /tmp however many folders its tests make (the certificate
 * tests alone make hundreds, each holding a whole report). jest runs this before its workers
 * start, and they inherit the environment set here. A run stopped outright (SIGKILL, Ctrl-C)
 * leaves its one folder behind.
 */
const OWNED = 'CONFORMANCE_TESTS_TMPDIR';
/** TMPDIR as it was before setup (absent: it was unset), put back by teardown. */
const BEFORE = 'CONFORMANCE_TESTS_TMPDIR_BEFORE';

export default function setup(): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'conformance-tests-'));
  if (process.env.TMPDIR !== undefined) process.env[BEFORE] = process.env.TMPDIR;
  else delete process.env[BEFORE];
  process.env[OWNED] = dir;
  process.env.TMPDIR = dir;
}

/**
 * The teardown of setup (jest's globalTeardown, in the same process): removes the run's folder and
 * puts TMPDIR back, as `jest --watch` runs setup and teardown again for every run in one process.
 */
export function teardown(): void {
  const dir = process.env[OWNED];
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  if (process.env[BEFORE] !== undefined) process.env.TMPDIR = process.env[BEFORE];
  else delete process.env.TMPDIR;
  delete process.env[OWNED];
  delete process.env[BEFORE];
}
