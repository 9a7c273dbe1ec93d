import { exitWords, type RunStatus } from '../../verdict/status';
import { levelWord, type ReaderDocument } from '../../verdict/reader';
import { judgedWords } from '../../verdict/coverage';
import { preconfNotJudged } from '../../verdict/scope';
import { coveredByRoots, storedRoots } from './roots';
import { latencyOf } from './metrics';
import { samplingLine, powerWords } from '../../harness/sampling';
import { answersWords, countLine, rootReason, verdictOf } from './outcome-words';
import { exchangeText } from './exchange-text';
import { idList, skippedByReason, withOutcome } from './grouping';
import { quoteStatements, quoteLabel } from './failure-text';
import { violatedSection } from '../../harness/result';
import { mdCode, mdFence, mdText } from '../inert-text';
import { fitParts, type Part } from './fit';
import { observationText } from '../../harness/observation';
import { pushAll } from '../../harness/many';

/** The most a GitHub comment body takes (`gh pr comment --body-file summary.md`), in characters. */
export const COMMENT_MAX_CHARS = 65_536;
/** summary.md's own bound: below a comment's, with room for what is appended to it (the certificate's section). */
export const SUMMARY_MAX_BYTES = COMMENT_MAX_CHARS - 2_048;

/** Our own words in a table cell: pipes escaped, one line. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Values cut for a summary line, before they become a code span. */
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

export const STATUS_ICON: Record<RunStatus, string> = { conformant: '✅', 'non-conformant': '❌', incomplete: '⚠️' };

/**
 * Markdown for a CI step summary or a PR comment: status and scope, root causes, then the rest;
 * within SUMMARY_MAX_BYTES whatever the run. The headline and the root causes are kept whole; what
 * does not fit after them (their exchanges first, then the tables) is left out, said at the top.
 */
export function renderSummary(doc: ReaderDocument): string {
  return fitParts(summaryParts(doc), SUMMARY_MAX_BYTES, (leftOut) => [
    `> **Cut to fit a comment** (GitHub takes at most ${COMMENT_MAX_CHARS} characters). Left out here: ${leftOut}. report.html and results.json beside this file hold the whole run.`,
    '',
  ]);
}

