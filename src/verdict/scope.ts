// The scope of a run, derived once: which groups and interfaces were judged, whether the
// pre-confirmed state was, and what the user's own choices left out (as data and in words).
import { GROUPS, type Group, type Interface, type Profile } from '../harness/check';
import type { CheckResult } from '../harness/result';
import type { ScopeFlag } from '../harness/verdict';
import { deriveCoverage, GROUP_WORDS, unjudgedSubjects, type ScopeCoverage } from './coverage';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** --require: `full` makes a run that leaves an interface, a group or the signer out of scope incomplete (exit 3). */
export type RequiredScope = 'full' | 'none';
export const REQUIRED_SCOPES: readonly RequiredScope[] = ['full', 'none'];

/** What the run judged, and in words what the user's choices left out. */
export interface RunScope {
  /** Check groups that ran (after --only). */
  groups: Group[];
  /** --grep, when it narrowed the run. */
  grep?: string;
  /** Interfaces in scope: a URL was given (or the embedded target served it) and a selected check needs it. What was judged of each: `coverage`. */
  interfaces: Interface[];
  profile: Profile;
  /** The pre-confirmed state was in scope: a signer key was given and checks that send transactions were selected. What was judged of it: `coverage`. */
  signer: boolean;
  /** History beyond a full node's retention was required (--archive). */
  archive: boolean;
  target: 'embedded' | 'remote';
  /** Both interfaces, a signer, every group, no --grep, and something judged of each: the only scope that earns a plain "conformant" badge. */
  full: boolean;
  /** --require: with `full`, a scope that is not full keeps the run from being conformant (incomplete, exit 3). */
  required: RequiredScope;
  /** What the user's choices left out, as data: the flag, the words, whether it limits the verdict. */
  leftOut: LeftOut[];
  /** The words of `leftOut`, one line each, most consequential first. */
  notJudged: string[];
  /**
   * What the run judged of each interface, of the pre-confirmed state and of each group: the
   * required checks in scope, those judged, and why the others were not (coverage.ts). Absent in
   * documents written before it was added.
   */
  coverage?: ScopeCoverage;
}

/** One thing the user's choices left out of the run. */
export interface LeftOut {
  /** The flag whose absence or value left it out. */
  flag: ScopeFlag;
  /** What is not judged, and why, in words. */
  words: string;
  /** It limits the verdict; not so the other profile's checks, an OpenAPI document not given (an extra, not the target), or advisory checks only. */
  limits: boolean;
}

/** The configuration facts the scope is derived from (a subset of RunConfig, readable from a stored document). */
export interface ScopeFacts {
  only: Iterable<Group>;
  grep?: RegExp | string;
  profile: Profile;
  embedded: boolean;
  baseUrl?: string | null;
  rpcUrl?: string | null;
  signer: boolean;
  archive: boolean;
  /** --require (default none). */
  required?: RequiredScope;
}

const otherProfile = (p: Profile): Profile => (p === 'public' ? 'dedicated' : 'public');
const profileLine = (p: Profile) => `${otherProfile(p)}-profile checks not judged (profile ${p})`;

/** Left out by a check itself (it skipped, naming the flag), in words a reader of the status line understands. */
const LEFT_OUT_BY_CHECKS: Partial<Record<ScopeFlag, Omit<LeftOut, 'flag'>>> = {
  '--archive': { words: "history beyond a full node's retention not judged (no --archive)", limits: true },
  '--nav-max-age': { words: 'NAV staleness (advisory) not judged (no --nav-max-age)', limits: false },
  '--openapi': { words: 'published OpenAPI document not judged (no --openapi)', limits: false },
};

/** Why the pre-confirmed state was not judged when no key was given (preconfNotJudged). */
export const NO_SIGNER_KEY = 'no --signer-key';
const NO_SIGNER_LINE = `pre-confirmed state not judged (${NO_SIGNER_KEY})`;

/** Left out by --only or --grep: results.json lists such checks as skipped, cause `deselected`. */
export const isSelected = (r: Pick<CheckResult, 'cause'>): boolean => r.cause !== 'deselected';
/** Whether a selected check needs `need` (an interface, a profile, a flag): what puts it in the run's scope. */
export const selectedNeed = (results: readonly Pick<CheckResult, 'cause' | 'needs'>[], need: string): boolean =>
  results.some((r) => isSelected(r) && (r.needs as string[]).includes(need));

/**
 * The scope, from the configuration and the selected checks (never those --only or --grep left
 * out): which groups and interfaces were judged, whether the pre-confirmed state was, and what
 * the user's own choices left out (missing URL, no signer, profile, --only/--grep, and each
 * further flag a selected check was left out by: no --archive, no --nav-max-age, no --openapi).
 */
