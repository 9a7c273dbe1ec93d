import type { RunSampling } from '../harness/sampling';
import { GROUPS, type Group, type Interface, type Profile } from '../harness/check';
import type { CheckResult } from '../harness/runner';
import type { Cause, ScopeFlag } from '../harness/verdict';
import { judged, JUDGED_OUTCOMES, type Effect, type Judged, type OutcomeCounts, type SectionCounts } from './outcome';

export const SPEC_VERSION = '1.0.0';

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

/**
 * The version of the results.json contract (schemas/results.json): the major part changes when a
 * field other tools read changes meaning or goes; an addition changes the minor part.
 */
export const RESULTS_SCHEMA_VERSION = '2.0.0';

/** One root cause as results.json stores it: decided once (sealed-verdict.ts), read by every report. */
export interface RootCauseRecord {
  /** The root check's id; for an interface, a label (`target unreachable: rest`): read `check` or `interface`, never this. */
  id: string;
  /** The root check, when the root is a check. */
  check?: string;
  /** The interface, when the root is an interface (it could not be reached, …). */
  interface?: Interface;
  /** The root's cause: the root check's, or the interface's (`unreachable`). */
  cause?: Cause;
  /** In words, for people. */
  reason: string;
  /** What the user can do about it, said once with the root (an interface fact's: e.g. --max-rps for a throttled interface). */
  hint?: string;
  /** What it does to the run: `fails-run` (non-conformant), `incomplete`, or `none`. */
  effect: Effect;
  /** The ids of the checks it covers: kept from being judged by it (never failed again), or standing in for its interface. */
  checks: string[];
}

/** The results.json contract other tools rely on. */
export interface RunDocument {
  /** The version of this contract (RESULTS_SCHEMA_VERSION). */
  schemaVersion: string;
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
  /** Checks per outcome (outcome.ts), summing to checks.length: `counts.failed` is exactly the checks that fail the run. */
  counts: OutcomeCounts;
  /** The same counts per spec section (the section of each check's first statement), titled from specs/rules.yaml, in the spec's order. */
  sections: SectionCounts[];
  exitCode: number;
  /** The one status line every report prints (statusLine), written once. */
  headline: string;
  /** Each root cause once, with its effect and the checks it covers; failures that fail the run first. */
  rootCauses: RootCauseRecord[];
  /** Set when the run stopped early (interrupt, deadline): the results are partial. */
  interrupted?: string;
  stoppedBy?: RunFacts['stoppedBy'];
  unreachable?: RunFacts['unreachable'];
  /** Statement id → its text in specs/rules.yaml, for every statement a check below cites. */
  statements?: Record<string, string>;
  /** --samples: answers per read-only question, the window they were spread over, the detection power. */
  sampling?: RunSampling;
  checks: Judged[];
}

export const EXIT_CODE = { conformant: 0, nonConformant: 1, config: 2, incomplete: 3, interrupted: 130 } as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Interfaces the run could not reach: from the probe, or named by checks that could not reach them. */
export function unreachableInterfaces(results: ReadonlyArray<CheckResult>, facts: RunFacts): Interface[] {
  const down = (i: Interface) => facts.unreachable?.[i] !== undefined || results.some((r) => r.cause === 'unreachable' && r.unreachable === i);
  return (['rest', 'rpc'] as const).filter(down);
}

/** Why required checks were not judged, grouped coarsely for the status line (by cause; any other: inconclusive). */
const UNJUDGED_WORDS: Partial<Record<Cause, string>> = {
  blocked: 'blocked by a prerequisite',
  throttled: 'throttled',
  credentials: 'credentials refused',
  gateway: 'gateway or backend down',
  stopped: 'stopped before it finished',
  timeout: 'did not finish in time',
  internal: "the check's own error",
  limit: "the suite's own limit",
};

/** An unreachable interface, as the run's reasons say it. */
export const unreachableWords = (i: Interface): string => `${i === 'rest' ? 'REST' : 'JSON-RPC'} target unreachable`;

/** The first words of the reason given when no required check was judged at all. */
export const NOTHING_JUDGED = 'nothing judged';

