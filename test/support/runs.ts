import type { CheckDeclaration } from '../../src/harness/check';
import { Redactor } from '../../src/harness/redact';
import type { CheckResult, RunEnv } from '../../src/harness/runner';
import { judge, type Judged } from '../../src/verdict/outcome';
import { decideRoots } from '../../src/verdict/root-causes';

/** A run's environment against one URL for both interfaces, with the defaults a unit test needs. */
export function testRunEnv(url: string, over: Partial<RunEnv> = {}): RunEnv {
  return {
    baseUrl: url,
    rpcUrl: url,
    restHeaders: {},
    rpcHeaders: {},
    settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 1_000 },
    redactor: new Redactor(),
    signal: new AbortController().signal,
    ...over,
  };
}

/** A required REST check's declaration, `rest.test.<id>`, for runner tests. */
export const testCheckMeta = (id: string, extra: Partial<CheckDeclaration> = {}) => ({
  id: `rest.test.${id}`,
  title: id,
  statements: ['4.1.1'],
  level: 'required' as const,
  needs: ['rest' as const],
  ...extra,
});

/**
 * A run's results as results.json holds them: each judged, then blocked outcomes and stand-ins
 * decided from the blockers the runner recorded (decideRoots, as sealVerdict does).
 */
export function decided(results: readonly CheckResult[]): Judged[] {
  return decideRoots(results.map((r) => judge(r))).checks;
}
