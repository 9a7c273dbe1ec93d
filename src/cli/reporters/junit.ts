import { groupOf } from '../../harness/check';
import { type RunDocument, isRunFailure } from '../results';
import { exchangeText, failureText, verdictOf } from './shared';

function esc(s: string): string {
  // XML 1.0 forbids most control characters even when escaped; drop them.
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** One testcase per check; only failures that fail the run are <failure>, so CI agrees with the exit code. */
export function renderJunit(doc: RunDocument): string {
  const groups = new Map<string, RunDocument['checks']>();
  for (const c of doc.checks) groups.set(groupOf(c.id), [...(groups.get(groupOf(c.id)) ?? []), c]);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = doc.checks.filter(isRunFailure).length;
  const skipped = doc.checks.filter((c) => c.status === 'skipped' || c.status === 'inconclusive').length;
  out.push(`<testsuites name="${esc(doc.suite.name)}" tests="${doc.checks.length}" failures="${failures}" skipped="${skipped}" time="${(doc.durationMs / 1000).toFixed(3)}">`);
  for (const [group, checks] of groups) {
    const f = checks.filter(isRunFailure).length;
    const s = checks.filter((c) => c.status === 'skipped' || c.status === 'inconclusive').length;
    out.push(`  <testsuite name="${esc(group)}" tests="${checks.length}" failures="${f}" skipped="${s}" time="${(checks.reduce((t, c) => t + c.durationMs, 0) / 1000).toFixed(3)}">`);
    for (const c of checks) {
      out.push(`    <testcase classname="${esc(`${group} (spec ${c.section})`)}" name="${esc(`${c.id}: ${c.title}`)}" time="${(c.durationMs / 1000).toFixed(3)}">`);
      const details = [failureText(c), ...c.exchanges.map(exchangeText)].join('\n\n');
      if (isRunFailure(c)) out.push(`      <failure message="${esc(`[${c.failedSection ?? c.section}] ${c.reason}`)}" type="${esc(verdictOf(c))}">${esc(details)}</failure>`);
      else if (c.status === 'skipped' || c.status === 'inconclusive') out.push(`      <skipped message="${esc(`${c.status}: ${c.reason}`)}"/>`);
      else if (c.status === 'failed') out.push(`      <system-out>${esc(`${verdictOf(c)}\n${details}`)}</system-out>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
