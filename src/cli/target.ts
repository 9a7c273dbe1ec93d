// What a run and verify-certificate --live share before any check runs: the secrets, and whether the target answers.
import { GatewayError, RateLimiter, ThrottledError, TransportError } from '../harness/http';
import { pause } from '../harness/throttle';
import { CredentialsRefused } from '../harness/credentials';
import { isRecord, JsonBeyondLimits } from '../harness/json';
import { publicUrl, Redactor } from '../harness/redact';
import { RestClient, type RestResponse } from '../harness/rest';
import { RpcClient } from '../harness/rpc';
import type { OpenedWith, RunEnv } from '../harness/runner';
import { Transcript } from '../harness/transcript';
import type { RunConfig } from './config';

/** The list's path (spec 4.1): what the probe asks the REST target for. */
const LIST_PATH = '/v1/tokenized-stocks';

/**
 * The node refused the credentials of the run as it opened, on a dedicated profile: one
 * configuration mistake (credential schemes are outside the spec, 5.3), said with what to check.
 */
export function credentialsRefusedMessage(what: string, sentHeaders: boolean): string {
  const sent = sentHeaders
    ? 'the credentials sent (--rpc-header or RPC_HEADERS, --header or HEADERS, or user:password in the URL) were refused: check that the token or API key is current, not revoked, has access to this node and network, and goes in the header your provider expects (e.g. --rpc-header "Authorization: Bearer <token>")'
    : 'no credentials were sent: give them with --rpc-header "Authorization: Bearer <token>" (or RPC_HEADERS), or as your provider documents (a key in the URL path)';
  return `--rpc-url refused the run's credentials: eth_chainId was answered ${what.replace(/^.*?: (?=HTTP )/, '')}; ${sent}. Credentials are outside the specification (5.3): nothing was judged`;
}

/** An HTML page, by its type or its first bytes: what a web server or a single-page app serves. */
const isHtml = (headers: Record<string, string>, text: string): boolean =>
  /^text\/html/i.test(headers['content-type'] ?? '') && /^\s*</.test(text) ? true : /^\s*<(!doctype html|html[\s>])/i.test(text);

/** One JSON-RPC envelope: what only a node answers. */
const isOneEnvelope = (json: unknown): boolean => isRecord(json) && (json.jsonrpc === '2.0' || ('id' in json && ('result' in json || isRecord(json.error))));

/** A JSON-RPC envelope, or a batch of them. A bare array of records is a REST answer (wrong in its shape, for the checks to judge), not a batch. */
const isEnvelope = (json: unknown): boolean => (Array.isArray(json) ? json.length > 0 && json.every(isOneEnvelope) : isOneEnvelope(json));

/**
 * The first answer of each URL, read for the mistakes people make with them: the two URLs swapped
 * (the REST list answered by a node's envelope; eth_chainId answered by a REST API's "not found"),
 * or a web server's page where the API should be. Only what a conformant target never answers at
 * all counts: a 200 that is merely wrong is the checks' to judge, and a 5xx or 401 may be the
 * target's own trouble. Returns the message, naming the likely swap and the fix, or undefined.
 */
export function misdirection(
  which: 'rest' | 'rpc',
  answer: { status: number; headers: Record<string, string>; text: string; json?: unknown },
  names: { baseUrl: string; rpcUrl: string } = { baseUrl: '--base-url', rpcUrl: '--rpc-url' },
): string | undefined {
  const { status, headers, text, json } = answer;
  const swap = `did you swap ${names.baseUrl} and ${names.rpcUrl}? ${names.baseUrl} takes the REST API's base URL, ${names.rpcUrl} the node's JSON-RPC URL`;
  if (which === 'rest') {
    // A list with members an envelope also has is still a list: unknown extra fields are the checks' to judge.
    if (isEnvelope(json) && !(isRecord(json) && 'tokens' in json))
      return `${names.baseUrl} answers like a JSON-RPC node (GET ${LIST_PATH} was answered with a JSON-RPC envelope, HTTP ${status}), not like the REST API: ${swap}`;
    if (status === 404 && isHtml(headers, text))
      return `${names.baseUrl} is a web server, not the API: GET ${LIST_PATH} was answered with an HTML page, HTTP 404. Give the API's base URL (the suite adds ${LIST_PATH})`;
    return undefined;
  }
  if (isEnvelope(json)) return undefined;
  if (status === 404 || status === 405) {
    const what = isHtml(headers, text) ? 'an HTML page' : json !== undefined ? 'JSON that is not a JSON-RPC envelope' : 'no JSON';
    return `${names.rpcUrl} does not speak JSON-RPC: eth_chainId was answered with HTTP ${status} and ${what}, as a REST API or a web server answers a POST it has no route for: ${swap}`;
  }
  // A web server's page for a POST it does not implement (Python's http.server: 501) is no node's answer either.
  if (((status >= 200 && status < 300) || status === 501) && isHtml(headers, text))
    return `${names.rpcUrl} does not speak JSON-RPC: eth_chainId was answered with an HTML page (HTTP ${status}) from a web server: give the node's JSON-RPC URL`;
  return undefined;
}

/**
 * A --base-url ending in the list's version segment (https://api.example/v1): the suite asks for
 * {base_url}/v1/tokenized-stocks, so /v1/v1/…, and a 404 follows. Said with the corrected value,
 * as a pasted list URL is (url-flags.ts); a base URL that ends in /v1 and serves the list under
 * it (any answer but 404) is left alone.
 */
