// Facts of a whole interface, established once: when the run opens (the probe found it
// unreachable) or as answers arrive (the node refusing the run's credentials, its gateway
// answering that the backend is down). A check such a fact explains is not judged again: it
// is blocked by the fact's own check, or by the fact itself when no check owns it.
import type { CheckMeta, Interface } from './check';
import { CredentialsRefused, GATEWAY_HINT } from './credentials';
import { GatewayError } from './throttle';
import type { CheckResult } from './result';
import { Blocked } from './verdict';

/**
 * The check that states "target unreachable" for an interface, when it is selected: the most
 * basic rule of each (the list answers 200, 4.1; a call is answered with HTTP 200, 4.2). Every
 * other check of the interface is blocked by `target unreachable: <interface>`.
 */
export const UNREACHABLE_ROOT: Readonly<Record<Interface, { id: string; violated: readonly string[] }>> = {
  rest: { id: 'rest.list.status-200', violated: ['4.1.1'] },
  rpc: { id: 'rpc.envelope.http-200', violated: ['4.2.1'] },
};

/**
 * The check that states a public node address refusing calls without credentials (5.2), and
 * by which every other check meeting that refusal is blocked.
 */
export const PUBLIC_ACCEPTS_ROOT = 'rpc.public.accepts.getTransactionCount';

/** Per interface, what the run found when it opened (RunEnv.unreachable, RunEnv.gateway). */
type Found = { rest?: string; rpc?: string };
type Prejudged = { detail: Partial<CheckResult> & Pick<CheckResult, 'status' | 'reason'>; blocker?: { unreachable: Interface } };

/** What a check that needs an interface found unreachable, or behind a gateway whose backend is down, is before it runs; undefined: it runs. */
export function prejudged(check: Pick<CheckMeta, 'needs'>, env: { unreachable?: Found; gateway?: Found }): Prejudged | undefined {
  const down = (['rest', 'rpc'] as const).find((i) => check.needs.includes(i) && env.unreachable?.[i]);
  if (down) {
    // Recorded as the failure this check states if it stands in for the interface; the verdict decides (root-causes.ts).
    return {
      detail: {
        status: 'failed',
        cause: 'unreachable',
        unreachable: down,
        reason: `target unreachable: ${env.unreachable?.[down]}`,
        violated: [...UNREACHABLE_ROOT[down].violated],
      },
      blocker: { unreachable: down },
    };
  }
  // Outside the spec: nothing to judge, said once as the root cause of the interface.
  const gateway = (['rest', 'rpc'] as const).find((i) => check.needs.includes(i) && env.gateway?.[i]);
  if (gateway)
    return {
      detail: {
        status: 'inconclusive',
        cause: 'gateway',
        interface: gateway,
        reason: `not judged: gateway or backend down: ${env.gateway?.[gateway]}`,
        hint: GATEWAY_HINT,
      },
    };
  return undefined;
}

/**
 * A gateway found down after its bounded retries stays down for the run: the checks that start
 * after it are not judged at once (prejudged) instead of each waiting the retries out again.
 * Kept in the run's `gateway` map, when the run has one (openRun gives it one).
 */
export function rememberFact(err: unknown, env: { gateway?: Found }): void {
  if (err instanceof GatewayError && err.iface && env.gateway) env.gateway[err.iface] ??= err.message;
}

/**
 * Refused credentials on a public node address: 5.2 says its calls are accepted without any, so
 * the refusal is that rule's failure, stated once by PUBLIC_ACCEPTS_ROOT (the others are blocked
 * by it). On a dedicated node it stays what it is: outside the spec (cause `credentials`).
 */
export function publicRefusal(err: unknown, env: { settings: { profile: string } }): unknown {
  if (!(err instanceof CredentialsRefused) || err.iface !== 'rpc' || env.settings.profile !== 'public') return err;
  return new Blocked(PUBLIC_ACCEPTS_ROOT, `a public node address refused the call for want of credentials: ${err.message}`, {
    violated: ['5.2.1'],
    expected: 'an answer without credentials (5.2)',
    actual: `HTTP ${err.status}`,
  });
}
