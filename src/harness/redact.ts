/**
 * Secret redaction at the source: every string that leaves a client (transcripts, curl lines,
 * error messages) passes through one Redactor that knows the run's secrets.
 */
export const REDACTED = '***';

/** Header names whose values are always secrets, whatever the value looks like. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|.*(token|secret|key|password|credential).*)$/i;
/** Query parameter names that carry credentials in provider URLs. */
const SECRET_QUERY = /^(key|api[-_]?key|apikey|token|access[-_]?token|auth|secret|password|signature|sig)$/i;
/** Path segments that look like provider keys (long random tokens), e.g. /v2/<key>. */
const KEY_LIKE_SEGMENT = /^[A-Za-z0-9_-]{24,}$/;

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * A target whose secrets a curl line replaces by shell variables instead of `***` (which would
 * make the command fail): the URL as `"$BASE_URL…"` / `"$RPC_URL"`, each secret header as
 * `-H "$RPC_HEADER_1"`. The variables are named, never filled in.
 */
export interface CurlTarget {
  /** The variable that holds the URL, e.g. RPC_URL (the same name as the configuration's). */
  urlVar: string;
  /** The URL as requests use it (after the configuration took credentials out of it). */
  url: string | undefined;
  /** Prefix of the numbered header variables, e.g. RPC_HEADER -> RPC_HEADER_1, RPC_HEADER_2. */
  headerVar: string;
  headers: Record<string, string>;
}

/** Shell words for the parts of one request that carry a secret (see curlLine). */
export interface CurlVariables {
  /** Replaces the quoted URL, e.g. `"${RPC_URL:?…}"/v1/x`. */
  url?: string;
  /** Header name -> the word replacing `-H 'Name: value'`. */
  headers: Record<string, string>;
}

/**
 * `"${NAME:?export NAME: what}"`: the shell expands the exported value, or stops with this note
 * (in sh, bash and zsh alike) when it is not set; so the line itself says what to export, and
 * never holds the value. `what` must hold no quote, `$`, backslash or `}`.
 */
export function shellVariable(name: string, what: string): string {
  return `"\${${name}:?export ${name}: ${what.replace(/["$\\`}]/g, '')}}"`;
}

export class Redactor {
  private readonly secrets: string[] = [];
  private readonly curlTargets: CurlTarget[] = [];

  /** Register a literal secret (a header value, a private key, a URL credential). */
  add(secret: string | undefined): this {
    if (secret && secret.length >= 4 && !this.secrets.includes(secret)) {
      this.secrets.push(secret);
      // Longest first, so a secret containing another is replaced whole.
      this.secrets.sort((a, b) => b.length - a.length);
      if (secret.startsWith('0x')) this.add(secret.slice(2));
    }
    return this;
  }

  /** Register the secret parts of a URL: userinfo, credential query values, key-like path segments. */
  addUrl(raw: string | undefined): this {
    if (!raw) return this;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return this;
    }
    // Both the form as written (percent-encoded, as it appears in URLs and curl lines) and decoded.
    for (const part of [url.username, url.password]) this.add(part || undefined).add(part ? safeDecode(part) : undefined);
    for (const pair of url.search.replace(/^\?/, '').split('&')) {
      const [name, value] = pair.split('=', 2);
      if (value && SECRET_QUERY.test(safeDecode(name))) this.add(value).add(safeDecode(value.replace(/\+/g, ' ')));
    }
    for (const segment of url.pathname.split('/')) if (KEY_LIKE_SEGMENT.test(segment) && /\d/.test(segment)) this.add(segment);
    return this;
  }

  addHeaders(headers: Record<string, string>): this {
    for (const [name, value] of Object.entries(headers)) if (SECRET_HEADER.test(name)) this.add(value);
    return this;
  }

  /** Register a target's URL and headers as secrets, and remember them for curl lines. */
  addTarget(target: CurlTarget): this {
    this.addUrl(target.url).addHeaders(target.headers);
    if (target.url) this.curlTargets.push(target);
    return this;
  }

  private isSecretHeader(name: string, value: string): boolean {
    return SECRET_HEADER.test(name) || this.text(value) !== value;
  }

  /**
   * The shell variables a curl line of this (unredacted) request should use: the target it goes
   * to is the registered one whose URL prefixes it (exact match first: an RPC call posts to the
   * URL itself). Returns no variables when nothing secret is in the request's URL or headers.
   */
  curlVariables(req: { url: string; headers: Record<string, string> }): CurlVariables {
    const out: CurlVariables = { headers: {} };
    const target = [...this.curlTargets]
      .filter((t) => req.url === t.url || req.url.startsWith(`${t.url}/`) || req.url.startsWith(`${t.url}?`))
      .sort((a, b) => Number(req.url === b.url) - Number(req.url === a.url) || b.url!.length - a.url!.length)[0];
    if (!target) return out;
    const url = target.url!;
    if (this.text(url) !== url) {
      const rest = this.text(req.url.slice(url.length));
      out.url = shellVariable(target.urlVar, `the ${target.urlVar === 'BASE_URL' ? 'REST base' : 'JSON-RPC'} URL you gave`) + (rest ? `'${rest.replace(/'/g, `'\\''`)}'` : '');
    }
    // Numbered in the order the target's headers were configured, counting secret ones only.
    let n = 0;
    for (const [name, value] of Object.entries(target.headers)) {
      if (!this.isSecretHeader(name, value)) continue;
      n++;
      const sent = Object.entries(req.headers).find(([k, v]) => k.toLowerCase() === name.toLowerCase() && v === value);
      if (!sent) continue;
      out.headers[sent[0]] = shellVariable(`${target.headerVar}_${n}`, `your ${name} header line, Name: value`);
    }
    return out;
  }

  text(s: string): string {
    let out = s;
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    return out;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) out[name] = SECRET_HEADER.test(name) ? REDACTED : this.text(value);
    return out;
  }

  /** Deep-redact any JSON-like value (used on results before they reach a reporter). */
  value<T>(v: T): T {
    if (typeof v === 'string') return this.text(v) as T;
    if (Array.isArray(v)) return v.map((x) => this.value(x)) as T;
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.value(x);
      return out as T;
    }
    return v;
  }
}