/** The summary's parts, in order, each ranked for fitParts: 0 always kept, then the root causes, the counts, the other tables, the exchanges. */
function summaryParts(doc: ReaderDocument): Part[] {
  const s = doc.counts;
  const head = [
    `# ${STATUS_ICON[doc.status]} Tokenized stocks conformance: ${doc.status}${doc.target.embedded ? ' (embedded reference target)' : ''}`,
    '',
    // The status line names the user's --grep pattern: escaped as the bullets are, so `rest\\.token\\.` keeps its backslashes.
    `**Status: ${mdText(doc.headline)}** · ${exitWords(doc.exitCode)}`,
    '',
  ];
  if (doc.statusReasons.length)
    pushAll(
      head,
      doc.statusReasons.map((r) => `- ${mdText(r)}`),
      [''],
    );
  head.push(
    `Spec ${doc.spec.version} · suite ${doc.suite.name} ${doc.suite.version} · ${doc.target.embedded ? 'embedded reference target' : 'remote target'} · REST ${mdCode(doc.target.baseUrl ?? '—')} · JSON-RPC ${mdCode(doc.target.rpcUrl ?? '—')} · ${doc.startedAt} · ${(doc.durationMs / 1000).toFixed(1)} s${doc.interrupted ? ` · **partial: ${mdText(doc.interrupted)}**` : ''}`,
    '',
    `**Scope:** groups ${doc.scope.groups.join(', ')} · interfaces in scope: ${doc.scope.interfaces.join(', ') || 'none'} · profile \`${doc.scope.profile}\` · pre-confirmed state ${doc.scope.signer ? 'in scope (signer given)' : `not in scope (${preconfNotJudged(doc.scope)})`} · history ${doc.scope.archive ? 'required (--archive)' : 'not required'}`,
    '',
  );
  // What the target let the run judge of what was in scope: an interface in scope is not an interface judged.
  const judged = judgedWords(doc.scope.coverage);
  if (judged.length) head.push(`**Per interface:** ${judged.map(mdText).join(' · ')}`, '');
  if (doc.sampling) head.push(`**Sampling:** ${mdText(samplingLine(doc.sampling))}`, '');
  if (doc.scope.notJudged.length)
    pushAll(
      head,
      ['Not judged in this scope:', ''],
      doc.scope.notJudged.map((l) => `- ${mdText(l)}`),
      [''],
    );
  const parts: Part[] = [{ lines: head, rank: 0 }];

  const allRoots = storedRoots(doc);
  const roots = allRoots.filter((r) => r.failsRun);
  if (roots.length) {
    parts.push({ lines: [`## What fails the run (${roots.length})`, ''], rank: 0 });
    for (const root of roots) {
      const c = root.result;
      const out = [c ? `### ❌ \`${c.id}\` (spec ${violatedSection(c)})` : `### ❌ ${root.id}`, ''];
      if (c) out.push(c.title, '', `**${mdText(rootReason(c))}**`, '');
      else if (root.reason) out.push(`**${mdText(root.reason)}**`, '');
      if (!c && root.record.hint) out.push(`→ ${mdText(root.record.hint)}`, '');
      if (c?.samples) out.push(`- ${mdText(`${answersWords(c)} (${powerWords(c.samples.judged)})`)}`, '');
      const quoted = c && quoteStatements(c, doc.statements);
      if (quoted) out.push(`> ${quoteLabel(c)}: ${cell(quoted)}`, ''); // our own words, from specs/rules.yaml
      if (c?.hint) out.push(`→ ${mdText(c.hint)}`, '');
      if (c?.expected !== undefined) out.push(`- expected: ${mdCode(cut(observationText(c.expected), 300))}`);
      if (c?.actual !== undefined) out.push(`- actual: ${mdCode(cut(observationText(c.actual), 300))}`);
      if (root.blocked.length)
        out.push(`- blocked ${root.blocked.length} check(s), not judged because of it: ${root.blocked.map((id) => `\`${id}\``).join(', ')}`);
      const rootPart: Part = { lines: out, rank: 1, kind: 'root causes' };
      parts.push(rootPart);
      const exchanges = (c?.exchanges.slice(-3) ?? []).flatMap((e) => ['', mdFence(cut(exchangeText(e), 4000))]);
      if (exchanges.length) parts.push({ lines: exchanges, rank: 4, kind: 'exchanges of root causes', of: rootPart });
      parts.push({ lines: [''], rank: 0 });
    }
  }

  const stale = withOutcome(doc.checks, 'stale-expectation');
  if (stale.length) {
    parts.push({
      lines: [
        `## Stale expectations (${stale.length})`,
        '',
        'Listed in the expectations file as known failures, these passed: news, not a failure of the target. Remove them from the file.',
        '',
        ...stale.map((c) => `- \`${c.id}\`: ${mdText(rootReason(c))}`),
        '',
      ],
      rank: 2,
      kind: 'stale expectations',
    });
  }

  // The stored counts: failed is what fails the run; advisory warnings and known failures have columns of their own.
  const cells = (n: typeof s) => [n.passed, n.failed, n.warning + n['known-failure'], n['not-judged'] + n.blocked, n.skipped];
  parts.push({
    lines: [
      '## By spec section',
      '',
      '| section | passed | failed | advisory / known | not judged | skipped |',
      '|---|---|---|---|---|---|',
      ...doc.sections.map((g) => `| ${g.section} ${cell(g.title)} | ${cells(g.counts).join(' | ')} |`),
      `| **total** | ${cells(s)
        .map((n) => `**${n}**`)
        .join(' | ')} |`,
      '',
    ],
    rank: 2,
    kind: 'the table by spec section',
  });

  // Checks a root covers (blocked, or of an unreachable interface) are listed under their root.
  const covered = coveredByRoots(doc);
  const other = doc.checks.filter((c) => c.outcome === 'warning' || c.outcome === 'known-failure' || (c.outcome === 'not-judged' && !covered.has(c.id)));
  if (other.length) {
    parts.push({
      lines: [
        '## Failed without failing the run, or not judged',
        '',
        '| check | section | level | verdict | reason |',
        '|---|---|---|---|---|',
        ...other.map(
          (c) =>
            `| \`${c.id}\` | ${violatedSection(c)} | ${levelWord(c)} | ${mdText(verdictOf(c))}${c.samples ? ` (${answersWords(c)})` : ''} | ${mdText(c.reason || c.expectation?.reason || '')} |`,
        ),
        '',
      ],
      rank: 3,
      kind: 'the table of checks failed without failing the run or not judged',
    });
  }
  for (const root of allRoots.filter((r) => !r.failsRun))
    parts.push({
      lines: [
        `- ${root.blocked.length} check(s) not judged, blocked by \`${root.id}\`: ${idList(root.blocked, 8)}${!root.result && root.record.hint ? ` → ${mdText(root.record.hint)}` : ''}`,
        '',
      ],
      rank: 1,
      kind: 'root causes',
    });

  const skipped = skippedByReason(doc.checks);
  if (skipped.length) {
    parts.push({
      lines: [
        '## Skipped and out of scope, by reason',
        '',
        '| | reason | checks |',
        '|---|---|---|',
        ...skipped.map((g) => `| ${g.outOfScope ? 'out of scope' : 'skipped'} | ${mdText(g.reason)} | ${g.ids.length}: ${cell(idList(g.ids, 8))} |`),
        '',
      ],
      rank: 3,
      kind: 'the table of skipped checks',
    });
  }

  const latency = latencyOf(doc.checks);
  if (latency) {
    parts.push({
      lines: [
        '## Pre-confirmation latency (send → visible at "pending")',
        '',
        '| method | n | p50 ms | p95 ms | max ms |',
        '|---|---|---|---|---|',
        ...latency.byMethod.map((m) => `| ${m.method} | ${m.stats.n} | ${m.stats.p50} | ${m.stats.p95} | ${m.stats.max} |`),
        ...(latency.all ? [`| all | ${latency.all.n} | ${latency.all.p50} | ${latency.all.p95} | ${latency.all.max} |`] : []),
        '',
      ],
      rank: 3,
      kind: 'the latency table',
    });
  }

  parts.push({ lines: [`${countLine(s)} — status ${doc.status}, ${exitWords(doc.exitCode)}`, ''], rank: 0 });
  return parts;
}
