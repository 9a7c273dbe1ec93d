// What a run and verify-certificate --live share before any check runs: the secrets, and whether the target answers.
import { RateLimiter, ThrottledError, TransportError } from '../harness/http';
import { JsonBeyondLimits } from '../harness/json';
import { Redactor } from '../harness/redact';
import { RestClient } from '../harness/rest';
import { RpcClient } from '../harness/rpc';
import type { RunEnv } from '../harness/runner';
import { Transcript } from '../harness/transcript';
import { keyMaterial } from './certificate/dsse';
import type { RunConfig } from './config';

/** Every secret of the configuration, known before any request is made. */
export function redactorFor(cfg: RunConfig): Redactor {
  // Curl lines name the variables of the configuration (BASE_URL, RPC_URL) where a secret was.
  const redactor = new Redactor()
    .add(cfg.signerKey)
    .addTarget({ urlVar: 'BASE_URL', url: cfg.baseUrl, headerVar: 'REST_HEADER', headers: cfg.restHeaders })
    .addTarget({ urlVar: 'RPC_URL', url: cfg.rpcUrl, headerVar: 'RPC_HEADER', headers: cfg.rpcHeaders });
  redactor.addUrl(cfg.openapi);
  for (const secret of cfg.secrets) redactor.add(secret);
  for (const secret of cfg.signKey ? keyMaterial(cfg.signKey) : []) redactor.add(secret);
  return redactor;
}

/** Any HTTP answer counts as reachable; judging the answer is the checks' job. */
export async function probe(
  target: { baseUrl?: string; rpcUrl?: string },
  cfg: RunConfig,
  redactor: Redactor,
  limiter?: RateLimiter,
): Promise<RunEnv['unreachable']> {
  const http = { timeoutMs: cfg.timeoutMs, redactor, transcript: new Transcript(), limiter };
  const down: NonNullable<RunEnv['unreachable']> = {};
  // Three tries, so one dropped connection does not fail every check of an interface.
  const attempt = async (key: 'rest' | 'rpc', f: () => Promise<unknown>) => {
    for (let i = 1; i <= 3; i++) {
      try {
        await f();
        delete down[key];
        return;
      } catch (err) {
        // A throttled answer is an HTTP answer: the target is there, only busy; so is one too deep or too large to read.
        if (err instanceof ThrottledError || err instanceof JsonBeyondLimits) return void delete down[key];
        if (!(err instanceof TransportError)) throw err;
        down[key] = err.message;
        if (i < 3) await new Promise((r) => setTimeout(r, 300 * i));
      }
    }
  };
  await Promise.all([
    target.baseUrl ? attempt('rest', () => new RestClient(target.baseUrl!, cfg.restHeaders, http).get('/v1/tokenized-stocks')) : undefined,
    target.rpcUrl ? attempt('rpc', () => new RpcClient(target.rpcUrl!, cfg.rpcHeaders, http).call('eth_chainId', [])) : undefined,
  ]);
  return Object.keys(down).length ? down : undefined;
}
