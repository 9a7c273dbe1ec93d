// What a check's run leaves behind, as the reports read it: its verdict or the typed cause of its
// not being judged (from the error it ended with), its values and exchanges bounded so that
// results.json stays small whatever a target sends.
import { sectionsOf, type CheckMeta, type Interface, type Status } from './check';
import { Blocked, CheckFailure, Inconclusive, Skip, type Cause, type OutOfScope } from './verdict';
import { GatewayError, ThrottledError, TransportError } from './http';
import { CREDENTIALS_HINT, CredentialsRefused, GATEWAY_HINT, THROTTLE_HINT } from './credentials';
import type { Redactor } from './redact';
import type { Violation } from './evidence';
import { observe, type Observation } from './observation';
import { recordedBody, recordedHead, REDACT_MARGIN_CHARS, type Exchange } from './transcript';
import { cutBytes, isRecord, jsonBytes, jsonHead, JsonBeyondLimits } from './json';

/**
 * The most of one expected/actual value, reason or note a result keeps (after redaction): a
 * mismatch reads in a few KiB, and a run's results.json stays small whatever a target sends.
 */
export const VALUE_CAP_BYTES = 4 * 1024;
/**
 * The most of its exchanges one result keeps, in bytes of bodies and curl lines: first and last
 * in turn (the first request and the one that failed), until this is spent; exchangeCount says
 * how many there were in all. With VALUE_CAP_BYTES, it bounds results.json for any target.
 */
export const EXCHANGE_BUDGET_BYTES = 48 * 1024;

export function keptExchanges(exchanges: Exchange[]): Exchange[] {
  const size = (e: Exchange) => (e.request.body?.length ?? 0) + (e.response?.body.length ?? 0) + e.curl.length + e.request.url.length;
  const head: Exchange[] = [];
  const tail: Exchange[] = [];
  let budget = EXCHANGE_BUDGET_BYTES;
  for (let i = 0, j = exchanges.length - 1; i <= j;) {
    const first = head.length <= tail.length;
    const e = exchanges[first ? i : j];
    // The first exchange is always kept: a failure is shown with at least one request.
    if (size(e) > budget && head.length > 0) break;
    budget -= size(e);
    if (first) head.push(exchanges[i++]);
    else tail.unshift(exchanges[j--]);
  }
  return [...head, ...tail];
}

/** "A fault on ≥ p of answers would have been seen with probability ≥ confidence": the p for `judged` answers. */
export interface DetectionPower {
  /** The smallest share of faulty answers seen with probability ≥ confidence: 1 − (1 − confidence)^(1/judged). */
  p: number;
  confidence: number;
  /** 1 − (1 − 0.25)^judged: the probability a fault on a quarter of the answers is seen. */
  atQuarter: number;
}

/** A distinct failure seen in a sample other than the one the result shows. */
export interface SampleFailure {
  /** Its sample, counted from 0. */
  sample: number;
  reason: string;
  cause?: CheckResult['cause'];
  violated?: string[];
  /** Typed and capped (see Observation): a reader never gets a target's answer whole here. */
  expected?: Observation;
  actual?: Observation;
  exchanges: Exchange[];
}

/** What a sampled check's result says about its samples ("k of N answers"). */
export interface SampleCounts {
  n: number;
  /** Samples judged (passed or failed): the detection power is stated for them. */
  judged: number;
  failed: number;
  /** Samples not judged: inconclusive (throttled, ambiguous timing, …) or skipped. */
  notJudged: number;
  /** The sample whose result the check shows (counted from 0). */
  shown: number;
  power?: DetectionPower;
  /** Other distinct failures, each with its first failing exchanges (the first failure is the result itself). */
  failures?: SampleFailure[];
}

/**
 * What kept a check from observing its subject, as the runner records it: a root check's rule the
 * check could not get past (thrown as Blocked, with its flags), or an interface found unreachable
 * when the run opened. Set only on a check that recorded no violation of its own: one seen before
 * the block is its failure, whatever blocked it after. What it means for the run (blocked by the
 * root, standing in for it, its own fault) is decided in src/verdict (root-causes.ts), from the
 * results and their blockers together, and results.json never holds it.
 */
