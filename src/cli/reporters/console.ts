import type { Check } from '../../harness/check';
import { levelWord, type ReaderCheck, type ReaderDocument } from '../../verdict/reader';
import type { CheckResult } from '../../harness/runner';
import { sectionOf, sectionTitle } from '../../verdict/outcome';
import { EXIT_CODE, exitWords } from '../../verdict/status';
import { judgedWords } from '../../verdict/coverage';
import { scopeLimits } from '../../verdict/scope';
import { coveredByRoots, isFailure, STATUS_TONE, storedRoots } from './roots';
import { countLine, rootReason, OUTCOME_WORDS, verdictOf } from './outcome-words';
import { expectedVsActual, quoteStatements, quoteLabel } from './failure-text';
import { idList, skippedByReason, withOutcome } from './grouping';
import { violatedSection } from '../../harness/result';
import { cleanStrings, forTerminal } from '../inert-text';
import { maxOf } from '../../harness/many';

/**
 * Colour on a terminal; never when NO_COLOR is set to anything (no-color.org); and where no
 * terminal is but the log shows colour (CI), when FORCE_COLOR asks for it (any value but 0/false).
 */
export function useColor(stream: Pick<NodeJS.WriteStream, 'isTTY'>, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return !['0', 'false'].includes(env.FORCE_COLOR);
  return stream.isTTY === true;
}

/** Verdict words that are the reason's own heading: printed as the reason alone. */
const PLAIN_VERDICTS: ReadonlySet<string> = new Set([OUTCOME_WORDS.passed, OUTCOME_WORDS.failed, OUTCOME_WORDS.skipped, OUTCOME_WORDS['not-judged']]);
const TONE_COLOUR = { good: 32, warn: 33, bad: 31 } as const;

const firstLine = (s: string, max = 200) => {
  const l = s.split('\n')[0];
  return l.length > max ? `${l.slice(0, max)}…` : l;
};

