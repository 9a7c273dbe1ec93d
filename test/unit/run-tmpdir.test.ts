import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import setup, { teardown } from '../support/run-tmpdir';

// Every temporary file of a test run lands in the run's own folder, removed when the run ends
// (test/support/run-tmpdir.ts): a test that forgets its folder leaves nothing on the machine.
describe("the test run's temporary folder", () => {
  const runDir = process.env.CONFORMANCE_TESTS_TMPDIR;

  it('is where this worker and its children make temporary files', () => {
    expect(runDir).toMatch(/conformance-tests-/);
    expect(tmpdir()).toBe(runDir);
    const child = execFileSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], { encoding: 'utf8' });
    expect(child).toBe(runDir);
  });

  it('is made and removed again for every run in one process (jest --watch), TMPDIR put back each time', () => {
    const names = ['TMPDIR', 'CONFORMANCE_TESTS_TMPDIR', 'CONFORMANCE_TESTS_TMPDIR_BEFORE'] as const;
    const saved = names.map((n) => process.env[n]);
    try {
      const outer = process.env.TMPDIR;
      for (const run of [1, 2]) {
        setup();
        const dir = process.env.TMPDIR!;
        expect({ run, parent: path.dirname(dir), exists: existsSync(dir) }).toEqual({ run, parent: outer, exists: true });
        teardown();
        expect({ run, exists: existsSync(dir), tmpdir: process.env.TMPDIR }).toEqual({ run, exists: false, tmpdir: outer });
      }
    } finally {
      names.forEach((n, i) => (saved[i] === undefined ? delete process.env[n] : (process.env[n] = saved[i])));
    }
  });
});
