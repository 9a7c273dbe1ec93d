import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';

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
});
