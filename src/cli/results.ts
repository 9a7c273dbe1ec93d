import { GROUPS, type Group, type Interface, type Profile } from '../harness/check';
import type { CheckResult } from '../harness/runner';

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
  /** Human lines: what this scope leaves out, most consequential first. */
  notJudged: string[];
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

const UNREACHABLE = /^target unreachable: (rest|rpc)\b/;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Interfaces the run could not reach: from the probe, or named by checks blocked on it. */
export function unreachableInterfaces(results: CheckResult[], facts: RunFacts): Interface[] {
  const down = new Set<Interface>(Object.keys(facts.unreachable ?? {}) as Interface[]);
  for (const r of results) {
    const m = UNREACHABLE.exec(r.blockedBy ?? '');
    if (m) down.add(m[1] as Interface);
  }
  return (['rest', 'rpc'] as const).filter((i) => down.has(i));
}

/** Why a required check was not judged, grouped coarsely for the status line. */
function unjudgedKind(r: CheckResult): string {
  if (r.blockedBy) return 'blocked by a prerequisite';
  if (/throttl|rate limit|429/i.test(r.reason)) return 'throttled';
  if (/^stopped: /.test(r.reason)) return 'stopped before it finished';
  if (/internal error in check/.test(r.reason)) return "the check's own error";
  return 'inconclusive';
}

/**
 * The run status, derived once. non-conformant: a required failure (not an expected one), a
 * stale expectation, or an unreachable target. incomplete: none of those, but a required check
 * was not judged, or the run stopped early. conformant: every required check in scope judged
 * and none failed. Skipped checks (out of scope, or nothing to judge) leave the status alone.
 */
export function deriveStatus(results: CheckResult[], facts: RunFacts): { status: RunStatus; reasons: string[] } {
  const reasons: string[] = [];
  const failed = results.filter((r) => isRunFailure(r) && r.expectation?.outcome !== 'unexpected-pass');
  const stale = results.filter((r) => r.expectation?.outcome === 'unexpected-pass');
  const down = unreachableInterfaces(results, facts);
  if (failed.length) reasons.push(`${plural(failed.length, 'required check')} failed`);
  if (stale.length) reasons.push(`${plural(stale.length, 'expected failure')} now ${stale.length === 1 ? 'passes' : 'pass'} (the expectations file is stale): ${stale.map((r) => r.id).join(', ')}`);
  for (const i of down) reasons.push(`${i === 'rest' ? 'REST' : 'JSON-RPC'} target unreachable${facts.unreachable?.[i] ? `: ${facts.unreachable[i]}` : ''}`);
  const nonConformant = reasons.length > 0;

  const unjudged = results.filter((r) => isUnjudged(r) && !UNREACHABLE.test(r.blockedBy ?? ''));
  if (unjudged.length) {
    const kinds = new Map<string, number>();
    for (const k of unjudged.map(unjudgedKind)) kinds.set(k, (kinds.get(k) ?? 0) + 1);
    reasons.push(`${plural(unjudged.length, 'required check')} not judged (${[...kinds].map(([k, n]) => `${k}: ${n}`).join(', ')})`);
  }
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

/**
 * Reasons the runner gives in `outOfScope`, in words a reader of the status line understands.
 * A reason none of these (nor the configuration lines) covers is listed as it is.
 */
const OUT_OF_SCOPE_WORDS: Array<[RegExp, (reason: string) => string]> = [
  [/--archive/, () => "history beyond a full node's retention not judged (no --archive)"],
  [/--nav-max-age/, () => 'NAV staleness (advisory) not judged (no --nav-max-age)'],
  [/--openapi/, () => OPENAPI_LINE],
];
/** The API's own OpenAPI document is an extra the user may bring, not part of the target's interfaces. */
const OPENAPI_LINE = 'published OpenAPI document not judged (no --openapi)';

/** Why the pre-confirmed state was not judged when no key was given (preconfNotJudged). */
export const NO_SIGNER_KEY = 'no --signer-key';
const NO_SIGNER_LINE = `pre-confirmed state not judged (${NO_SIGNER_KEY})`;

/** Left out by --only or --grep: results.json lists such checks as skipped, `outOfScope: '--only …'` or `'--grep …'`. */
const DESELECTED = /^--(only|grep)\b/;
export const isSelected = (r: Pick<CheckResult, 'outOfScope'>): boolean => !DESELECTED.test(r.outOfScope ?? '');

/**
 * The scope, from the configuration and the selected checks (never those --only or --grep left
 * out): which groups and interfaces were judged, whether the pre-confirmed state was, and what
 * the user's own choices left out (missing URL, no signer, profile, --only/--grep, no --archive,
 * and any further outOfScope reason the runner gave).
 */
export function deriveScope(results: CheckResult[], facts: ScopeFacts): RunScope {
  const only = new Set(facts.only);
  const groups = GROUPS.filter((g) => only.has(g));
  const selected = results.filter(isSelected);
  const needs = (n: string) => selected.some((r) => (r.needs as string[]).includes(n));
  const hasRest = facts.embedded || !!facts.baseUrl;
  const hasRpc = facts.embedded || !!facts.rpcUrl;
  const interfaces = ([['rest', hasRest], ['rpc', hasRpc]] as const).filter(([i, has]) => has && needs(i)).map(([i]) => i);
  const grep = facts.grep === undefined ? undefined : typeof facts.grep === 'string' ? facts.grep : facts.grep.source;

  const lines: string[] = [];
  const covered: RegExp[] = [];
  if (!hasRest && needs('rest')) lines.push('REST interface not judged (no --base-url)'), covered.push(/--base-url/);
  if (!hasRpc && needs('rpc')) lines.push('JSON-RPC interface not judged (no --rpc-url)'), covered.push(/--rpc-url/);
  if (!facts.signer && needs('signer')) lines.push(NO_SIGNER_LINE), covered.push(/--signer-key/);
  const left = GROUPS.filter((g) => !only.has(g));
  if (left.length) lines.push(`${left.map((g) => GROUP_WORDS[g]).join(', ')} checks not run (--only ${groups.join(',')})`), covered.push(/--only/);
  if (grep !== undefined) lines.push(`only checks matching --grep ${grep} ran`), covered.push(/--grep/);
  covered.push(/profile/);

  const extra = new Map<string, number>();
  for (const r of selected) {
    if (!r.outOfScope || covered.some((c) => c.test(r.outOfScope!))) continue;
    const known = OUT_OF_SCOPE_WORDS.find(([re]) => re.test(r.outOfScope!));
    const line = known ? known[1](r.outOfScope) : `not judged (${r.outOfScope})`;
    extra.set(line, (extra.get(line) ?? 0) + 1);
  }
  for (const [line, n] of extra) lines.push(line.startsWith('not judged') ? `${plural(n, 'check')} ${line}` : line);
  if (needs(`profile:${otherProfile(facts.profile)}`)) lines.push(profileLine(facts.profile));

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
    notJudged: lines,
  };
}

