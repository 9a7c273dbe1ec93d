// A careless user's mistakes, answered at configuration (exit 2) with one clear line.
import { ConfigError, loadConfig } from '../../src/cli/config';

describe('--report-dir given empty', () => {
  // `--report-dir "$OUT"` with OUT unset: the reports went into the working directory, and the
  // stale-report cleanup removed a badge.svg, certificate.json or predicate.json kept there.
  it.each(['', '   '])('%j is refused, never the working directory', (dir) => {
    expect(() => loadConfig(['--report-dir', dir], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--report-dir', dir], {})).toThrow(/^--report-dir is empty: give a folder \(default reports\), or leave the flag out$/);
  });

  it('REPORT_DIR set empty is unset, as other variables are: the default folder', () => {
    expect(loadConfig([], { REPORT_DIR: '' }).reportDir).toBe('reports');
  });
});