export type Blocker = { root: string; onlyIfRootFailed?: boolean; ownEvidence?: boolean } | { unreachable: Interface };

export interface CheckResult extends CheckMeta {
  status: Status;
  /** Words for people. Code reads the facts beside it (cause, blockedBy, unreachable, outOfScope), never this. */
  reason: string;
  /** Why the result is not a plain pass (absent for a pass); see Cause. */
  cause?: Cause;
  durationMs: number;
  /**
   * For failures: the statements whose evidence failed (all the check declares when the failure
   * named none), each one the check declares; a rule of another check (a broken JSON-RPC
   * envelope, 4.2.1) blocks the check by that one instead. The one exception: a check standing
   * in for a root check not in the run states the root's rule (see Blocked).
   */
  violated?: string[];
  /** Typed and capped (see Observation): a reader never gets a target's answer whole here. */
  expected?: Observation;
  actual?: Observation;
  /** What the user can do about this result (e.g. run with --profile public), apart from the reason so no display cuts it. */
  hint?: string;
  notes?: string[];
  metrics?: Record<string, unknown>;
  /** Every exchange of a check that did not pass (bodies cut at BODY_CAP_BYTES); empty for passes. */
  exchanges: Exchange[];
  exchangeCount: number;
  /** Set when an expectations file names this check. */
  expectation?: { reason: string; link?: string; outcome: 'expected-failure' | 'unexpected-pass' };
  /** cause `blocked`: the id of the root check whose failure kept this one from being judged. */
  blockedBy?: string;
  /** cause `unreachable`: the interface that did not answer before the run. */
  unreachable?: Interface;
  /** cause `throttled`, `credentials` or `gateway`: the interface whose answers showed it (one root cause per interface). */
  interface?: Interface;
  /** cause `out-of-scope` or `deselected`: the flag that left it out (a missing URL or key, the profile, --only/--grep, no --archive, …), and in words. */
  outOfScope?: OutOfScope;
  /** --samples N > 1, for a read-only check: its N answers, "k of N" failed, and the detection power. */
  samples?: SampleCounts;
  /**
   * A failure whose check was then interrupted (an interface fact, an exception, a timeout, the
   * deadline): what ended it, as data. The violations recorded before it stand; the check was
   * judged as far as it went.
   */
  interrupted?: { cause: Cause; reason: string };
  /** Recorded by the runner for the verdict to decide (see Blocker); absent from results.json. */
  blocker?: Blocker;
}

/** Past this many characters of JSON a value is kept by its head alone (see keptValue). */
const KEPT_WINDOW_CHARS = VALUE_CAP_BYTES + 2 * REDACT_MARGIN_CHARS;

/**
 * Whether the JSON of `v` is longer than `chars`, found by walking no more of it than that
 * (each member, element and leaf counts at least one character): bounded whatever its size.
 */
function jsonLongerThan(v: unknown, chars: number): boolean {
  const todo: unknown[] = [v];
  let size = 0;
  while (todo.length > 0 && size <= chars) {
    const x = todo.pop();
    if (typeof x === 'string') size += x.length + 2;
    else if (Array.isArray(x)) {
      size += 2 + x.length;
      for (let i = 0; i < x.length && size + todo.length <= chars; i++) todo.push(x[i]);
    } else if (isRecord(x)) {
      size += 2;
      for (const k in x) {
        if (size > chars) break;
        size += k.length + 4;
        todo.push(x[k]);
      }
    } else size += String(x).length;
  }
  return size > chars;
}

/**
 * A value as a result keeps it: redacted, then, when its JSON is larger than VALUE_CAP_BYTES,
 * that JSON cut with its size. A small value is redacted whole first (a cut secret would no
 * longer be recognised). A large one (a 16 MiB answer a check quotes) is neither copied to be
 * redacted nor written whole: the head of its JSON is written (jsonHead), its strings redacted
 * as they are written, its whole size counted (jsonBytes), and that head redacted again as text (member names, forms across values) before it is cut, far enough past
 * the cut that a secret straddling the cut starts beyond it (recordedBody); the egress gate
 * masks a credential's start left before a cut (…), so no prefix of one goes out either.
 */
