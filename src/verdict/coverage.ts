// What the run judged, beside what it set out to judge: per interface, for the pre-confirmed state
// and per check group, the required checks in scope and those that came to a verdict, with why
// the others did not. A scope naming an interface is what the user asked for; this says what the
// target let the run judge of it, so no report says "judged" of an interface that answered nothing.
import { GROUPS, type Group, type Interface } from '../harness/check';
import type { CheckResult } from '../harness/result';
import type { Cause } from '../harness/verdict';
import { decideOutcome, JUDGED_OUTCOMES } from './outcome';

/** One subject of the run (an interface, the pre-confirmed state, a group): its required checks in scope, and how many were judged. */
export interface Coverage {
  /** Required checks selected and not left out by the user's choices (a URL, the profile, a flag): what the run set out to judge. */
  inScope: number;
  /** Those that came to a verdict (passed or failed, a known failure included). */
  judged: number;
  /** Why the others were not, most common first, with how many each ("blocked by rest.list.status-200", 3); absent when all were judged. */
  notJudged?: Array<{ why: string; checks: number }>;
}

/** What the run judged of each subject in scope; a subject with no required check in scope is absent. */
export interface ScopeCoverage {
  interfaces: Partial<Record<Interface, Coverage>>;
  /** The checks that send transactions (they need the signer): the pre-confirmed state. */
  preconf?: Coverage;
  groups: Partial<Record<Group, Coverage>>;
}

/** Why a required check in scope came to no verdict, in words, grouped coarsely by cause (a skip says its own reason; blocked ones name their root). */
export const NOT_JUDGED_WORDS: Readonly<Partial<Record<Cause, string>>> = {
  unreachable: 'target unreachable',
  throttled: 'throttled',
  credentials: 'credentials refused',
  gateway: 'gateway or backend down',
  stopped: 'the run stopped first',
  timeout: 'did not finish in time',
  internal: "the check's own error",
  limit: "the suite's own limit",
};

/** The most distinct reasons a subject lists, and how long one may be: the words stay one line. */
const KEPT_REASONS = 3;
const REASON_CHARS = 100;

function whyNot(r: CheckResult): string {
  if (r.cause === 'blocked' && r.blockedBy) return `blocked by ${r.blockedBy}`;
  if (r.cause && NOT_JUDGED_WORDS[r.cause]) return NOT_JUDGED_WORDS[r.cause]!;
  if (r.status === 'skipped') {
    const first = r.reason.split('\n')[0];
    return first.length > REASON_CHARS ? `${first.slice(0, REASON_CHARS - 1)}…` : first;
  }
  return 'inconclusive';
}

/** Left out by the user's own choices (stated by the scope's leftOut), or advisory: not what the run set out to judge. */
const inScope = (r: CheckResult): boolean => r.level === 'required' && r.cause !== 'out-of-scope' && r.cause !== 'deselected';

function coverageOf(results: readonly CheckResult[]): Coverage | undefined {
  const mine = results.filter(inScope);
  if (mine.length === 0) return undefined;
  // The check standing in for an unreachable interface fails the run, but judged nothing of it: the interface answered nothing.
  const unjudged = mine.filter((r) => !JUDGED_OUTCOMES.has(decideOutcome(r)) || r.cause === 'unreachable');
  const reasons = new Map<string, number>();
  for (const r of unjudged) reasons.set(whyNot(r), (reasons.get(whyNot(r)) ?? 0) + 1);
  const listed = [...reasons].sort((a, b) => b[1] - a[1]);
  const notJudged = listed.slice(0, KEPT_REASONS).map(([why, checks]) => ({ why, checks }));
  if (listed.length > KEPT_REASONS) notJudged.push({ why: 'other reasons', checks: listed.slice(KEPT_REASONS).reduce((n, [, k]) => n + k, 0) });
  return { inScope: mine.length, judged: mine.length - unjudged.length, ...(notJudged.length ? { notJudged } : {}) };
}