export function doubledVersion(baseUrl: string, status: number): string | undefined {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  if (status !== 404 || !/\/v1$/i.test(path)) return undefined;
  url.pathname = path.slice(0, -'/v1'.length) || '/';
  url.search = '';
  url.hash = '';
  const corrected = publicUrl(url.toString().replace(/\/+$/, ''));
  return `--base-url ends in /v1, so GET ${LIST_PATH} was asked for at …/v1${LIST_PATH} and answered HTTP 404: give the base URL without it (the suite adds ${LIST_PATH}, spec 4.1): --base-url ${corrected}`;
}

/** What the start-up probe found: interfaces that did not answer, and URLs that answer as something else. */
export interface ProbeResult {
  /** Interfaces that answered no try: refused, reset, timed out, or a gateway's 502/503/504 every time (unreachableAtOpen). */
  unreachable?: RunEnv['unreachable'];
  /** The node refused the configured credentials (HTTP 401, or 403 with a challenge): what it answered. */
  refused?: { rpc?: string };
  /** A URL that answers, but not as its interface: one message per interface, naming the fix. */
  misdirected?: Partial<Record<'rest' | 'rpc', string>>;
  /** What the probe saw that the checks judge: the list it read (see RunEnv.openedWith). */
  seen?: OpenedWith;
}

/**
 * A gateway that answered 502, 503 or 504 to every try of the probe (its bounded retries included):
 * the node behind it answered nothing. An interface found so is not asked again this run (its
 * checks are prejudged), so it answered no call of the whole run: unreachable, as a refused or
 * reset connection is (one root, exit 1), never "incomplete". One that answers the probe and
 * goes down later has answered: its checks are not judged (the run is incomplete).
 */
export const unreachableAtOpen = (gatewayWords: string): string => `${gatewayWords}: the gateway answered every try, the node behind it none`;

/** Each URL once, before the checks: any HTTP answer counts as reachable; only a wrong kind of answer is read (misdirection). */
export async function probe(
  target: { baseUrl?: string; rpcUrl?: string },
  cfg: RunConfig,
  redactor: Redactor,
  limiter?: RateLimiter,
  /** The run's stop (a signal, its deadline): what the probe found until then is no finding (the caller says it stopped). */
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const http = { timeoutMs: cfg.timeoutMs, redactor, transcript: new Transcript(), limiter, signal };
  // The list's exchanges kept apart: what the probe read is evidence the list's checks judge.
  const listTranscript = new Transcript();
  let list: RestResponse | undefined;
  const down: NonNullable<RunEnv['unreachable']> = {};
  const misdirected: NonNullable<ProbeResult['misdirected']> = {};
  const refused: NonNullable<ProbeResult['refused']> = {};
  // Three tries, so one dropped connection does not fail every check of an interface.
  const attempt = async (key: 'rest' | 'rpc', f: () => Promise<{ status: number; headers: Record<string, string>; text: string; json?: unknown }>) => {
    for (let i = 1; i <= 3; i++) {
      try {
        const answer = await f();
        delete down[key];
        const wrong = misdirection(key, answer) ?? (key === 'rest' && target.baseUrl ? doubledVersion(target.baseUrl, answer.status) : undefined);
        if (wrong) misdirected[key] = wrong;
        return;
      } catch (err) {
        delete down[key];
        // Facts of the interface, found once here: a gateway whose backend never answered, credentials refused.
        if (err instanceof GatewayError) return void (down[key] = unreachableAtOpen(err.message));
        if (err instanceof CredentialsRefused && key === 'rpc') return void (refused.rpc = err.message);
        // A throttled answer is an HTTP answer: the target is there, only busy; so is one too deep or too large to read.
        if (err instanceof ThrottledError || err instanceof JsonBeyondLimits) return void delete down[key];
        if (!(err instanceof TransportError)) throw err;
        // https:// to a plain-HTTP server, or a proxy refusing the tunnel (4xx): a mistake of the configuration, said with its fix.
        const mistake = err.mistake;
        const flag = key === 'rest' ? '--base-url' : '--rpc-url';
        const url = key === 'rest' ? target.baseUrl : target.rpcUrl;
        if (mistake?.kind === 'plain-http' && url)
          return void (misdirected[key] = `${flag}: this server speaks plain HTTP, not TLS: use ${flag} ${publicUrl(url.replace(/^https:/i, 'http:'))}`);
        if (mistake && (mistake.proxyStatus ?? 500) < 500) return void (misdirected[key] = `${flag}: ${mistake.words}`);
        down[key] = err.message;
        if (signal?.aborted) return;
        if (i < 3) await pause(300 * i, signal);
      }
    }
  };
  await Promise.all([
    target.baseUrl
      ? attempt('rest', async () => (list = await new RestClient(target.baseUrl!, cfg.restHeaders, { ...http, transcript: listTranscript }).get(LIST_PATH)))
      : undefined,
    target.rpcUrl
      ? attempt('rpc', async () => {
          const a = await new RpcClient(target.rpcUrl!, cfg.rpcHeaders, http).call('eth_chainId', []);
          return { ...a.http, json: a.json };
        })
      : undefined,
  ]);
  return {
    ...(Object.keys(down).length ? { unreachable: down } : {}),
    ...(Object.keys(refused).length ? { refused } : {}),
    ...(Object.keys(misdirected).length ? { misdirected } : {}),
    ...(list && !misdirected.rest ? { seen: { list: { response: list, exchanges: listTranscript.exchanges } } } : {}),
  };
}
