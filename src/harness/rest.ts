import { afterNoAnswer } from './down-mid-run';
import { httpCall, HttpOptions, HttpResult, TransportError } from './http';
import { keptText, parseJson } from './json';
import { ThrottledError } from './throttle';

/** Where a REST interface is asked whether it is still there (afterNoAnswer): not the list, any answer at all will do. */
const STILL_THERE_PATH = '/v1/conformance-still-there';

export interface RestResponse extends HttpResult {
  /** Parsed body when it is JSON; undefined otherwise (see jsonError). */
  json?: unknown;
  jsonError?: string;
}

/**
 * The last long answer parsed to a JSON object or array, known by the SHA-256 of its bytes, and
 * held weakly (as long as a check holds the answer it was parsed from). The same bytes parse to
 * the same value: a list answered alike with and without the configured headers (spec 5.1) is
 * parsed and held once, not twice. The value is shared read-only, as the run's list already is.
 */
let lastParsed: { sha256: string; json: WeakRef<object> } | undefined;

/** The body parsed as JSON, or why it is not; a list's records past the suite's bound are sampled, not refused (the records read are judged). */
function parsedBody(res: HttpResult): { json?: unknown; jsonError?: string } {
  if (res.text.length === 0) return { jsonError: 'empty body' };
  const known = res.sha256 !== undefined && lastParsed?.sha256 === res.sha256 ? lastParsed.json.deref() : undefined;
  if (known) return { json: known };
  const parsed = parseJson(res.text, { sampleRecords: true });
  if (res.sha256 !== undefined && typeof parsed.json === 'object' && parsed.json !== null) lastParsed = { sha256: res.sha256, json: new WeakRef(parsed.json) };
  return parsed;
}

/** REST client for {base_url}: every attempt of a call is one recorded, timed, redacted exchange (throttled answers are retried, see httpCall). */
export class RestClient {
  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    private readonly http: HttpOptions,
  ) {}

  url(path: string): string {
    const base = new URL(this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    const rel = path.startsWith('/') ? path.slice(1) : path;
    return new URL(rel, base).toString();
  }

  /**
   * `omitConfiguredHeaders` leaves out the run's configured headers (--header/--rest-header),
   * e.g. to show that the endpoint answers without credentials (spec 5.1).
   */
  async request(
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string>; omitConfiguredHeaders?: boolean } = {},
  ): Promise<RestResponse> {
    const configured = init.omitConfiguredHeaders ? {} : this.headers;
    const headers: Record<string, string> = { accept: 'application/json', ...configured, ...init.headers };
    if (init.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    // A read may be sent once more after a dropped connection; a write attempt never is.
    let res: HttpResult;
    const idempotent = method === 'GET' || method === 'HEAD';
    const send = () => httpCall({ method, url: this.url(path), headers, body: init.body }, this.http, { idempotent });
    try {
      res = await send();
    } catch (err) {
      // Throttled or a gateway down: a fact of this interface, whichever check asked.
      if (err instanceof ThrottledError) err.iface = 'rest';
      if (!(err instanceof TransportError && this.http.afterOpen)) throw err;
      // Asked again at another path than the list's, whose own answer may be what never comes.
      res = await afterNoAnswer(err, {
        iface: 'rest',
        http: this.http,
        askAgain: (http) => httpCall({ method: 'GET', url: this.url(STILL_THERE_PATH), headers }, http, { idempotent: true }),
        asked: `GET ${STILL_THERE_PATH}`,
        key: this.url(''),
        ...(idempotent ? { resend: send } : {}),
      });
    }
    const parsed = parsedBody(res);
    return { ...res, text: keptText(res.text, parsed), ...parsed };
  }

  get(path: string, headers?: Record<string, string>): Promise<RestResponse> {
    return this.request('GET', path, { headers });
  }
}
