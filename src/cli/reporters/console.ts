import type { Check } from '../../harness/check';
import type { CheckResult } from '../../harness/runner';
import { type RunDocument, isRunFailure } from '../results';
import { exchangeText, failureText, verdictOf } from './shared';

const useColor = (stream: NodeJS.WriteStream) => stream.isTTY && !process.env.NO_COLOR;

/** A console a person can follow: one line per finished check, details of failures at the end. */
export class ConsoleReporter {
  private readonly color: boolean;
  private done = 0;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly total: number,
  ) {
    this.color = useColor(out);
  }

  private paint(code: number, s: string): string {
    return this.color ? `\u001b[${code}m${s}\u001b[0m` : s;
  }

  line(s: string): void {
    this.out.write(s + '\n');
  }

  started(_c: Check): void {}

  result(r: CheckResult): void {
    this.done++;
    const v = verdictOf(r);
    const mark = isRunFailure(r) ? this.paint(31, '✗ FAIL') : r.status === 'failed' ? this.paint(33, '! warn') : r.status === 'passed' ? this.paint(32, '✓ pass') : this.paint(90, r.status === 'skipped' ? '- skip' : '? inconclusive');
    const why = r.status === 'passed' ? '' : ` — ${r.reason.split('\n')[0].slice(0, 160)}`;
    this.line(`[${String(this.done).padStart(String(this.total).length)}/${this.total}] ${mark} ${r.id} (${r.section}) ${r.durationMs}ms${v.includes('(') ? ` ${v.slice(v.indexOf('('))}` : ''}${why}`);
  }

  finished(doc: RunDocument, reportFiles: string[]): void {
    const failing = doc.checks.filter(isRunFailure);
    for (const r of failing) {
      this.line('');
      this.line(this.paint(31, failureText(r)));
      const last = r.exchanges[r.exchanges.length - 1];
      if (last) this.line(exchangeText(last).split('\n').map((l) => `    ${l}`).join('\n').slice(0, 3000));
    }
    const s = doc.summary;
    this.line('');
    this.line(`${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s.inconclusive} inconclusive (${s.requiredFailed} required failures, ${s.advisoryFailed} advisory, ${s.expectedFailures} expected, ${s.unexpectedPasses} unexpected passes) in ${(doc.durationMs / 1000).toFixed(1)} s`);
    if (reportFiles.length) this.line(`reports: ${reportFiles.join(', ')}`);
    this.line(doc.exitCode === 0 ? this.paint(32, 'verdict: no required check failed (exit 0)') : this.paint(31, 'verdict: a required check failed (exit 1)'));
  }
}
