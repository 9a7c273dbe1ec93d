import { type RunDocument, isRunFailure } from '../results';
import { exchangeText, json, verdictOf } from './shared';

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Markdown for a CI step summary or a PR comment. */
export function renderSummary(doc: RunDocument): string {
  const s = doc.summary;
  const head = doc.exitCode === 0 ? '✅ conformant: no required check failed' : '❌ not conformant: a required check failed';
  const out = [
    `# Tokenized stocks conformance — ${head}`,
    '',
    `Spec ${doc.spec.version} · suite ${doc.suite.version} · profile \`${doc.target.profile}\` · ${doc.target.embedded ? 'embedded reference target' : 'remote target'} · ${(doc.durationMs / 1000).toFixed(1)} s${doc.interrupted ? ` · **partial: ${doc.interrupted}**` : ''}`,
    '',
    `| target | URL |`,
    `|---|---|`,
    `| REST (base_url) | ${doc.target.baseUrl ?? '—'} |`,
    `| JSON-RPC (rpc_url) | ${doc.target.rpcUrl ?? '—'} |`,
    '',
    `| passed | failed (required) | failed (advisory) | expected failures | unexpected passes | inconclusive | skipped | total |`,
    `|---|---|---|---|---|---|---|---|`,
    `| ${s.passed} | ${s.requiredFailed} | ${s.advisoryFailed} | ${s.expectedFailures} | ${s.unexpectedPasses} | ${s.inconclusive} | ${s.skipped} | ${s.total} |`,
    '',
  ];
  const notable = doc.checks.filter((c) => c.status !== 'passed' || c.expectation);
  if (notable.length) {
    out.push('## Checks that did not simply pass', '', '| check | section | level | verdict | reason |', '|---|---|---|---|---|');
    for (const c of notable) out.push(`| \`${c.id}\` | ${c.failedSection ?? c.section} | ${c.level} | ${verdictOf(c)} | ${cell(c.reason || c.expectation?.reason || '')} |`);
    out.push('');
  }
  const failing = doc.checks.filter(isRunFailure);
  for (const c of failing) {
    out.push(`### ❌ \`${c.id}\` (spec ${c.failedSection ?? c.section})`, '', c.title, '', `**${c.reason}**`, '');
    if (c.expected !== undefined) out.push(`- expected: \`${cell(JSON.stringify(c.expected) ?? '')}\``);
    if (c.actual !== undefined) out.push(`- actual: \`${cell((JSON.stringify(c.actual) ?? '').slice(0, 300))}\``);
    for (const e of c.exchanges.slice(-3)) out.push('', '```', exchangeText(e).slice(0, 4000), '```');
    out.push('');
  }
  const measured = doc.checks.filter((c) => c.metrics);
  if (measured.length) {
    out.push('## Measurements', '');
    for (const c of measured) out.push(`- \`${c.id}\`: \`${cell(json(c.metrics).replace(/\s+/g, ' '))}\``);
    out.push('');
  }
  out.push(`${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`, '');
  return out.join('\n');
}