export function keptValue(v: unknown, redactor: Redactor): unknown {
  if (typeof v === 'string') return recordedBody(v, redactor, VALUE_CAP_BYTES).body;
  if (jsonLongerThan(v, KEPT_WINDOW_CHARS)) {
    // Its JSON written from the head only, and its size counted: a 16 MiB value quoted in a
    // failure costs no 16 MiB text (several failures quoting a list at the cap made hundreds of MiB of garbage).
    const redacted = (s: string) => redactor.text(s);
    const head = recordedHead(jsonHead(v, KEPT_WINDOW_CHARS, redacted), jsonBytes(v, redacted), redactor, VALUE_CAP_BYTES);
    if (head) return head.body;
    let json: string | undefined;
    try {
      json = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? redactor.text(x) : typeof x === 'bigint' ? x.toString() : x));
    } catch {
      // Too deep for JSON.stringify (a value no parse of this suite makes): the bounded copy below.
      json = undefined;
    }
    if (json !== undefined) return recordedBody(json, redactor, VALUE_CAP_BYTES).body;
  }
  const safe = redactor.value(v);
  const json = JSON.stringify(safe);
  const kept = json === undefined ? undefined : cutBytes(json, VALUE_CAP_BYTES);
  return kept?.truncated ? kept.text : safe;
}

export type Detail = Pick<
  CheckResult,
  'status' | 'cause' | 'reason' | 'violated' | 'expected' | 'actual' | 'hint' | 'outOfScope' | 'interface' | 'interrupted'
>;

/** The violations a result quotes in its reason; the others are counted. */
const QUOTED_VIOLATIONS = 5;

/**
 * A check's result from its evidence: failed, stating every violation its page recorded (one:
 * its own words; several: how many, the first few quoted, each value kept), whatever ended the
 * check. `ending` is what ended it when that was not the failure itself (a pass, a skip, an
 * interface fact, an exception, the deadline): stated beside the violations, never instead.
 */
export function evidenceDetail(seen: readonly Violation[], count: number, declared: readonly string[], redactor: Redactor, ending?: Detail): Detail {
  const first = seen[0];
  const words =
    count === 1
      ? first.message
      : `${count} violations: ${seen
          .slice(0, QUOTED_VIOLATIONS)
          .map((v) => v.message)
          .join('; ')}${count > QUOTED_VIOLATIONS ? '; …' : ''}`;
  const interrupted = ending && ending.status !== 'passed' && ending.cause ? { cause: ending.cause, reason: ending.reason } : undefined;
  const same = (f: (v: Violation) => unknown) => seen.every((v) => JSON.stringify(f(v)) === JSON.stringify(f(first)));
  const hint = seen.find((v) => v.hint)?.hint;
  return {
    status: 'failed',
    cause: 'violation',
    reason: redactor.text(interrupted ? `${words}; then, before the check finished: ${interrupted.reason}` : words),
    violated: [...new Set(seen.flatMap((v) => violatedOf(v.violated, declared)))],
    expected: observe(count === 1 || same((v) => v.expected) ? first.expected : seen.map((v) => v.expected), redactor, keptValue),
    actual: observe(count === 1 ? first.actual : seen.map((v) => v.actual), redactor, keptValue),
    ...(hint ? { hint } : {}),
    ...(interrupted ? { interrupted: { cause: interrupted.cause, reason: redactor.text(interrupted.reason) } } : {}),
  };
}