/** The coverage of a run's results (every check of the run: those the user left out count for nothing). */
export function deriveCoverage(results: readonly CheckResult[]): ScopeCoverage {
  const needing = (n: string) => results.filter((r) => (r.needs as string[]).includes(n));
  const interfaces: ScopeCoverage['interfaces'] = {};
  for (const i of ['rest', 'rpc'] as const) {
    const c = coverageOf(needing(i));
    if (c) interfaces[i] = c;
  }
  const groups: ScopeCoverage['groups'] = {};
  for (const g of GROUPS) {
    const c = coverageOf(results.filter((r) => r.id.startsWith(`${g}.`)));
    if (c) groups[g] = c;
  }
  const preconf = coverageOf(needing('signer'));
  return { interfaces, ...(preconf ? { preconf } : {}), groups };
}

const INTERFACE_WORDS: Readonly<Record<Interface, string>> = { rest: 'REST', rpc: 'JSON-RPC' };
/** The groups in words, as the scope states them. */
export const GROUP_WORDS: Readonly<Record<Group, string>> = { rest: 'REST', rpc: 'JSON-RPC', cross: 'cross-interface', preconf: 'pre-confirmation' };

const noneJudged = (c: Coverage | undefined): c is Coverage => c !== undefined && c.judged === 0;
const requiredChecks = (n: number) => `required check${n === 1 ? '' : 's'}`;
const because = (c: Coverage) => (c.notJudged?.length ? ` (${c.notJudged.map((n) => n.why).join('; ')})` : '');

/**
 * Each subject in scope that the run judged nothing of, one line each: the interfaces, the
 * pre-confirmed state, then each group no line above already covers (a group is its interface's
 * when that interface judged nothing; the cross-interface group is either's). Such a subject keeps
 * the scope from being full: a run that judged nothing of it never earns a plain "conformant".
 */
export function unjudgedSubjects(coverage: ScopeCoverage | undefined): string[] {
  if (!coverage) return [];
  const lines: string[] = [];
  const downInterfaces = (['rest', 'rpc'] as const).filter((i) => noneJudged(coverage.interfaces[i]));
  for (const i of downInterfaces) {
    const c = coverage.interfaces[i]!;
    lines.push(`${INTERFACE_WORDS[i]} interface: none of ${c.inScope} ${requiredChecks(c.inScope)} judged${because(c)}`);
  }
  const preconf = coverage.preconf;
  if (noneJudged(preconf)) lines.push(`pre-confirmed state: none of ${preconf.inScope} ${requiredChecks(preconf.inScope)} judged${because(preconf)}`);
  const coveredAbove = (g: Group) => (g === 'preconf' ? noneJudged(coverage.preconf) : g === 'cross' ? downInterfaces.length > 0 : downInterfaces.includes(g));
  for (const g of GROUPS) {
    const c = coverage.groups[g];
    if (noneJudged(c) && !coveredAbove(g)) lines.push(`${GROUP_WORDS[g]} checks: none of ${c.inScope} judged${because(c)}`);
  }
  return lines;
}

/**
 * What was judged of each interface and of the pre-confirmed state, one phrase each, as summary.md,
 * report.html and the console print it: "REST: 11 of 39 required checks judged; 28 not (token
 * records not judged: the list is empty)", "JSON-RPC: none of 57 required checks judged; 57 not
 * (target unreachable)". A subject not in scope says so (the scope's leftOut says why).
 */
export function judgedWords(coverage: ScopeCoverage | undefined): string[] {
  if (!coverage) return [];
  const phrase = (name: string, c: Coverage | undefined) => {
    if (!c) return `${name}: not in scope`;
    const n = c.judged === 0 ? `none of ${c.inScope}` : c.judged === c.inScope && c.inScope > 1 ? `all ${c.inScope}` : `${c.judged} of ${c.inScope}`;
    const why = c.notJudged?.length
      ? `; ${c.inScope - c.judged} not (${c.notJudged.map((w) => (c.notJudged!.length > 1 ? `${w.why}: ${w.checks}` : w.why)).join('; ')})`
      : '';
    return `${name}: ${n} ${requiredChecks(c.inScope)} judged${why}`;
  };
  return [
    phrase(INTERFACE_WORDS.rest, coverage.interfaces.rest),
    phrase(INTERFACE_WORDS.rpc, coverage.interfaces.rpc),
    phrase('pre-confirmed state', coverage.preconf),
  ];
}
