// Blocked outcomes, stand-ins and the run's root causes, decided in one place (decideRoots): from
// the results and the blocker the runner recorded on each check that could not observe its subject.
// Then the roots as every reporter states them: each failure that fails the run once, with the checks
// it kept from being judged under it (never failed again), then the roots that only left checks
// unjudged. Read from the typed facts of the results (blockedBy, cause, unreachable).
import type { Interface } from '../harness/check';
import { UNREACHABLE_ROOT } from '../harness/interface-facts';
import type { Blocker, CheckResult } from '../harness/result';
import { decide, type Judged } from './outcome';
import { NOT_JUDGED_WORDS } from './coverage';

/** The interfaces found unreachable when the run opened, with the transport error (RunFacts['unreachable']). */
type Unreachable = { unreachable?: Partial<Record<Interface, string>> };

/** The causes that are facts of a whole interface, outside the spec: each is one root per interface, whatever number of checks it kept from being judged. */
export const INTERFACE_FACTS = ['throttled', 'credentials', 'gateway'] as const;
export type InterfaceFact = (typeof INTERFACE_FACTS)[number];
const isInterfaceFact = (cause: string | undefined): cause is InterfaceFact => (INTERFACE_FACTS as readonly string[]).includes(cause ?? '');

/** The label of an interface-level root, as reports show it: `throttled: rpc`, `credentials refused: rpc`, `gateway or backend down: rest`. */
const FACT_WORDS: Readonly<Record<InterfaceFact, string>> = { throttled: 'throttled', credentials: 'credentials refused', gateway: 'gateway or backend down' };

export interface RootCause {
  /**
   * The root check's id; for an unreachable interface a label, `target unreachable: rest|rpc` (code
   * reads `unreachable`); for an interface fact a label, e.g. `throttled: rpc` (code reads `fact`).
   */
  id: string;
  /** The interface that could not be reached, when that is the root. */
  unreachable?: Interface;
  /** A fact of one interface outside the spec (throttled, credentials refused, gateway down), when that is the root: it leaves checks unjudged, never failed. */
  fact?: { cause: InterfaceFact; interface: Interface };
  /** The root's own cause, for an interface fact (the stored record keeps it). */
  cause?: InterfaceFact;
  /** What the user can do about it (e.g. --max-rps for a throttled interface), said once with the root. */
  hint?: string;
  /** The root check's result, when the root is a check. */
  result?: Judged;
  /** The root fails the run (a run failure or an unreachable target) rather than only leaving checks unjudged. */
  failsRun: boolean;
  /** Checks not judged because of it. */
  blocked: string[];
  /** For an unreachable target: the transport error; for an interface fact: the first check's reason. */
  reason?: string;
}

/**
 * Failures that fail the run, each stated once with the checks it blocked; then roots that only
 * left checks unjudged (e.g. a throttled prerequisite). Unreachable targets are roots too. Read
 * from the fields settleBlocked wrote, so that results.json alone (verify-certificate) gives the
 * same roots again.
 */
function rootCauses(results: readonly Judged[], facts: Unreachable): RootCause[] {
  const byId = new Map(results.map((r) => [r.id, r]));
  const roots = new Map<string, RootCause>();
  const label = (i: Interface) => `target unreachable: ${i}`;
  const down = new Set(unreachableInterfaces(results, facts));
  // The check standing in for a down interface (it records the failure) is that interface's root, not a second one.
  const standsIn = (r: CheckResult) => r.cause === 'unreachable' && r.unreachable !== undefined && down.has(r.unreachable);
  for (const r of results.filter((r) => r.outcome === 'failed')) if (!standsIn(r)) roots.set(r.id, { id: r.id, result: r, failsRun: true, blocked: [] });
  for (const i of down) {
    // The check standing in states the interface's one failure: it is the root's result, never also a check the root covers.
    const standIn = results.find((r) => standsIn(r) && r.unreachable === i && r.status !== 'inconclusive');
    roots.set(label(i), {
      id: label(i),
      unreachable: i,
      ...(standIn ? { result: standIn } : {}),
      failsRun: true,
      blocked: [],
      ...(facts.unreachable?.[i] ? { reason: facts.unreachable[i] } : {}),
    });
  }
  for (const r of results) {
    if (r.status !== 'inconclusive') continue;
    if (r.cause === 'unreachable' && r.unreachable) roots.get(label(r.unreachable))?.blocked.push(r.id);
    // One cause of one interface (a provider throttling, credentials refused, a gateway down) is one root, however many checks met it.
    if (isInterfaceFact(r.cause) && r.interface) {
      const id = `${FACT_WORDS[r.cause]}: ${r.interface}`;
      let root = roots.get(id);
      if (!root) {
        root = {
          id,
          fact: { cause: r.cause, interface: r.interface },
          cause: r.cause,
          failsRun: false,
          blocked: [],
          reason: r.reason,
          ...(r.hint ? { hint: r.hint } : {}),
        };
        roots.set(id, root);
      }
      root.blocked.push(r.id);
      continue;
    }
    if (!r.blockedBy) continue;
    let root = roots.get(r.blockedBy);
    if (!root) {
      const result = byId.get(r.blockedBy);
      root = { id: r.blockedBy, ...(result ? { result } : {}), failsRun: result?.outcome === 'failed', blocked: [] };
      roots.set(r.blockedBy, root);
    }
    root.blocked.push(r.id);
  }
  return [...roots.values()].sort((a, b) => Number(b.failsRun) - Number(a.failsRun));
}