/** The verdict a check threw, or the cause of its not being judged, from the typed error it ended with. */
export function errorDetail(err: unknown, redactor: Redactor): Detail {
  // Explained only by its root's failure: not judged unless that root failed (the verdict decides: root-causes.ts).
  if (err instanceof Blocked && err.onlyIfRootFailed) return { status: 'inconclusive', cause: 'ambiguous', reason: redactor.text(err.message) };
  // A Blocked signal is recorded as the failure it would be, with its blocker; the verdict decides (root-causes.ts).
  if (err instanceof CheckFailure || err instanceof Blocked) {
    const { hint } = err.detail;
    return {
      status: 'failed',
      cause: 'violation',
      reason: redactor.text(err.message),
      ...(err.detail.violated?.length ? { violated: [...err.detail.violated] } : {}),
      expected: observe(err.detail.expected, redactor, keptValue),
      actual: observe(err.detail.actual, redactor, keptValue),
      ...(hint ? { hint } : {}),
    };
  }
  // An answer too deep or too large to read was not judged: the bound is this suite's, not a rule of the spec.
  if (err instanceof JsonBeyondLimits) return { status: 'inconclusive', cause: 'limit', reason: err.message };
  if (err instanceof Skip)
    return err.outOfScope
      ? { status: 'skipped', cause: 'out-of-scope', reason: err.message, outOfScope: err.outOfScope }
      : { status: 'skipped', cause: 'nothing-to-judge', reason: err.message };
  if (err instanceof Inconclusive) return { status: 'inconclusive', cause: err.kind, reason: err.message };
  // Facts of the interface, outside the spec: nothing was observed about it (one root cause per interface).
  if (err instanceof CredentialsRefused)
    return {
      status: 'inconclusive',
      cause: 'credentials',
      reason: `credentials refused: ${redactor.text(err.message)}`,
      interface: err.iface,
      hint: CREDENTIALS_HINT,
    };
  const iface = err instanceof ThrottledError && err.iface ? { interface: err.iface } : {};
  if (err instanceof GatewayError)
    return { status: 'inconclusive', cause: 'gateway', reason: `gateway or backend down: ${redactor.text(err.message)}`, ...iface, hint: GATEWAY_HINT };
  // The provider kept asking us to slow down: nothing was observed about the interface.
  if (err instanceof ThrottledError)
    return { status: 'inconclusive', cause: 'throttled', reason: `throttled: ${redactor.text(err.message)}`, ...iface, hint: THROTTLE_HINT };
  // No HTTP answer where the rule needs one: the target did not serve the interface.
  if (err instanceof TransportError) return { status: 'failed', cause: 'transport', reason: `no answer: ${err.message}` };
  // A bug in a check must never turn into a verdict about the target.
  return {
    status: 'inconclusive',
    cause: 'internal',
    reason: `internal error in check (not a verdict): ${redactor.text(String((err as Error)?.stack ?? err))}`,
  };
}

/**
 * A check that ended after its signal fired (the run was stopped, or its own time limit passed)
 * without a verdict of its own: what it saw then (an aborted request, an unfinished wait) is no
 * observation of the target. A failure, a pass or a skip it reached first stands.
 */
export function stoppedDetail(err: unknown, runSignal: AbortSignal, limitMs: number): Detail | undefined {
  if (err instanceof CheckFailure || err instanceof Blocked || err instanceof Skip) return undefined;
  if (runSignal.aborted) return { status: 'inconclusive', cause: 'stopped', reason: `stopped: ${String(runSignal.reason)}` };
  return {
    status: 'inconclusive',
    cause: 'timeout',
    reason: `check did not finish within ${limitMs} ms (the suite's own time limit for a check: not a verdict about the target)`,
  };
}

/**
 * The statements a failure violated: those it named (each one the check declares: the runner
 * holds fail() to that), otherwise every statement the check declares. A check blocked by a root
 * that did not fail in the run states the root's rule instead (see Blocked).
 */
export function violatedOf(named: readonly string[] | undefined, declared: readonly string[]): string[] {
  return [...new Set(named?.length ? named : declared)];
}

/**
 * The sections a result speaks to: for a failure, those of the statements it violated (4.2 for
 * a wrong response id in a check of 4.5); otherwise the check's own, from its statements.
 */
export function violatedSections(r: Pick<CheckResult, 'statements' | 'violated'>): string[] {
  return sectionsOf(r.violated?.length ? r.violated : r.statements);
}

/** violatedSections for display: "4.2" or "4.3, 5.2". Never parsed back. */
export function violatedSection(r: Pick<CheckResult, 'statements' | 'violated'>): string {
  return violatedSections(r).join(', ');
}