/**
 * The run status, derived once, from the outcomes (outcome.ts). non-conformant: a check that
 * fails the run (outcome `failed`), or an unreachable target. incomplete: none of those, but a
 * required check was not judged, no required check was judged at all (a selection or a scope
 * that left nothing to judge is never a pass), --require full with a scope that is not full, or
 * the run stopped early. conformant: every required check in scope judged and none failed.
 * Skipped checks leave the status alone as long as something was judged. A stale expectation
 * (a listed known failure that passed) is news about the expectations file, not about the
 * target, which passed: it leaves the status alone too, and every report lists it.
 */
export function deriveStatus(
  checks: ReadonlyArray<CheckResult | Judged>,
  facts: RunFacts,
  scope?: Pick<RunScope, 'full' | 'required' | 'leftOut' | 'interfaces' | 'signer'>,
): { status: RunStatus; reasons: string[] } {
  const results = checks.map(judged);
  const reasons: string[] = [];
  const down = unreachableInterfaces(results, facts);
  // A check standing in for an unreachable interface is that interface's one reason, not a second.
  const failed = results.filter((r) => r.effect === 'fails-run' && r.cause !== 'unreachable');
  if (failed.length) reasons.push(`${plural(failed.length, 'required check')} failed`);
  for (const i of down) reasons.push(`${unreachableWords(i)}${facts.unreachable?.[i] ? `: ${facts.unreachable[i]}` : ''}`);
  const nonConformant = reasons.length > 0;

  // Each check's effect says it: an unreachable interface already fails the run, so its checks have none.
  const unjudged = results.filter((r) => r.effect === 'incomplete');
  if (unjudged.length) {
    const kinds = new Map<string, number>();
    for (const k of unjudged.map((r) => (r.cause && UNJUDGED_WORDS[r.cause]) ?? 'inconclusive')) kinds.set(k, (kinds.get(k) ?? 0) + 1);
    reasons.push(`${plural(unjudged.length, 'required check')} not judged (${[...kinds].map(([k, n]) => `${k}: ${n}`).join(', ')})`);
  }
  if (!results.some((r) => r.level === 'required' && JUDGED_OUTCOMES.has(r.outcome))) {
    const skipped = results.filter((r) => r.level === 'required' && r.outcome === 'skipped').length;
    reasons.push(
      `${NOTHING_JUDGED}: no required check came to a verdict (${plural(skipped, 'required check')} skipped${unjudged.length ? `, ${unjudged.length} not judged` : ''})`,
    );
  }
  if (scope?.required === 'full' && !scope.full) reasons.push(`--require full: ${scopeLimits(scope).join('; ')}`);
  if (facts.interrupted) reasons.push(`run stopped early: ${facts.interrupted}`);
  // A check that fails the run without a reason above (none today) still fails it: the status never overstates.
  const failsRun = nonConformant || results.some((r) => r.effect === 'fails-run');
  return { status: failsRun ? 'non-conformant' : reasons.length ? 'incomplete' : 'conformant', reasons };
}

/**
 * The exit code of a status: 0 conformant, 1 non-conformant, 3 incomplete, and 130 for a run a
 * signal interrupted. A run its deadline stopped is what its status says: incomplete (exit 3), or
 * non-conformant (exit 1) when a check had already failed it; status line, exit line and exit
 * code always agree.
 */
export function exitCodeFor(status: RunStatus, facts: Pick<RunFacts, 'stoppedBy'>): number {
  if (facts.stoppedBy === 'signal') return EXIT_CODE.interrupted;
  return EXIT_OF_STATUS[status];
}

const EXIT_OF_STATUS: Readonly<Record<RunStatus, number>> = {
  conformant: EXIT_CODE.conformant,
  'non-conformant': EXIT_CODE.nonConformant,
  incomplete: EXIT_CODE.incomplete,
};

