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

export class Redactor {
  private readonly secrets: string[] = [];

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
