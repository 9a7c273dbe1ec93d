// Credentials refused: an observation of the JSON-RPC client, never a verdict. Credential schemes
// are outside the spec (5.3): a dedicated node that refuses the configured credentials says
// nothing about conformance, so the checks it keeps from an answer are not judged (cause
// `credentials`); on a public node address, where 5.2 says calls are accepted without
// credentials, the runner states it once as that rule's failure.
import { cut } from './json';

/** The node refused the call's credentials (HTTP 401, or 403 with an authentication challenge). */
export class CredentialsRefused extends Error {
  override name = 'CredentialsRefused';
  constructor(
    message: string,
    readonly status: number,
    readonly iface: 'rest' | 'rpc',
  ) {
    super(message);
  }
}

/**
 * Why an answer refuses the credentials, or undefined: HTTP 401 (authentication required or
 * refused, RFC 9110 15.5.2), or HTTP 403 carrying a WWW-Authenticate challenge (a provider that
 * answers "forbidden" to a bad token). A bare 403 is a refusal of the call, for the checks to
 * judge (a public node refuses eth_getBlockReceipts so, 4.3).
 */
export function credentialsRefusal(res: { status: number; headers: Record<string, string> }): string | undefined {
  const challenge = res.headers['www-authenticate'];
  const said = challenge ? ` (WWW-Authenticate: ${cut(challenge, 120)})` : '';
  if (res.status === 401) return `HTTP 401 Unauthorized${said}`;
  if (res.status === 403 && challenge) return `HTTP 403 Forbidden${said}`;
  return undefined;
}

/** What to do about refused credentials, said once with the root cause. */
export const CREDENTIALS_HINT =
  'check the credentials the run sends to the node: --rpc-header (or RPC_HEADERS) and --header (or HEADERS), e.g. --rpc-header "Authorization: Bearer <token>", or the key in the URL as your provider documents; check that the token or key is current, not revoked, and has access to this node and network';

/** What to do about a gateway whose backend is down. */
export const GATEWAY_HINT =
  "the target's backend is down or overloaded (its gateway answered HTTP 502/503/504, or the interface stopped answering at all after it answered the start-up probe): nothing about the spec was judged; run again when the backend is up, or point the URL at one that is";

/** What to do about a provider that keeps throttling. */
export const THROTTLE_HINT =
  'the provider kept answering "too many requests": run with --max-rps N below your plan\'s limit (e.g. --max-rps 5), use a key whose plan allows more, or lower --concurrency';
