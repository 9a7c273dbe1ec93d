// The root causes of a run, as every reporter states them: each failure that fails the run once,
// with the checks it kept from being judged under it (never failed again), then the roots that only
// left checks unjudged. Read from the typed facts of the results (blockedBy, cause, unreachable).
import type { Interface } from '../harness/check';
import type { CheckResult } from '../harness/runner';
import type { Judged } from './outcome';
import { unreachableInterfaces, type RunFacts } from './status';

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
 * left checks unjudged (e.g. a throttled prerequisite). Unreachable targets are roots too.
 */
export function rootCauses(results: readonly Judged[], facts: RunFacts = {}): RootCause[] {
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