/**
 * The scope in one phrase: what limits the verdict. The other profile's checks never do, nor does
 * an OpenAPI document not given (an extra, not the target), nor advisory checks left out (they
 * could not have failed the run either way).
 */
export function scopeWords(scope: RunScope): string {
  const limits = scope.notJudged.filter((l) => l !== profileLine(scope.profile) && l !== OPENAPI_LINE && !l.includes('(advisory)'));
  const where = scope.target === 'embedded' ? ', embedded reference target' : '';
  if (scope.full && limits.length === 0) return `full scope (profile ${scope.profile}${scope.archive ? ', history required' : ''}${where})`;
  if (limits.length === 0) {
    // Nothing the user left out, yet not full: the selected checks did not reach every interface or the signer.
    for (const i of ['rest', 'rpc'] as const) if (!scope.interfaces.includes(i)) limits.push(`${i === 'rest' ? 'REST' : 'JSON-RPC'} interface not judged`);
    if (!scope.signer) limits.push(`pre-confirmed state not judged (${preconfNotJudged(scope)})`);
  }
  return `${limits.join('; ')} (profile ${scope.profile}${scope.archive ? ', history required' : ''}${where})`;
}

/** Why the pre-confirmed state was not judged (undefined when it was): no key, or no check needing one selected. */
export function preconfNotJudged(scope: Pick<RunScope, 'signer' | 'notJudged'>): string | undefined {
  if (scope.signer) return undefined;
  return scope.notJudged.includes(NO_SIGNER_LINE) ? NO_SIGNER_KEY : 'no check that sends transactions was selected';
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

export interface RootCause {
  /** A check id, or `target unreachable: rest|rpc`. */
  id: string;
  /** The root check's result, when the root is a check. */
  result?: CheckResult;
  /** The root fails the run (a run failure or an unreachable target) rather than only leaving checks unjudged. */
  failsRun: boolean;
  /** Checks not judged because of it. */
  blocked: string[];
  /** For an unreachable target: the transport error. */
  reason?: string;
}

/**
 * Failures that fail the run, each stated once with the checks it blocked; then roots that only
 * left checks unjudged (e.g. a throttled prerequisite). Unreachable targets are roots too.
 */
export function rootCauses(results: CheckResult[], facts: RunFacts = {}): RootCause[] {
  const byId = new Map(results.map((r) => [r.id, r]));
  const roots = new Map<string, RootCause>();
  for (const r of results.filter(isRunFailure)) roots.set(r.id, { id: r.id, result: r, failsRun: true, blocked: [] });
  for (const i of unreachableInterfaces(results, facts)) {
    roots.set(`target unreachable: ${i}`, { id: `target unreachable: ${i}`, failsRun: true, blocked: [], ...(facts.unreachable?.[i] ? { reason: facts.unreachable[i] } : {}) });
  }
  for (const r of results) {
    if (!r.blockedBy) continue;
    let root = roots.get(r.blockedBy);
    if (!root) {
      const result = byId.get(r.blockedBy);
      root = { id: r.blockedBy, ...(result ? { result } : {}), failsRun: result ? isRunFailure(result) : false, blocked: [] };
      roots.set(r.blockedBy, root);
    }
    root.blocked.push(r.id);
  }
  return [...roots.values()].sort((a, b) => Number(b.failsRun) - Number(a.failsRun));
}

/** The exit codes as --help prints them. */
export const EXIT_CODES_HELP = [
  'exit codes: 0 conformant: every required check in scope judged, none failed',
  '            1 non-conformant: a required check failed, an expected failure passed (stale expectations),',
  '              a target was unreachable, or the run deadline passed',
  '            2 bad invocation or configuration',
  '            3 incomplete: nothing failed, but a required check in scope could not be judged',
  '            130 interrupted (reports of what was measured are still written)',
].join('\n');
