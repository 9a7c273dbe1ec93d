import { groupOf } from '../../harness/check';
import type { ReaderCheck, ReaderDocument } from '../../verdict/reader';
import { exitWords } from '../../verdict/status';
import { scopeWords } from '../../verdict/scope';
import { coveredByRoots, storedRoots } from './roots';
import { forTerminal } from '../inert-text';
import { blockerWords, rootReason, verdictOf } from './outcome-words';
import { exchangeText } from './exchange-text';
import { failureText } from './failure-text';
import { violatedSection } from '../../harness/result';

function esc(s: string): string {
  // XML 1.0 forbids most control characters even when escaped: they become visible pictures
  // (forTerminal), which also keeps a CI log that prints this file free of workflow commands.
  return forTerminal(s)
    .replace(/[\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const secs = (ms: number) => (ms / 1000).toFixed(3);

/**
 * How a check shows in a JUnit viewer, so CI agrees with the exit code: failures that fail the run
 * are <failure>; required checks not judged on their own account are <error> (they make the run
 * incomplete, exit 3); checks blocked by a root that fails the run are <skipped> naming it, so one
 * root cause is one red line; a check blocked by a root that does not fail the run (a known
 * failure) is an <error> when its stored effect leaves the run incomplete, as one not judged on its
 * own account is: nothing else would show that run red; advisory results and skipped checks never
 * turn a viewer red. `underFailing`: the checks a root whose stored effect is fails-run covers.
 */
function caseBody(
  c: ReaderCheck,
  blocked: Map<string, string[]>,
  covered: ReadonlySet<string>,
  underFailing: ReadonlySet<string>,
  texts?: Record<string, string>,
): string | undefined {
  const details = () => [failureText(c, texts), ...c.exchanges.map(exchangeText)].join('\n\n');
  const also = blocked.get(c.id)?.length ? `\n\nblocked ${blocked.get(c.id)!.length} check(s): ${blocked.get(c.id)!.join(', ')}` : '';
  switch (c.outcome) {
    case 'failed':
      return `<failure message="${esc(`[${violatedSection(c)}] ${rootReason(c)}`)}" type="${esc(verdictOf(c))}">${esc(details() + also)}</failure>`;
    case 'not-judged':
      // Its stored effect says it: one that leaves the run incomplete is an error; a check a root
      // covers (of an unreachable interface) is counted under the root's own failure.
      if (c.effect === 'incomplete') return `<error message="${esc(`not judged: ${c.reason.split('\n')[0]}`)}" type="inconclusive">${esc(details())}</error>`;
      if (covered.has(c.id)) return `<skipped message="${esc(`not judged: blocked by ${blockerWords(c)}`)}"/>`;
      return `<skipped message="${esc(`inconclusive (advisory): ${c.reason.split('\n')[0]}`)}"/>`;
    case 'blocked':
      // Its stored effect and its root's say it: under a root that fails the run, that root is the red line.
      if (c.effect === 'incomplete' && !underFailing.has(c.id))
        return `<error message="${esc(`not judged: blocked by ${blockerWords(c)}, which does not fail the run`)}" type="inconclusive">${esc(details())}</error>`;
      return `<skipped message="${esc(`not judged: blocked by ${blockerWords(c)}`)}"/>`;
    case 'skipped':
      return `<skipped message="${esc(`${c.outOfScope ? `out of scope (${c.outOfScope.words})` : 'skipped'}: ${c.reason}`)}"/>`;
    case 'warning':
    case 'known-failure':
    case 'stale-expectation':
      return `<system-out>${esc(`${verdictOf(c)}\n${c.outcome === 'stale-expectation' ? rootReason(c) : details()}`)}</system-out>`;
    default:
      return undefined;
  }
}

/** One testsuite per group (classname `conformance.<group>`), the run's status and scope as properties. */
export function renderJunit(doc: ReaderDocument): string {
  const groups = new Map<string, ReaderCheck[]>();
  for (const c of doc.checks) groups.set(groupOf(c.id), [...(groups.get(groupOf(c.id)) ?? []), c]);
  const roots = storedRoots(doc);
  const blocked = new Map(roots.map((r) => [r.id, r.blocked]));
  const covered = coveredByRoots(doc);
  const underFailing = new Set(roots.filter((r) => r.failsRun).flatMap((r) => r.blocked));
  const properties = [
    ['suite.name', doc.suite.name],
    ['suite.version', doc.suite.version],
    ['spec.version', doc.spec.version],
    ['target', doc.target.embedded ? 'embedded reference target' : 'remote target'],
    ['target.rest', doc.target.baseUrl ?? '—'],
    ['target.rpc', doc.target.rpcUrl ?? '—'],
    ['profile', doc.target.profile],
    ['status', doc.status],
    ['status.line', doc.headline],
    ['status.reasons', doc.statusReasons.join('; ') || '—'],
    ['scope', scopeWords(doc.scope)],
    ['scope.notJudged', doc.scope.notJudged.join('; ') || '—'],
    ['exitCode', String(doc.exitCode)],
    ['exit', exitWords(doc.exitCode)],
  ];
  const props = ['    <properties>', ...properties.map(([k, v]) => `      <property name="${esc(k)}" value="${esc(v)}"/>`), '    </properties>'];

  const count = (cs: ReaderCheck[]) => {
    const bodies = cs.map((c) => caseBody(c, blocked, covered, underFailing, doc.statements) ?? '');
    return {
      bodies,
      failures: bodies.filter((b) => b.startsWith('<failure')).length,
      errors: bodies.filter((b) => b.startsWith('<error')).length,
      skipped: bodies.filter((b) => b.startsWith('<skipped')).length,
    };
  };
  // An unreachable interface no check stands in for is one failure of its own (its checks show as
  // blocked by it); one a check stands in for is that check's failure, counted once.
  const unreachable = roots.filter((r) => r.unreachable && !r.result);
  for (const r of unreachable) if (r.unreachable && !groups.has(r.unreachable)) groups.set(r.unreachable, []);

  const suites: string[] = [];
  let totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const [group, checks] of groups) {
    const { bodies, failures, errors, skipped } = count(checks);
    const down = unreachable.filter((r) => r.unreachable === group);
    const tests = checks.length + down.length;
    totals = {
      tests: totals.tests + tests,
      failures: totals.failures + failures + down.length,
      errors: totals.errors + errors,
      skipped: totals.skipped + skipped,
    };
    suites.push(
      `  <testsuite name="conformance.${esc(group)}" tests="${tests}" failures="${failures + down.length}" errors="${errors}" skipped="${skipped}" time="${secs(checks.reduce((t, c) => t + c.durationMs, 0))}" timestamp="${esc(doc.startedAt.replace(/Z$/, ''))}">`,
    );
    for (const p of props) suites.push(p);
    for (const r of down) {
      suites.push(`    <testcase classname="conformance.${esc(group)}" name="${esc(`${r.id}: the target answers`)}" time="0.000">`);
      suites.push(
        `      <failure message="${esc(`${r.id}${r.reason ? `: ${r.reason}` : ''}`)}" type="unreachable">${esc(`blocked ${r.blocked.length} check(s): ${r.blocked.join(', ')}`)}</failure>`,
        '    </testcase>',
      );
    }
    checks.forEach((c, i) => {
      suites.push(`    <testcase classname="conformance.${esc(group)}" name="${esc(`${c.id}: ${c.title}`)}" time="${secs(c.durationMs)}">`);
      if (bodies[i]) suites.push(`      ${bodies[i]}`);
      suites.push('    </testcase>');
    });
    suites.push(`    <system-out>${esc(`status: ${doc.headline} (${exitWords(doc.exitCode)})`)}</system-out>`);
    suites.push('  </testsuite>');
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${esc(`${doc.suite.name}: ${doc.status}${doc.target.embedded ? ' (embedded reference target)' : ''}`)}" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${secs(doc.durationMs)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
