import type { Check } from '../../harness/check';
import type { CheckResult } from '../../harness/runner';
import { exitWords, isRunFailure, primarySection, rootCauses, statusLine, factsOf, type RunDocument } from '../results';
import { bySection, expectedVsActual, idList, outcomeOf, quoteStatements, rootReason, sectionTitle, skippedByReason, verdictOf } from './shared';

/** Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org). */
export function useColor(stream: Pick<NodeJS.WriteStream, 'isTTY'>, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

const firstLine = (s: string, max = 200) => {
  const l = s.split('\n')[0];
  return l.length > max ? `${l.slice(0, max)}…` : l;
};

/**
 * The console a person follows. On a terminal: one progress line rewritten in place (checks
 * done/total, current section, elapsed), with run-failing checks printed above it as they come.
 * Elsewhere (CI logs, pipes): one plain line per finished check. At the end, for both: a table by
 * spec section, each failure in two or three lines, what was not judged, skipped and out-of-scope
 * checks grouped by reason, where the reports are, and the status with the exit code in words.
 */
export class ConsoleReporter {
  private readonly color: boolean;
  private readonly live: boolean;
  private done = 0;
  private failing = 0;
  private section = '';
  private readonly startedAt = Date.now();
  private ticker?: NodeJS.Timeout;

  constructor(
    private readonly out: Pick<NodeJS.WriteStream, 'write' | 'isTTY'>,
    private readonly total: number,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.color = useColor(out, env);
    this.live = out.isTTY === true && !env.CI;
    if (this.live) {
      this.ticker = setInterval(() => this.progress(), 1000);
      this.ticker.unref();
    }
  }

  private paint(code: number, s: string): string {
    return this.color ? `\u001b[${code}m${s}\u001b[0m` : s;
  }

  private bold(s: string): string {
    return this.paint(1, s);
  }

  line(s = ''): void {
    if (this.live) this.out.write('\r\u001b[2K');
    this.out.write(s + '\n');
  }

  private progress(): void {
    if (!this.live) return;
    const elapsed = ((Date.now() - this.startedAt) / 1000).toFixed(0);
    const where = this.section ? ` · ${this.section} ${sectionTitle(this.section)}` : '';
    const bad = this.failing ? ` · ${this.paint(31, `${this.failing} failing`)}` : '';
    this.out.write(`\r\u001b[2K[${String(this.done).padStart(String(this.total).length)}/${this.total}]${where} · ${elapsed} s${bad}`);
  }

  started(c: Check): void {
    this.section = primarySection(c);
    this.progress();
  }

  private mark(r: CheckResult): string {
    switch (outcomeOf(r)) {
      case 'run-failure':
        return this.paint(31, '✗ FAIL');
      case 'advisory':
        return this.paint(33, '! warn');
      case 'expected':
        return this.paint(33, '✗ known');
      case 'passed':
        return this.paint(32, '✓ pass');
      case 'inconclusive':
      case 'blocked':
        return this.paint(35, '? not judged');
      default:
        return this.paint(90, '- skip');
    }
  }

  result(r: CheckResult): void {
    this.done++;
    if (isRunFailure(r)) this.failing++;
    const why = r.status === 'passed' && !r.expectation ? '' : ` — ${firstLine(verdictOf(r) === r.status ? r.reason : `${verdictOf(r)}: ${r.reason}`, 160)}`;
    if (!this.live) this.line(`[${String(this.done).padStart(String(this.total).length)}/${this.total}] ${this.mark(r)} ${r.id} (${r.section}) ${r.durationMs}ms${why}`);
    else if (isRunFailure(r)) this.line(`${this.mark(r)} ${r.id} (${r.section})${why}`);
    this.progress();
  }

  finished(doc: RunDocument, reportFiles: string[]): void {
    if (this.ticker) clearInterval(this.ticker);
    if (this.live) this.out.write('\r\u001b[2K');
    const { checks } = doc;

    // The per-section table.
    const groups = bySection(checks);
    const w = Math.max(...groups.map((g) => `${g.section} ${g.title}`.length), 'total'.length) + 2;
    const row = (name: string, p: number | string, f: number | string, i: number | string, s: number | string) => `  ${name.padEnd(w)}${String(p).padStart(6)}${String(f).padStart(8)}${String(i).padStart(12)}${String(s).padStart(9)}`;
    this.line('');
    this.line(this.bold(row('spec section', 'passed', 'failed', 'not judged', 'skipped')));
    for (const g of groups) this.line(row(`${g.section} ${g.title}`, g.passed, g.failed, g.inconclusive, g.skipped));
    const s = doc.summary;
    this.line(row('total', s.passed, s.failed, s.inconclusive, s.skipped));

    // Root causes first: each failure that fails the run, once, with what it blocked.
    const roots = rootCauses(checks, factsOf(doc));
    const failingRoots = roots.filter((r) => r.failsRun);
    if (failingRoots.length) {
      this.line('');
      this.line(this.paint(31, this.bold(`✗ fails the run (${failingRoots.length}):`)));
      for (const root of failingRoots) {
        const r = root.result;
        const head = r ? `${r.id} (spec ${r.failedSection ?? r.section}) — ${firstLine(rootReason(r))}` : `${root.id}${root.reason ? ` — ${firstLine(root.reason)}` : ''}`;
        this.line(`  ${this.paint(31, '✗')} ${head}`);
        const quoted = r && quoteStatements(r, doc.statements);
        if (quoted) this.line(`      enforces: ${firstLine(quoted, 240)}`);
        const eva = r && expectedVsActual(r);
        if (eva) this.line(`      ${eva}`);
        if (root.blocked.length) this.line(`      blocked ${root.blocked.length} check(s): ${idList(root.blocked, 4)}`);
      }
    }
    const advisory = checks.filter((r) => outcomeOf(r) === 'advisory' || outcomeOf(r) === 'expected');
    if (advisory.length) {
      this.line('');
      this.line(this.paint(33, `! failed without failing the run (${advisory.length}): advisory checks and known failures`));
      for (const r of advisory) this.line(`  ${r.id} (spec ${r.failedSection ?? r.section}) — ${verdictOf(r)}: ${firstLine(r.reason, 160)}`);
    }
    const otherRoots = roots.filter((r) => !r.failsRun);
    const unjudged = checks.filter((r) => outcomeOf(r) === 'inconclusive');
    if (unjudged.length || otherRoots.length) {
      this.line('');
      this.line(this.paint(35, `? not judged (${s.inconclusive}):`));
      for (const r of unjudged) this.line(`  ${r.id} (${r.level}) — ${firstLine(r.reason, 160)}`);
      for (const root of otherRoots) this.line(`  ${root.blocked.length} check(s) blocked by ${root.id}${root.result ? ` (${root.result.status})` : ''}: ${idList(root.blocked, 4)}`);
    }
    const skipped = skippedByReason(checks);
    if (skipped.length) this.line('');
    for (const g of skipped) {
      this.line(`${g.outOfScope ? 'out of scope' : 'skipped'} (${g.ids.length}): ${g.reason} — ${idList(g.ids, 3)}`);
    }

    this.line('');
    this.line(`${s.passed} passed, ${s.failed} failed, ${s.inconclusive} not judged, ${s.skipped} skipped of ${s.total} checks in ${(doc.durationMs / 1000).toFixed(1)} s`);
    if (reportFiles.length) this.line(`reports: ${reportFiles.join(', ')}`);
    if (doc.statusReasons.length) this.line(`why: ${doc.statusReasons.join('; ')}`);
    const colour = doc.status === 'conformant' ? 32 : doc.status === 'incomplete' ? 33 : 31;
    this.line(this.paint(colour, this.bold(`status: ${statusLine(doc)}`)));
    this.line(this.paint(colour, exitWords(doc.exitCode)));
  }
}
