import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * One temporary folder per jest run, removed when the run ends: every test, worker and child
 * process (they inherit TMPDIR) makes its temporary files under it, so a run leaves nothing in
 * the machine's /tmp however many folders its tests make (the certificate tests alone make
 * hundreds, each holding a whole report). jest runs this before its workers start, and they
 * inherit the environment set here.
 */
const OWNED = 'CONFORMANCE_TESTS_TMPDIR';

export default function setup(): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'conformance-tests-'));
  process.env[OWNED] = dir;
  process.env.TMPDIR = dir;
}

/** The teardown of setup: removes the run's folder (jest's globalTeardown, in the same process). */
export function teardown(): void {
  const dir = process.env[OWNED];
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
