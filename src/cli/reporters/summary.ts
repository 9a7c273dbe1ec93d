import { exitWords, type RunStatus } from '../../verdict/status';
import { preconfNotJudged } from '../../verdict/scope';
import type { RunDocument } from '../../verdict/document';
import { coveredByRoots, storedRoots } from './roots';
import { latencyOf } from './metrics';
import { samplingLine, powerWords } from '../../harness/sampling';
import { answersWords, countLine, rootReason, verdictOf } from './outcome-words';
import { exchangeText } from './exchange-text';
import { idList, skippedByReason, withOutcome } from './grouping';
import { quoteStatements, quoteLabel } from './failure-text';
import { violatedSection } from '../../harness/result';
import { mdCode, mdFence, mdText } from './untrusted';

/** Our own words in a table cell: pipes escaped, one line. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Values cut for a summary line, before they become a code span. */
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

export const STATUS_ICON: Record<RunStatus, string> = { conformant: '✅', 'non-conformant': '❌', incomplete: '⚠️' };

/** Markdown for a CI step summary or a PR comment: status and scope, root causes, then the rest. */
export function renderSummary(doc: RunDocument): string {
  const s = doc.counts;
  const out = [
    `# ${STATUS_ICON[doc.status]} Tokenized stocks conformance: ${doc.status}${doc.target.embedded ? ' (embedded reference target)' : ''}`,
    '',
    // The status line names the user's --grep pattern: escaped as the bullets are, so `rest\\.token\\.` keeps its backslashes.
    `**Status: ${mdText(doc.headline)}** · ${exitWords(doc.exitCode)}`,
    '',
  ];
  if (doc.statusReasons.length) out.push(...doc.statusReasons.map((r) => `- ${mdText(r)}`), '');
  out.push(
    `Spec ${doc.spec.version} · suite ${doc.suite.name} ${doc.suite.version} · ${doc.target.embedded ? 'embedded reference target' : 'remote target'} · REST ${mdCode(doc.target.baseUrl ?? '—')} · JSON-RPC ${mdCode(doc.target.rpcUrl ?? '—')} · ${doc.startedAt} · ${(doc.durationMs / 1000).toFixed(1)} s${doc.interrupted ? ` · **partial: ${mdText(doc.interrupted)}**` : ''}`,
    '',
    `**Scope:** groups ${doc.scope.groups.join(', ')} · interfaces judged: ${doc.scope.interfaces.join(', ') || 'none'} · profile \`${doc.scope.profile}\` · pre-confirmed state ${doc.scope.signer ? 'judged (signer given)' : `not judged (${preconfNotJudged(doc.scope)})`} · history ${doc.scope.archive ? 'required (--archive)' : 'not required'}`,
    '',
  );
  if (doc.sampling) out.push(`**Sampling:** ${mdText(samplingLine(doc.sampling))}`, '');
  if (doc.scope.notJudged.length) out.push('Not judged in this scope:', '', ...doc.scope.notJudged.map((l) => `- ${mdText(l)}`), '');

  const allRoots = storedRoots(doc);
  const roots = allRoots.filter((r) => r.failsRun);
  if (roots.length) {
    out.push(`## What fails the run (${roots.length})`, '');
    for (const root of roots) {
      const c = root.result;
      out.push(c ? `### ❌ \`${c.id}\` (spec ${violatedSection(c)})` : `### ❌ ${root.id}`, '');
      if (c) out.push(c.title, '', `**${mdText(rootReason(c))}**`, '');
      else if (root.reason) out.push(`**${mdText(root.reason)}**`, '');
      if (!c && root.record.hint) out.push(`→ ${mdText(root.record.hint)}`, '');
      if (c?.samples) out.push(`- ${mdText(`${answersWords(c)} (${powerWords(c.samples.judged)})`)}`, '');
      const quoted = c && quoteStatements(c, doc.statements);
      if (quoted) out.push(`> ${quoteLabel(c)}: ${cell(quoted)}`, ''); // our own words, from specs/rules.yaml
      if (c?.hint) out.push(`→ ${mdText(c.hint)}`, '');
      if (c?.expected !== undefined) out.push(`- expected: ${mdCode(cut(JSON.stringify(c.expected) ?? '', 300))}`);
      if (c?.actual !== undefined) out.push(`- actual: ${mdCode(cut(JSON.stringify(c.actual) ?? '', 300))}`);
      if (root.blocked.length)
        out.push(`- blocked ${root.blocked.length} check(s), not judged because of it: ${root.blocked.map((id) => `\`${id}\``).join(', ')}`);
      for (const e of c?.exchanges.slice(-3) ?? []) out.push('', mdFence(cut(exchangeText(e), 4000)));
      out.push('');
    }
  }

  const stale = withOutcome(doc.checks, 'stale-expectation');
  if (stale.length) {
    out.push(
      `## Stale expectations (${stale.length})`,
      '',
      'Listed in the expectations file as known failures, these passed: news, not a failure of the target. Remove them from the file.',
      '',
    );
    for (const c of stale) out.push(`- \`${c.id}\`: ${mdText(rootReason(c))}`);
    out.push('');
  }

  // The stored counts: failed is what fails the run; advisory warnings and known failures have columns of their own.
  out.push('## By spec section', '', '| section | passed | failed | advisory / known | not judged | skipped |', '|---|---|---|---|---|---|');
  const cells = (n: typeof s) => [n.passed, n.failed, n.warning + n['known-failure'], n['not-judged'] + n.blocked, n.skipped];
  for (const g of doc.sections) out.push(`| ${g.section} ${cell(g.title)} | ${cells(g.counts).join(' | ')} |`);
  out.push(
    `| **total** | ${cells(s)
      .map((n) => `**${n}**`)
      .join(' | ')} |`,
    '',
  );

  // Checks a root covers (blocked, or of an unreachable interface) are listed under their root.
  const covered = coveredByRoots(doc);
  const other = doc.checks.filter((c) => c.outcome === 'warning' || c.outcome === 'known-failure' || (c.outcome === 'not-judged' && !covered.has(c.id)));
  if (other.length) {
    out.push('## Failed without failing the run, or not judged', '', '| check | section | level | verdict | reason |', '|---|---|---|---|---|');
    for (const c of other)
      out.push(
        `| \`${c.id}\` | ${violatedSection(c)} | ${c.level} | ${mdText(verdictOf(c))}${c.samples ? ` (${answersWords(c)})` : ''} | ${mdText(c.reason || c.expectation?.reason || '')} |`,
      );
    out.push('');
  }
  for (const root of allRoots.filter((r) => !r.failsRun))
    out.push(
      `- ${root.blocked.length} check(s) not judged, blocked by \`${root.id}\`: ${idList(root.blocked, 8)}${!root.result && root.record.hint ? ` → ${mdText(root.record.hint)}` : ''}`,
      '',
    );

  const skipped = skippedByReason(doc.checks);
  if (skipped.length) {
    out.push('## Skipped and out of scope, by reason', '', '| | reason | checks |', '|---|---|---|');
    for (const g of skipped) out.push(`| ${g.outOfScope ? 'out of scope' : 'skipped'} | ${mdText(g.reason)} | ${g.ids.length}: ${cell(idList(g.ids, 8))} |`);
    out.push('');
  }

  const latency = latencyOf(doc.checks);
  if (latency) {
    out.push('## Pre-confirmation latency (send → visible at "pending")', '', '| method | n | p50 ms | p95 ms | max ms |', '|---|---|---|---|---|');
    for (const m of latency.byMethod) out.push(`| ${m.method} | ${m.stats.n} | ${m.stats.p50} | ${m.stats.p95} | ${m.stats.max} |`);
    if (latency.all) out.push(`| all | ${latency.all.n} | ${latency.all.p50} | ${latency.all.p95} | ${latency.all.max} |`);
    out.push('');
  }

  out.push(`${countLine(s)} — status ${doc.status}, ${exitWords(doc.exitCode)}`, '');
  return out.join('\n');
}
