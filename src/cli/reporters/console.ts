import type { Check } from '../../harness/check';
import type { CheckResult } from '../../harness/runner';
import { exitWords, isRunFailure, primarySection, scopeLimits, statusLine, factsOf, type RunDocument } from '../results';
import { rootCauses } from '../root-causes';
import {
  bySection,
  countLine,
  expectedVsActual,
  idList,
  isStale,
  outcomeCounts,
  outcomeOf,
  quoteStatements,
  rootReason,
  sectionTitle,
  skippedByReason,
  verdictOf,
} from './shared';
import { cleanStrings, forTerminal } from './untrusted';

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
    if (isStale(r)) return this.paint(31, '✗ STALE');
    switch (outcomeOf(r)) {
      case 'run-failure':
        return this.paint(31, '✗ FAIL');
      case 'advisory':
        return this.paint(33, '! warn');
      case 'expected':
        return this.paint(33, '⚠ KNOWN');
      case 'passed':
        return this.paint(32, '✓ pass');
      case 'inconclusive':
      case 'blocked':
        return this.paint(35, '? not judged');
      default:
        return this.paint(90, '- skip');
    }
  }

  /** The result's hint (what the user can do) on a line of its own, so no cut reason hides it. */
  private hint(r: Pick<CheckResult, 'hint'>, indent: string): void {
    if (r.hint) this.line(`${indent}${this.paint(36, '→')} ${r.hint}`);
  }

  /** Called with the expectations already applied (main does), so a known failure streams as known. */
  result(result: CheckResult): void {
    // Everything printed below may carry the target's text: no escape sequence or workflow command gets through.
    const r = cleanStrings(result, forTerminal);
    this.done++;
    if (isRunFailure(r)) this.failing++;
    const text = isStale(r) ? rootReason(r) : verdictOf(r) === r.status ? r.reason : `${verdictOf(r)}: ${r.reason}`;
    const why = r.status === 'passed' && !r.expectation ? '' : ` — ${firstLine(text, 160)}`;
    if (!this.live) {
      this.line(`[${String(this.done).padStart(String(this.total).length)}/${this.total}] ${this.mark(r)} ${r.id} (${r.section}) ${r.durationMs}ms${why}`);
      if (r.status === 'failed') this.hint(r, '      ');
    } else if (isRunFailure(r)) {
      this.line(`${this.mark(r)} ${r.id} (${r.section})${why}`);
      this.hint(r, '    ');
    }
    this.progress();
  }

  finished(document: RunDocument, reportFiles: string[]): void {
    const doc = cleanStrings(document, forTerminal);
    if (this.ticker) clearInterval(this.ticker);
    if (this.live) this.out.write('\r\u001b[2K');
    const { checks } = doc;

    // The per-section table.
    const groups = bySection(checks);
    const w = Math.max(...groups.map((g) => `${g.section} ${g.title}`.length), 'total'.length) + 2;
    const row = (name: string, p: number | string, f: number | string, i: number | string, s: number | string) =>
      `  ${name.padEnd(w)}${String(p).padStart(6)}${String(f).padStart(8)}${String(i).padStart(12)}${String(s).padStart(9)}`;
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
        const head = r
          ? `${r.id} (spec ${r.failedSection ?? r.section}) — ${firstLine(rootReason(r))}`
          : `${root.id}${root.reason ? ` — ${firstLine(root.reason)}` : ''}`;
        this.line(`  ${this.paint(31, '✗')} ${head}`);
        if (r) this.hint(r, '      ');
        const quoted = r && quoteStatements(r, doc.statements);
        if (quoted) this.line(`      enforces: ${firstLine(quoted, 240)}`);
        const eva = r && expectedVsActual(r);
        if (eva) this.line(`      ${eva}`);
        if (root.blocked.length) this.line(`      blocked ${root.blocked.length} check(s): ${idList(root.blocked, 4)}`);
      }
    }
    const known = checks.filter((r) => outcomeOf(r) === 'expected');
    if (known.length) {
      this.line('');
      this.line(this.paint(33, `⚠ known failures (${known.length}): listed in the expectations file, they do not fail the run`));
      for (const r of known) {
        this.line(`  ${r.id} (spec ${r.failedSection ?? r.section}) — ${firstLine(r.reason, 160)}`);
        this.line(`      known: ${firstLine(r.expectation!.reason, 160)}${r.expectation!.link ? ` (${r.expectation!.link})` : ''}`);
      }
    }
    const advisory = checks.filter((r) => outcomeOf(r) === 'advisory');
    if (advisory.length) {
      this.line('');
      this.line(this.paint(33, `! advisory warnings (${advisory.length}): failed without failing the run`));
      for (const r of advisory) {
        this.line(`  ${r.id} (spec ${r.failedSection ?? r.section}) — ${firstLine(r.reason, 160)}`);
        this.hint(r, '      ');
      }
    }
    const otherRoots = roots.filter((r) => !r.failsRun);
    const unjudged = checks.filter((r) => outcomeOf(r) === 'inconclusive');
    if (unjudged.length || otherRoots.length) {
      this.line('');
      this.line(this.paint(35, `? not judged (${s.inconclusive}):`));
      for (const r of unjudged) this.line(`  ${r.id} (${r.level}) — ${firstLine(r.reason, 160)}`);
      for (const root of otherRoots)
        this.line(`  ${root.blocked.length} check(s) blocked by ${root.id}${root.result ? ` (${root.result.status})` : ''}: ${idList(root.blocked, 4)}`);
    }
    const skipped = skippedByReason(checks);
    if (skipped.length) this.line('');
    for (const g of skipped) {
      this.line(`${g.outOfScope ? 'out of scope' : 'skipped'} (${g.ids.length}): ${g.reason} — ${idList(g.ids, 3)}`);
    }

    this.line('');
    this.line(`${countLine(outcomeCounts(checks))} in ${(doc.durationMs / 1000).toFixed(1)} s`);
    if (reportFiles.length) this.line(`reports: ${reportFiles.join(', ')}`);
    if (doc.statusReasons.length) this.line(`why: ${doc.statusReasons.join('; ')}`);
    // Judging what the given URLs allow is the default; say once what CI should ask for instead.
    if (!doc.scope.full && doc.scope.required !== 'full' && doc.status === 'conformant') {
      this.line(`note: not the full scope (${scopeLimits(doc.scope).join('; ')}); with --require full (REQUIRE=full, recommended in CI) this run would exit 3`);
    }
    const colour = doc.status === 'conformant' ? 32 : doc.status === 'incomplete' ? 33 : 31;
    this.line(this.paint(colour, this.bold(`status: ${statusLine(doc)}`)));
    this.line(this.paint(colour, exitWords(doc.exitCode)));
  }
}