/** Interfaces the run could not reach: from the probe, or named by checks that could not reach them. */
export function unreachableInterfaces(results: readonly Pick<CheckResult, 'cause' | 'unreachable'>[], facts: Unreachable): Interface[] {
  const down = (i: Interface) => facts.unreachable?.[i] !== undefined || results.some((r) => r.cause === 'unreachable' && r.unreachable === i);
  return (['rest', 'rpc'] as const).filter(down);
}

/** The checks with blocked outcomes and stand-ins decided (no blocker left on any), and the run's root causes. */
export interface DecidedRoots {
  checks: Judged[];
  roots: RootCause[];
}

/**
 * The one place blocked outcomes, stand-ins and root causes are decided, from the results and the
 * blockers the runner recorded (settleBlocked), then grouped into the roots every report states
 * (rootCauses). A document's results carry no blocker: deciding them again gives the same checks
 * and roots.
 */
export function decideRoots(results: readonly Judged[], facts: Unreachable = {}): DecidedRoots {
  const checks = settleBlocked(results);
  return { checks, roots: rootCauses(checks, facts) };
}

/** What a check not judged because of another's failure says about it, as data. */
type BlockedFact = { cause: 'blocked'; blockedBy: string } | { cause: 'unreachable'; unreachable: Interface };

/** The blocker in words, for the reason line. */
const blockerWords = (fact: BlockedFact): string => (fact.cause === 'blocked' ? fact.blockedBy : `target unreachable: ${fact.unreachable}`);

/** A key per blocker, only to group its members; the blocker itself travels beside it. */
const keyOf = (b: Blocker) => ('root' in b ? `check ${b.root}` : `interface ${b.unreachable}`);

/**
 * What became of a root that neither passed nor failed (nor was blocked or unreachable itself), in
 * words: deselected or out of scope, or not judged (throttled, stopped, …). Never "passed".
 */
function notPassedWords(root: Judged): string {
  if ((root.cause === 'deselected' || root.cause === 'out-of-scope') && root.outOfScope) return `was not selected (${root.outOfScope.words})`;
  return `was not judged (${(root.cause && NOT_JUDGED_WORDS[root.cause]) ?? (root.status === 'skipped' ? 'skipped' : 'inconclusive')})`;
}

/** A root that did not fail, as an own-evidence failure names it. */
const ownWords = (root: Judged): string => (root.status === 'passed' ? 'passed on its own request' : notPassedWords(root));

/**
 * One root cause, one failure. Each check that could not observe its subject was recorded as the
 * failure it saw, with its blocker: a root check (thrown as Blocked) or an unreachable interface.
 * Per blocker:
 * - the root check failed in this run: every blocked check becomes `inconclusive`, blockedBy it;
 * - otherwise (the root was not selected, or passed on its own request, or was not judged itself
 *   — throttled, stopped —, or the interface is unreachable) one blocked check stands in and keeps its failure, which cites the root's rule:
 *   the designated root of an unreachable interface when selected, else the first required one in
 *   report order. The others are blocked by it (by the interface, for an unreachable one: cause
 *   `unreachable`);
 * - the root did not fail (passed on its own request, or was not judged): a check whose evidence is its own request's answer
 *   (ownEvidence) keeps its failure, each its own fault; one only the root's failure explains
 *   (onlyIfRootFailed) stays not judged, never standing in.
 * A root that was itself blocked passes its own blocker on, so a chain names its first link. A
 * check without a blocker, or one that recorded a violation of its own before it was blocked, is
 * never touched: what it saw stays its failure.
 * Each result changed is judged again (outcome and effect); none keeps its blocker.
 */
