import { afterNoAnswer } from './down-mid-run';
import { httpCall, HttpOptions, HttpResult, TransportError } from './http';
import { isRecord, keptText, parseJson } from './json';
import { CredentialsRefused, credentialsRefusal } from './credentials';
import { ThrottledError } from './throttle';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcAnswer {
  http: HttpResult;
  /** Parsed JSON body (object for a single call, array for a batch). */
  json?: unknown;
  jsonError?: string;
  /** For a single call with a well-formed envelope: */
  result?: unknown;
  error?: RpcError;
  hasResult: boolean;
  hasError: boolean;
  /**
   * For a call made with call(): the answer is a JSON object whose `id` is not the request's
   * (a different value, or none). Recorded as a fact of the exchange; the checks judge it (4.2).
   */
  idMismatch?: { sent: number; got: unknown };
  /**
   * For a call made with call(): the node said it does not serve the method (-32601 "method not
   * found", -32004 "method not supported", or an error naming the method as not supported / not
   * existing), in its words. A fact of the node the judging helpers read (expect.ts expectServed).
   */
  notServed?: string;
}

/**
 * Whether an error answer says the node does not serve `method`: -32601 (JSON-RPC "method not
 * found"), -32004 (EIP-1474 "method not supported"), or a message that names the method with
 * "not supported", "does not exist", "not available" or "not found" (Hardhat, geth, proxies), or
 * after "Unsupported method:" (Alchemy answers -32600 to a method it does not serve).
 * An unsupported *parameter* (a block tag) names no method and is the method's rule to judge.
 */
export function notServedBy(method: string, error: unknown): boolean {
  if (!isRecord(error)) return false;
  if (error.code === -32601 || error.code === -32004) return true;
  const message = typeof error.message === 'string' ? error.message : '';
  const at = message.indexOf(method);
  if (at < 0) return false;
  // The refusal after the method ("Method eth_x is not supported"), or before it, naming it as the
  // method refused (a provider's "Unsupported method: eth_x", with -32600 rather than -32601).
  return (
    /\b(not supported|unsupported|does not exist|not available|not found)\b/i.test(message.slice(at + method.length)) ||
    /\b(unsupported method|method (is )?(not supported|unsupported|not found|not available|not allowed|not whitelisted))\W{0,3}$/i.test(message.slice(0, at))
  );
}

/** JSON-RPC client for {rpc_url}. It reports what it saw; judging is the checks' job. */
export class RpcClient {
  private id = 1;

  constructor(
    readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly http: HttpOptions,
  ) {}

  /** eth_chainId, the start-up probe's call, asked again after a request got no answer (afterNoAnswer): any HTTP answer will do. */
  private askChainId(http: HttpOptions): Promise<HttpResult> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    return httpCall({ method: 'POST', url: this.url, headers: { 'content-type': 'application/json', ...this.headers }, body }, http, { idempotent: true });
  }

  /**
   * POST any body (object, array or a raw string) to the node. `omitConfiguredHeaders` sends
   * none of the run's --header/--rpc-header values (for "without credentials", spec 5.2).
   */
  async post(body: unknown, opts: { headers?: Record<string, string>; omitConfiguredHeaders?: boolean } = {}): Promise<RpcAnswer> {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const configured = opts.omitConfiguredHeaders ? {} : this.headers;
    // Every call of the suite reads, and a raw send carries signed bytes with a fixed hash (sent
    // again, the node answers "already known"); only eth_sendTransaction, signed by the node, is
    // never repeated behind its back.
    const idempotent = !/"method"\s*:\s*"eth_sendTransaction"/.test(text);
    let res: HttpResult;
    const send = () =>
      httpCall({ method: 'POST', url: this.url, headers: { 'content-type': 'application/json', ...configured, ...opts.headers }, body: text }, this.http, {
        idempotent,
      });
    try {
      res = await send();
    } catch (err) {
      // Throttled or a gateway down: a fact of this interface, whichever check asked.
      if (err instanceof ThrottledError) err.iface = 'rpc';
      if (!(err instanceof TransportError && this.http.afterOpen)) throw err;
      res = await afterNoAnswer(err, {
        iface: 'rpc',
        http: this.http,
        askAgain: (http) => this.askChainId(http),
        asked: 'eth_chainId',
        key: this.url,
        ...(idempotent ? { resend: send } : {}),
      });
    }
    // Refused credentials are a fact of the node, not an answer to judge (credentials are outside
    // the spec, 5.3); a call made without the configured headers (5.2) is the check's to judge.
    const refused = opts.omitConfiguredHeaders ? undefined : credentialsRefusal(res);
    if (refused) throw new CredentialsRefused(`POST ${this.http.redactor.text(this.url)}: ${refused}`, res.status, 'rpc');
    const parsed = res.text.length > 0 ? parseJson(res.text) : { jsonError: 'empty body' };
    const answer: RpcAnswer = { http: { ...res, text: keptText(res.text, parsed) }, ...parsed, hasResult: false, hasError: false };
    if (isRecord(parsed.json)) {
      answer.hasResult = 'result' in parsed.json;
      answer.hasError = 'error' in parsed.json;
      if (answer.hasResult) answer.result = parsed.json.result;
      if (answer.hasError && isRecord(parsed.json.error)) answer.error = parsed.json.error as unknown as RpcError;
    }
    return answer;
  }

  async call(method: string, params: unknown[], id: number = this.id++, opts: { omitConfiguredHeaders?: boolean } = {}): Promise<RpcAnswer> {
    const answer = await this.post({ jsonrpc: '2.0', id, method, params }, opts);
    const got = isRecord(answer.json) ? ('id' in answer.json ? answer.json.id : undefined) : id;
    if (got !== id) answer.idMismatch = { sent: id, got };
    if (answer.hasError && notServedBy(method, answer.error)) answer.notServed = JSON.stringify(answer.error).slice(0, 300);
    return answer;
  }
}
