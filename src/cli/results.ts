import type { RunSampling } from '../harness/sampling';
import { GROUPS, type Group, type Interface, type Profile } from '../harness/check';
import type { CheckResult } from '../harness/runner';
import type { Cause, ScopeFlag } from '../harness/verdict';

export const SPEC_VERSION = '1.0.0';

export interface Summary {
  total: number;
  passed: number;
  /** Every failed check, required and advisory, expected or not. */
  failed: number;
  skipped: number;
  inconclusive: number;
  /** Failed checks of level advisory (never fail the run). */
  advisoryFailed: number;
  /** Failed required checks not covered by an expectation: these fail the run. */
  requiredFailed: number;
  expectedFailures: number;
  unexpectedPasses: number;
}

export type RunStatus = 'conformant' | 'non-conformant' | 'incomplete';

/** --require: `full` makes a run that leaves an interface, a group or the signer out of scope incomplete (exit 3). */
export type RequiredScope = 'full' | 'none';
export const REQUIRED_SCOPES: readonly RequiredScope[] = ['full', 'none'];

/** What the run judged, and in words what the user's choices left out. */
export interface RunScope {
  /** Check groups that ran (after --only). */
  groups: Group[];
  /** --grep, when it narrowed the run. */
  grep?: string;
  /** Interfaces judged: a URL was given (or the embedded target served it) and a selected check needs it. */
  interfaces: Interface[];
  profile: Profile;
  /** The pre-confirmed state was judged by sending transactions: a signer key was given and checks needing it were selected. */
  signer: boolean;
  /** History beyond a full node's retention was required (--archive). */
  archive: boolean;
  target: 'embedded' | 'remote';
  /** Both interfaces, a signer, every group, no --grep: the only scope that earns a plain "conformant" badge. */
  full: boolean;
  /** --require: with `full`, a scope that is not full keeps the run from being conformant (incomplete, exit 3). */
  required: RequiredScope;
  /** What the user's choices left out, as data: the flag, the words, whether it limits the verdict. */
  leftOut: LeftOut[];
  /** The words of `leftOut`, one line each, most consequential first. */
  notJudged: string[];
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

/** Facts of the run itself, beside the results: what stopped it, what could not be reached. */
export interface RunFacts {
  /** Why the run stopped early, in words (interrupt or deadline). */
  interrupted?: string;
  stoppedBy?: 'signal' | 'deadline';
  /** Interfaces found unreachable before the run, with the transport error. */
  unreachable?: Partial<Record<Interface, string>>;
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

/** The results.json contract other tools rely on. */
export interface RunDocument {
  suite: { name: string; version: string };
  spec: { version: string };
  target: { baseUrl: string | null; rpcUrl: string | null; profile: Profile; embedded: boolean; expectations?: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Derived once by deriveStatus(); every reporter and the exit code state this value. */
  status: RunStatus;
  /** Why the status is what it is, in words (empty for a conformant run). */
  statusReasons: string[];
  scope: RunScope;
  summary: Summary;
  exitCode: number;
  /** Set when the run stopped early (interrupt, deadline): the results are partial. */
  interrupted?: string;
  stoppedBy?: RunFacts['stoppedBy'];
  unreachable?: RunFacts['unreachable'];
  /** Statement id → its text in specs/rules.yaml, for every statement a check below cites. */
  statements?: Record<string, string>;
  /** --samples: answers per read-only question, the window they were spread over, the detection power. */
  sampling?: RunSampling;
  checks: CheckResult[];
}

export const EXIT_CODE = { conformant: 0, nonConformant: 1, config: 2, incomplete: 3, interrupted: 130 } as const;

/** A failure that fails the run: a required failure no expectation covers, or an expected failure that passed. */
export function isRunFailure(r: CheckResult): boolean {
  if (r.expectation?.outcome === 'unexpected-pass') return true;
  return r.status === 'failed' && r.level === 'required' && r.expectation?.outcome !== 'expected-failure';
}

/** A required check in scope that was not judged: it keeps the run from being called conformant. */
function isUnjudged(r: CheckResult): boolean {
  return r.level === 'required' && r.status === 'inconclusive';
}

export function summarize(results: CheckResult[]): Summary {
  const count = (p: (r: CheckResult) => boolean) => results.filter(p).length;
  return {
    total: results.length,
    passed: count((r) => r.status === 'passed'),
    failed: count((r) => r.status === 'failed'),
    skipped: count((r) => r.status === 'skipped'),
    inconclusive: count((r) => r.status === 'inconclusive'),
    advisoryFailed: count((r) => r.status === 'failed' && r.level === 'advisory'),
    requiredFailed: count((r) => r.status === 'failed' && r.level === 'required' && r.expectation?.outcome !== 'expected-failure'),
    expectedFailures: count((r) => r.expectation?.outcome === 'expected-failure'),
    unexpectedPasses: count((r) => r.expectation?.outcome === 'unexpected-pass'),
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Interfaces the run could not reach: from the probe, or named by checks that could not reach them. */
export function unreachableInterfaces(results: CheckResult[], facts: RunFacts): Interface[] {
  const down = (i: Interface) => facts.unreachable?.[i] !== undefined || results.some((r) => r.cause === 'unreachable' && r.unreachable === i);
  return (['rest', 'rpc'] as const).filter(down);
}

/** Why required checks were not judged, grouped coarsely for the status line (by cause; any other: inconclusive). */
const UNJUDGED_WORDS: Partial<Record<Cause, string>> = {
  blocked: 'blocked by a prerequisite',
  throttled: 'throttled',
  stopped: 'stopped before it finished',
  timeout: 'did not finish in time',
  internal: "the check's own error",
  limit: "the suite's own limit",
};

/** An unreachable interface, as the run's reasons say it. */
export const unreachableWords = (i: Interface): string => `${i === 'rest' ? 'REST' : 'JSON-RPC'} target unreachable`;

/** The first words of the reason given when no required check was judged at all. */
export const NOTHING_JUDGED = 'nothing judged';

/** A required check that came to a verdict on the target (passed or failed, known failures included). */
const isJudged = (r: CheckResult): boolean => r.level === 'required' && (r.status === 'passed' || r.status === 'failed');

/**
 * The run status, derived once. non-conformant: a required failure (not an expected one), a
 * stale expectation, or an unreachable target. incomplete: none of those, but a required check
 * was not judged, no required check was judged at all (a selection or a scope that left nothing
 * to judge is never a pass), --require full with a scope that is not full, or the run stopped
 * early. conformant: every required check in scope judged and none failed. Skipped checks (out
 * of scope, or nothing to judge) leave the status alone as long as something was judged.
 */
export function deriveStatus(
  results: CheckResult[],
  facts: RunFacts,
  scope?: Pick<RunScope, 'full' | 'required' | 'leftOut' | 'interfaces' | 'signer'>,
): { status: RunStatus; reasons: string[] } {
  const reasons: string[] = [];
  const failed = results.filter((r) => isRunFailure(r) && r.expectation?.outcome !== 'unexpected-pass');
  const stale = results.filter((r) => r.expectation?.outcome === 'unexpected-pass');
  const down = unreachableInterfaces(results, facts);
  if (failed.length) reasons.push(`${plural(failed.length, 'required check')} failed`);
  if (stale.length)
    reasons.push(
      `${plural(stale.length, 'expected failure')} now ${stale.length === 1 ? 'passes' : 'pass'} (the expectations file is stale): ${stale.map((r) => r.id).join(', ')}`,
    );
  for (const i of down) reasons.push(`${unreachableWords(i)}${facts.unreachable?.[i] ? `: ${facts.unreachable[i]}` : ''}`);
  const nonConformant = reasons.length > 0;

  // An unreachable interface already fails the run: its checks are not counted again.
  const unjudged = results.filter((r) => isUnjudged(r) && r.cause !== 'unreachable');
  if (unjudged.length) {
    const kinds = new Map<string, number>();
    for (const k of unjudged.map((r) => (r.cause && UNJUDGED_WORDS[r.cause]) ?? 'inconclusive')) kinds.set(k, (kinds.get(k) ?? 0) + 1);
    reasons.push(`${plural(unjudged.length, 'required check')} not judged (${[...kinds].map(([k, n]) => `${k}: ${n}`).join(', ')})`);
  }
  if (!results.some(isJudged)) {
    const skipped = results.filter((r) => r.level === 'required' && r.status === 'skipped').length;
    reasons.push(
      `${NOTHING_JUDGED}: no required check came to a verdict (${plural(skipped, 'required check')} skipped${unjudged.length ? `, ${unjudged.length} not judged` : ''})`,
    );
  }
  if (scope?.required === 'full' && !scope.full) reasons.push(`--require full: ${scopeLimits(scope).join('; ')}`);
  if (facts.interrupted) reasons.push(`run stopped early: ${facts.interrupted}`);
  return { status: nonConformant ? 'non-conformant' : reasons.length ? 'incomplete' : 'conformant', reasons };
}

/** 0 conformant, 1 non-conformant or the deadline passed, 3 incomplete, 130 interrupted by a signal. */
export function exitCodeFor(status: RunStatus, facts: Pick<RunFacts, 'stoppedBy'>): number {
  if (facts.stoppedBy === 'signal') return EXIT_CODE.interrupted;
  if (status === 'non-conformant' || facts.stoppedBy === 'deadline') return EXIT_CODE.nonConformant;
  return status === 'incomplete' ? EXIT_CODE.incomplete : EXIT_CODE.conformant;
}

/** The exit code in words, as the console, summary.md, report.html and junit print it. */
export function exitWords(code: number): string {
  switch (code) {
    case EXIT_CODE.conformant:
      return 'exit 0: conformant';
    case EXIT_CODE.nonConformant:
      return 'exit 1: not conformant, or the run could not finish';
    case EXIT_CODE.incomplete:
      return 'exit 3: incomplete — nothing failed, but not everything in scope was judged';
    case EXIT_CODE.interrupted:
      return 'exit 130: interrupted';
    default:
      return `exit ${code}`;
  }
}

const GROUP_WORDS: Record<Group, string> = { rest: 'REST', rpc: 'JSON-RPC', cross: 'cross-interface', preconf: 'pre-confirmation' };
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
  const needs = (n: string) => selected.some((r) => (r.needs as string[]).includes(n));
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
  const full = interfaces.length === 2 && signer && left.length === 0 && grep === undefined;
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
  };
}

/**
 * The scope in one phrase: what limits the verdict. The other profile's checks never do, nor does
 * an OpenAPI document not given (an extra, not the target), nor advisory checks left out (they
 * could not have failed the run either way).
 */
export function scopeWords(scope: RunScope): string {
  const limits = scopeLimits(scope);
  const where = scope.target === 'embedded' ? ', embedded reference target' : '';
  if (scope.full && limits.length === 0) return `full scope (profile ${scope.profile}${scope.archive ? ', history required' : ''}${where})`;
  return `${limits.join('; ')} (profile ${scope.profile}${scope.archive ? ', history required' : ''}${where})`;
}

/** What limits the verdict, one line each (see scopeWords); empty for a full scope. */
export function scopeLimits(scope: Pick<RunScope, 'full' | 'leftOut' | 'interfaces' | 'signer'>): string[] {
  const limits = scope.leftOut.filter((l) => l.limits).map((l) => l.words);
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

/** "conformant — pre-confirmed state not judged (no --signer-key) (profile dedicated)": the one status line every reporter prints. */
export function statusLine(doc: Pick<RunDocument, 'status' | 'scope'>): string {
  return `${doc.status} — ${scopeWords(doc.scope)}`;
}

/** The facts stored in a results document, for re-deriving its status (verify-certificate). */
export function factsOf(doc: Pick<RunDocument, 'interrupted' | 'stoppedBy' | 'unreachable'>): RunFacts {
  return { interrupted: doc.interrupted, stoppedBy: doc.stoppedBy, unreachable: doc.unreachable };
}

/** The primary spec section of a check (the first it cites): reports group and count by it. */
export function primarySection(r: Pick<CheckResult, 'section'>): string {
  return r.section.split(',')[0].trim();
}

/** The exit codes as --help prints them. */
export const EXIT_CODES_HELP = [
  'exit codes: 0 conformant: every required check in scope judged, none failed',
  '            1 non-conformant: a required check failed, an expected failure passed (stale expectations),',
  '              a target was unreachable, or the run deadline passed',
  '            2 bad invocation or configuration',
  '            3 incomplete: nothing failed, but a required check in scope could not be judged, no required',
  '              check was judged at all ("nothing judged"), or --require full and the scope was not full',
  '            130 interrupted (reports of what was measured are still written)',
].join('\n');
