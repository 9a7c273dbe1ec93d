import type { Profile } from '../harness/check';
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

/** The results.json contract other tools rely on. */
export interface RunDocument {
  suite: { name: string; version: string };
  spec: { version: string };
  target: { baseUrl: string | null; rpcUrl: string | null; profile: Profile; embedded: boolean; expectations?: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  summary: Summary;
  exitCode: number;
  /** Set when the run stopped early (interrupt, deadline): the results are partial. */
  interrupted?: string;
  checks: CheckResult[];
}

export function isRunFailure(r: CheckResult): boolean {
  if (r.expectation?.outcome === 'unexpected-pass') return true;
  return r.status === 'failed' && r.level === 'required' && r.expectation?.outcome !== 'expected-failure';
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

/** 0 = no required check failed; 1 = a required check failed (or an expected failure passed). */
export function exitCodeOf(results: CheckResult[]): 0 | 1 {
  return results.some(isRunFailure) ? 1 : 0;
}
