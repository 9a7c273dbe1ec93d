// An error the run did not expect is the suite's defect, not a verdict: exit 3 (incomplete), never
// 1 (non-conformant, which no check found), and said through the gate (no secret of the command line).
import { crashed } from '../../src/cli/main';
import { EXIT_CODE } from '../../src/verdict/status';

it("a crash exits 3 (incomplete), says it is no verdict on the target, and masks the command line's secrets", () => {
  const written: string[] = [];
  const stderr = { isTTY: false, write: (t: string) => (written.push(t), true) };
  const key = 'QKEY987654321zzSECRET';
  const code = crashed(new RangeError(`Maximum call stack size exceeded near ${key}`), ['--rpc-url', `https://node.example/v2/${key}`], {}, stderr);
  const said = written.join('');
  expect(code).toBe(EXIT_CODE.incomplete);
  // Not "nothing was judged": a crash may come after the checks, even after results.json (the console's last lines).
  expect(said).toMatch(/^conformance: unexpected error \(a defect of this suite, not a verdict on the target; the run has no verdict\): RangeError/);
  expect(said).not.toContain(key);
});