export function deriveScope(results: CheckResult[], facts: ScopeFacts): RunScope {
  const only = new Set(facts.only);
  const groups = GROUPS.filter((g) => only.has(g));
  const selected = results.filter(isSelected);
  const needs = (n: string) => selectedNeed(selected, n);
  const hasRest = facts.embedded || !!facts.baseUrl;
  const hasRpc = facts.embedded || !!facts.rpcUrl;
  const interfaces = (
    [
      ['rest', hasRest],
      ['rpc', hasRpc],
    ] as const
  )
    .filter(([i, has]) => has && needs(i))
    .map(([i]) => i);
  const grep = facts.grep === undefined ? undefined : typeof facts.grep === 'string' ? facts.grep : facts.grep.source;

  const leftOut: LeftOut[] = [];
  const add = (flag: ScopeFlag, words: string, limits = true) => void leftOut.push({ flag, words, limits });
  if (!hasRest && needs('rest')) add('--base-url', 'REST interface not judged (no --base-url)');
  if (!hasRpc && needs('rpc')) add('--rpc-url', 'JSON-RPC interface not judged (no --rpc-url)');
  if (!facts.signer && needs('signer')) add('--signer-key', NO_SIGNER_LINE);
  const left = GROUPS.filter((g) => !only.has(g));
  if (left.length) add('--only', `${left.map((g) => GROUP_WORDS[g]).join(', ')} checks not run (--only ${groups.join(',')})`);
  if (grep !== undefined) add('--grep', `only checks matching --grep ${grep} ran`);

  // The flags stated above (and the profile, stated last) cover their checks; any other is listed once.
  const stated = new Set<ScopeFlag>([...leftOut.map((l) => l.flag), '--profile']);
  const byChecks = new Map<ScopeFlag, { words: string; n: number }>();
  for (const r of selected) {
    if (!r.outOfScope || stated.has(r.outOfScope.flag)) continue;
    const seen = byChecks.get(r.outOfScope.flag);
    byChecks.set(r.outOfScope.flag, { words: seen?.words ?? r.outOfScope.words, n: (seen?.n ?? 0) + 1 });
  }
  for (const [flag, { words, n }] of byChecks) {
    const known = LEFT_OUT_BY_CHECKS[flag];
    if (known) add(flag, known.words, known.limits);
    else add(flag, `${plural(n, 'check')} not judged (${words})`);
  }
  if (needs(`profile:${otherProfile(facts.profile)}`)) add('--profile', profileLine(facts.profile), false);

  // Transactions were sent only with a key, a check that sends selected, and a node to send to.
  const signer = facts.signer && needs('signer') && hasRpc;
  // A subject in scope that the target let the run judge nothing of (an empty list, every answer refused) is not judged either.
  const coverage = deriveCoverage(results);
  const full = interfaces.length === 2 && signer && left.length === 0 && grep === undefined && unjudgedSubjects(coverage).length === 0;
  return {
    groups,
    ...(grep !== undefined ? { grep } : {}),
    interfaces,
    profile: facts.profile,
    signer,
    archive: facts.archive,
    target: facts.embedded ? 'embedded' : 'remote',
    full,
    required: facts.required ?? 'none',
    leftOut,
    notJudged: leftOut.map((l) => l.words),
    coverage,
  };
}

/**
 * The scope in one phrase: what limits the verdict. The other profile's checks never do, nor does
 * an OpenAPI document not given (an extra, not the target), nor advisory checks left out (they
 * could not have failed the run either way).
 */
export function scopeWords(scope: RunScope): string {
  const limits = scopeLimits(scope);
  const where = `(profile ${scope.profile}${scope.archive ? ', history required' : ''}${scope.target === 'embedded' ? ', embedded reference target' : ''})`;
  if (!scope.full || limits.length) return `${limits.join('; ')} ${where}`;
  // Full, yet something that does not limit the verdict was left out: named, never "full scope" beside it.
  // The other profile's checks are not this deployment's: "(profile …)" already says which were judged.
  const extras = scope.leftOut.filter((l) => l.flag !== '--profile').map((l) => l.words);
  return extras.length ? `both interfaces and the pre-confirmed state; ${extras.join('; ')} ${where}` : `full scope ${where}`;
}

/** What limits the verdict, one line each (see scopeWords): the user's choices, then each subject in scope nothing was judged of; empty for a full scope. */
export function scopeLimits(scope: Pick<RunScope, 'full' | 'leftOut' | 'interfaces' | 'signer' | 'coverage'>): string[] {
  const limits = [...scope.leftOut.filter((l) => l.limits).map((l) => l.words), ...unjudgedSubjects(scope.coverage)];
  if (limits.length === 0 && !scope.full) {
    // Nothing the user left out, yet not full: the selected checks did not reach every interface or the signer.
    for (const i of ['rest', 'rpc'] as const) if (!scope.interfaces.includes(i)) limits.push(`${i === 'rest' ? 'REST' : 'JSON-RPC'} interface not judged`);
    if (!scope.signer) limits.push(`pre-confirmed state not judged (${preconfNotJudged(scope)})`);
  }
  return limits;
}

/** Why the pre-confirmed state was not judged (undefined when it was): no key, or no check needing one selected. */
export function preconfNotJudged(scope: Pick<RunScope, 'signer' | 'leftOut'>): string | undefined {
  if (scope.signer) return undefined;
  return scope.leftOut.some((l) => l.flag === '--signer-key') ? NO_SIGNER_KEY : 'no check that sends transactions was selected';
}
