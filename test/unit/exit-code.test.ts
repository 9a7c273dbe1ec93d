// The exit code is one function of the sealed verdict and what the writes did (status.ts runExitCode).
import { EXIT_CODE, runExitCode } from '../../src/verdict/status';

describe('runExitCode', () => {
  it('is the sealed code when every report was written', () => {
    for (const code of Object.values(EXIT_CODE)) expect(runExitCode({ exitCode: code }, { written: true })).toBe(code);
  });

  it('when the reports were not written: a failure keeps its 1, an interrupt its 130, anything else is 2 (never a pass without its reports)', () => {
    const unwritten = { written: false, why: 'EACCES' } as const;
    expect(runExitCode({ exitCode: EXIT_CODE.nonConformant }, unwritten)).toBe(EXIT_CODE.nonConformant);
    expect(runExitCode({ exitCode: EXIT_CODE.interrupted }, unwritten)).toBe(EXIT_CODE.interrupted);
    expect(runExitCode({ exitCode: EXIT_CODE.conformant }, unwritten)).toBe(EXIT_CODE.config);
    expect(runExitCode({ exitCode: EXIT_CODE.incomplete }, unwritten)).toBe(EXIT_CODE.config);
  });
});