/** One sentence per exit code: --help, docs/exit-codes.md and every report say the same. */
export const EXIT_SENTENCES: Readonly<Record<number, string>> = {
  [EXIT_CODE.conformant]: 'conformant — every required check in scope was judged and none failed',
  [EXIT_CODE.nonConformant]: 'non-conformant — a check failed the run or a target was unreachable',
  [EXIT_CODE.config]: 'bad invocation or configuration — nothing was judged (or the reports could not be written)',
  [EXIT_CODE.incomplete]: 'incomplete — nothing failed, but not everything in scope was judged (so too a run its deadline stopped first)',
  [EXIT_CODE.interrupted]: 'interrupted by a signal — the reports hold what was measured until then',
};

/** The exit code in words, as the console, summary.md, report.html and junit print it. */
export function exitWords(code: number): string {
  return EXIT_SENTENCES[code] ? `exit ${code}: ${EXIT_SENTENCES[code]}` : `exit ${code}`;
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
  const where = `(profile ${scope.profile}${scope.archive ? ', history required' : ''}${scope.target === 'embedded' ? ', embedded reference target' : ''})`;
  if (!scope.full || limits.length) return `${limits.join('; ')} ${where}`;
  // Full, yet something that does not limit the verdict was left out: named, never "full scope" beside it.
  // The other profile's checks are not this deployment's: "(profile …)" already says which were judged.
  const extras = scope.leftOut.filter((l) => l.flag !== '--profile').map((l) => l.words);
  return extras.length ? `both interfaces and the pre-confirmed state; ${extras.join('; ')} ${where}` : `full scope ${where}`;
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

/** What the headline may read beyond status and scope: the run's facts and its checks, when at hand. */
export type HeadlineFacts = Pick<RunDocument, 'status' | 'scope'> & Partial<Pick<RunDocument, 'interrupted' | 'stoppedBy' | 'unreachable' | 'checks'>>;

/**
 * The one headline every reporter prints: what happened, then the scope. An interrupted run says
 * so; an unreachable target is named once per interface; a run that judged nothing, or left
 * required checks unjudged, says that rather than the scope it meant to judge; otherwise the
 * status with the scope it holds for ("conformant — pre-confirmed state not judged (no
 * --signer-key) (profile dedicated)").
 */
export function statusLine(doc: HeadlineFacts): string {
  const scope = scopeWords(doc.scope);
  const checks = (doc.checks ?? []).map(judged);
  if (doc.stoppedBy === 'signal')
    return `interrupted — ${doc.interrupted ?? 'stopped by a signal'}: partial results, ${doc.status} as far as it went (${scope})`;
  if (doc.stoppedBy === 'deadline') return `${doc.status} — ${doc.interrupted ?? 'the run deadline passed'}: partial results (${scope})`;
  const down = unreachableInterfaces(checks, { unreachable: doc.unreachable });
  if (down.length) {
    const names = down.map((i) => (i === 'rest' ? 'REST' : 'JSON-RPC'));
    return `${doc.status} — ${names.join(' and ')} target${down.length > 1 ? 's' : ''} unreachable`;
  }
  if (doc.status === 'incomplete' && doc.checks) {
    if (!checks.some((r) => r.level === 'required' && JUDGED_OUTCOMES.has(r.outcome)))
      return `incomplete — ${NOTHING_JUDGED}: no required check came to a verdict (${scope})`;
    // As the status reasons count them: each result whose effect leaves the run incomplete.
    const unjudged = checks.filter((r) => r.effect === 'incomplete').length;
    if (unjudged) return `incomplete — ${plural(unjudged, 'required check')} not judged (${scope})`;
  }
  return `${doc.status} — ${scope}`;
}

/** The facts stored in a results document, for re-deriving its status (verify-certificate). */
export function factsOf(doc: Pick<RunDocument, 'interrupted' | 'stoppedBy' | 'unreachable'>): RunFacts {
  return { interrupted: doc.interrupted, stoppedBy: doc.stoppedBy, unreachable: doc.unreachable };
}

/** The exit codes as --help prints them: the sentences of EXIT_SENTENCES. */
export const EXIT_CODES_HELP = Object.entries(EXIT_SENTENCES)
  .map(([code, words], i) => `${i === 0 ? 'exit codes: ' : '            '}${code.padEnd(4)}${words}`)
  .join('\n');