/**
 * The console a person follows. On a terminal: one progress line rewritten in place (checks
 * done/total, current section, elapsed), with run-failing checks printed above it as they come.
 * Elsewhere (CI logs, pipes): one plain line per finished check, starting "[n/total]" (the GitHub
 * Action folds those lines in a group of its log with the runner's own commands: the console writes
 * no workflow command, which the egress gate would make inert anyway). At the end, for both: a table by
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
    this.section = sectionOf(c);
    this.progress();
  }

  private mark(r: ReaderCheck): string {
    switch (r.outcome) {
      case 'failed':
        return this.paint(31, '✗ FAIL');
      case 'stale-expectation':
        return this.paint(33, '★ STALE');
      case 'warning':
        return this.paint(33, '! warn');
      case 'known-failure':
        return this.paint(33, '⚠ KNOWN');
      case 'passed':
        return this.paint(32, '✓ pass');
      case 'not-judged':
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
  result(result: ReaderCheck): void {
    // Everything printed below may carry the target's text: no escape sequence or workflow command gets through.
    const r = cleanStrings(result, forTerminal);
    this.done++;
    if (r.outcome === 'failed') this.failing++;
    const text = r.outcome === 'stale-expectation' ? rootReason(r) : PLAIN_VERDICTS.has(verdictOf(r)) ? r.reason : `${verdictOf(r)}: ${r.reason}`;
    const why = r.outcome === 'passed' ? '' : ` — ${firstLine(text, 160)}`;
    if (!this.live) {
      this.line(`[${String(this.done).padStart(String(this.total).length)}/${this.total}] ${this.mark(r)} ${r.id} (${r.section}) ${r.durationMs}ms${why}`);
      if (isFailure(r)) this.hint(r, '      ');
    } else if (r.outcome === 'failed') {
      this.line(`${this.mark(r)} ${r.id} (${r.section})${why}`);
      this.hint(r, '    ');
    }
    this.progress();
  }

  finished(document: ReaderDocument, reportFiles: string[]): void {
    const doc = cleanStrings(document, forTerminal);
    if (this.ticker) clearInterval(this.ticker);
    if (this.live) this.out.write('\r\u001b[2K');
    const { checks, counts } = doc;

    // The per-section table, from the stored counts: a column for each outcome the run has (passed, failed, not judged and skipped always).
    const columns: Array<[string, (c: typeof counts) => number]> = [
      ['passed', (c) => c.passed],
      ['failed', (c) => c.failed],
      ...(counts.warning ? [['warning', (c: typeof counts) => c.warning] as [string, (c: typeof counts) => number]] : []),
      ...(counts['known-failure'] ? [['known', (c: typeof counts) => c['known-failure']] as [string, (c: typeof counts) => number]] : []),
      ...(counts['stale-expectation'] ? [['stale', (c: typeof counts) => c['stale-expectation']] as [string, (c: typeof counts) => number]] : []),
      ['not judged', (c) => c['not-judged'] + c.blocked],
      ['skipped', (c) => c.skipped],
    ];
    const w = Math.max(maxOf(doc.sections.map((g) => `${g.section} ${g.title}`.length)), 'total'.length) + 2;
    const row = (name: string, cells: Array<number | string>) =>
      `  ${name.padEnd(w)}${cells.map((v, i) => String(v).padStart(columns[i][0].length + 3)).join('')}`;
    this.line('');
    this.line(
      this.bold(
        row(
          'spec section',
          columns.map(([name]) => name),
        ),
      ),
    );
    for (const g of doc.sections)
      this.line(
        row(
          `${g.section} ${g.title}`,
          columns.map(([, f]) => f(g.counts)),
        ),
      );
    this.line(
      row(
        'total',
        columns.map(([, f]) => f(counts)),
      ),
    );

    // Root causes first: each failure that fails the run, once, with what it blocked.
    const roots = storedRoots(doc);
    const failingRoots = roots.filter((r) => r.failsRun);
    if (failingRoots.length) {
      this.line('');
      this.line(this.paint(31, this.bold(`✗ fails the run (${failingRoots.length}):`)));
      for (const root of failingRoots) {
        const r = root.result;
        const head = r
          ? `${r.id} (spec ${violatedSection(r)}) — ${firstLine(rootReason(r))}`
          : `${root.id}${root.reason ? ` — ${firstLine(root.reason)}` : ''}`;
        this.line(`  ${this.paint(31, '✗')} ${head}`);
        if (r) this.hint(r, '      ');
        else if (root.record.hint) this.line(`      → ${firstLine(root.record.hint, 240)}`);
        const quoted = r && quoteStatements(r, doc.statements);
        if (quoted) this.line(`      ${quoteLabel(r)}: ${firstLine(quoted, 240)}`);
        const eva = r && expectedVsActual(r);
        if (eva) this.line(`      ${eva}`);
        if (root.blocked.length) this.line(`      blocked ${root.blocked.length} check(s): ${idList(root.blocked, 4)}`);
      }
    }
    const stale = withOutcome(checks, 'stale-expectation');
    if (stale.length) {
      this.line('');
      this.line(
        this.paint(
          33,
          `★ stale expectations (${stale.length}): listed as known failures, they passed — news, not a failure of the target; remove them from the expectations file`,
        ),
      );
      for (const r of stale) this.line(`  ${r.id} — ${firstLine(rootReason(r), 200)}`);
    }
    const known = withOutcome(checks, 'known-failure');
    if (known.length) {
      this.line('');
      this.line(this.paint(33, `⚠ known failures (${known.length}): listed in the expectations file, they do not fail the run`));
      for (const r of known) {
        this.line(`  ${r.id} (spec ${violatedSection(r)}) — ${firstLine(r.reason, 160)}`);
        this.line(`      known: ${firstLine(r.expectation!.reason, 160)}${r.expectation!.link ? ` (${r.expectation!.link})` : ''}`);
      }
    }
    const advisory = withOutcome(checks, 'warning');
    if (advisory.length) {
      this.line('');
      this.line(this.paint(33, `! advisory warnings (${advisory.length}): failed without failing the run`));
      for (const r of advisory) {
        this.line(`  ${r.id} (spec ${violatedSection(r)}) — ${firstLine(r.reason, 160)}`);
        this.hint(r, '      ');
      }
    }
    const otherRoots = roots.filter((r) => !r.failsRun);
    // Blocked checks and those of an unreachable interface are listed under their root.
    const covered = coveredByRoots(doc);
    const unjudged = withOutcome(checks, 'not-judged').filter((r) => !covered.has(r.id));
    if (unjudged.length || otherRoots.length) {
      this.line('');
      this.line(this.paint(35, `? not judged (${counts['not-judged'] + counts.blocked}):`));
      for (const r of unjudged) this.line(`  ${r.id} (${levelWord(r)}) — ${firstLine(r.reason, 160)}`);
      for (const root of otherRoots) {
        this.line(
          `  ${root.blocked.length} check(s) blocked by ${root.id}${root.result ? ` (${OUTCOME_WORDS[root.result.outcome]})` : ''}: ${idList(root.blocked, 4)}`,
        );
        // An interface's root (throttled, credentials, a gateway down) carries what to do about it, said once.
        if (!root.result && root.record.hint) this.line(`      → ${firstLine(root.record.hint, 240)}`);
      }
    }
    const skipped = skippedByReason(checks);
    if (skipped.length) this.line('');
    for (const g of skipped) {
      this.line(`${g.outOfScope ? 'out of scope' : 'skipped'} (${g.ids.length}): ${g.reason} — ${idList(g.ids, 3)}`);
    }

    this.line('');
    this.line(`${countLine(counts)} in ${(doc.durationMs / 1000).toFixed(1)} s`);
    // What was judged of each interface in scope, beside the counts: in scope is not judged.
    const judged = judgedWords(doc.scope.coverage);
    if (judged.length) this.line(`per interface: ${judged.join(' · ')}`);
    if (reportFiles.length) this.line(`reports: ${reportFiles.join(', ')}`);
    if (doc.statusReasons.length) this.line(`why: ${doc.statusReasons.join('; ')}`);
    // Judging what the given URLs allow is the default; say once what CI should ask for instead.
    if (!doc.scope.full && doc.scope.required !== 'full' && doc.exitCode === EXIT_CODE.conformant) {
      this.line(`note: not the full scope (${scopeLimits(doc.scope).join('; ')}); with --require full (REQUIRE=full, recommended in CI) this run would exit 3`);
    }
    const colour = TONE_COLOUR[STATUS_TONE[doc.status]];
    this.line(this.paint(colour, this.bold(`status: ${doc.headline}`)));
    this.line(this.paint(colour, exitWords(doc.exitCode)));
  }
}