function settleBlocked(results: readonly Judged[]): Judged[] {
  const out = [...results];
  const groups = new Map<string, { blocker: Blocker; members: number[] }>();
  // A violation the check recorded itself before it was blocked (`interrupted` says so) is its failure: never a member.
  results.forEach(({ blocker, interrupted }, i) => {
    if (!blocker || interrupted) return;
    const group = groups.get(keyOf(blocker)) ?? { blocker, members: [] };
    group.members.push(i);
    groups.set(keyOf(blocker), group);
  });
  const indexOf = new Map(results.map((r, i) => [r.id, i]));
  const flag = (i: number) => results[i].blocker as { onlyIfRootFailed?: boolean; ownEvidence?: boolean };
  // Judged again from its new facts, its outcome and effect last (as judge() leaves them in results.json).
  const rejudge = (i: number, { outcome: _o, effect: _e, ...r }: CheckResult & Partial<Judged>) => void (out[i] = { ...r, ...decide(r) });
  const settled = new Set<string>();
  const settle = (key: string, visiting: Set<string>): void => {
    const group = groups.get(key);
    if (!group || settled.has(key)) return;
    settled.add(key);
    const { blocker, members } = group;
    const rootIndex = 'root' in blocker ? indexOf.get(blocker.root) : undefined;
    // The root is itself blocked: settle its blocker first (a cycle, impossible in practice, is cut).
    const rootBlocker = rootIndex === undefined ? undefined : results[rootIndex].blocker;
    if (rootBlocker && !visiting.has(keyOf(rootBlocker))) settle(keyOf(rootBlocker), new Set([...visiting, key]));
    const root = rootIndex === undefined ? undefined : out[rootIndex];
    let fact: BlockedFact | undefined;
    if (root?.status === 'failed') fact = { cause: 'blocked', blockedBy: root.id };
    else if (root?.status === 'inconclusive' && root.blockedBy) fact = { cause: 'blocked', blockedBy: root.blockedBy };
    else if (root?.status === 'inconclusive' && root.unreachable) fact = { cause: 'unreachable', unreachable: root.unreachable };
    let standIn: number | undefined;
    // The root did not fail (it passed on its own request, or was not judged): members whose evidence is their own request's answer keep their failure, each its own fault.
    const own = fact || !root ? [] : members.filter((i) => flag(i).ownEvidence);
    for (const i of own) rejudge(i, { ...out[i], reason: `${out[i].reason} (${root!.id} ${ownWords(root!)}: this answer is this request's own)` });
    if (!fact) {
      // Members only their root's failure explains state nothing: they stay not judged.
      const stating = members.filter((i) => !flag(i).onlyIfRootFailed && !own.includes(i));
      if (stating.length === 0) return;
      const designated = 'unreachable' in blocker ? stating.find((i) => out[i].id === UNREACHABLE_ROOT[blocker.unreachable].id) : undefined;
      standIn = designated ?? stating.find((i) => out[i].level === 'required') ?? stating[0];
      const stated = out[standIn];
      if ('root' in blocker) {
        const why = !root
          ? `${blocker.root}, which judges that rule, was not selected`
          : root.status === 'passed'
            ? `${blocker.root} passed on its own request, so the answer changed between requests`
            : `${blocker.root}, which judges that rule, ${notPassedWords(root)}`;
        rejudge(standIn, { ...stated, reason: `${stated.reason} (stated here: ${why})` });
      }
      fact = 'root' in blocker ? { cause: 'blocked', blockedBy: stated.id } : { cause: 'unreachable', unreachable: blocker.unreachable };
    }
    for (const i of members) {
      if (i === standIn || own.includes(i)) continue;
      // Not judged: nothing of the failure it would have been stays, nor an expectation that applied to that failure.
      const { violated: _v, expected: _e, actual: _a, hint: _h, cause: _c, blockedBy: _b, unreachable: _u, expectation: _x, ...rest } = out[i];
      rejudge(i, { ...rest, status: 'inconclusive', ...fact, reason: `blocked by ${blockerWords(fact)}: ${rest.reason}` });
    }
  };
  for (const key of groups.keys()) settle(key, new Set());
  return out.map(({ blocker: _, ...r }) => r);
}
