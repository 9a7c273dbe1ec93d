/**
 * Every string from outside (transcripts, curl lines, errors, what a result quotes) passes one
 * Redactor that knows the run's credentials in the closed list of forms an honest server echoes
 * (secret-forms.ts), found literally (secret-search.ts); docs/safe-to-share.md has the threat model.
 */
import { CUT_MARK, isRecord, mapJson } from './json';
import { basicPairForms, echoForms } from './secret-forms';
import { LiteralSearch, replaceSpans } from './secret-search';
import { curlVariables, SECRET_HEADER, type CurlTarget, type CurlVariables } from './curl-variables';
import { isPlainPart, looksLikeKey, queryPairs, safeDecode, URL_LIKE } from './url-parts';

export const REDACTED = '***';

/** Query parameter names that carry credentials in provider URLs. */
const SECRET_QUERY = /^(key|api[-_]?key|apikey|token|access[-_]?token|auth|secret|password|signature|sig)$/i;
/** Authorization schemes: words, not secrets (RFC 9110 11.1), left readable. */
const AUTH_SCHEME = /^(basic|bearer|token|digest|apikey|api-key|hoba|mutual|negotiate|ntlm|vapid|scram-sha-1|scram-sha-256|aws4-hmac-sha256)$/i;
/**
 * The one rule for showing a URL that may carry a credential: scheme and host as given (a key in
 * a hostname cannot be told from a name), userinfo, every path segment and query name that is not
 * plain (isPlainPart) and every query value masked; no fragment. `isSecret` masks plain parts too.
 * Applied to its own output, it returns it unchanged.
 */
export function publicUrl(raw: string, isSecret: (part: string) => boolean = () => false): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  const mask = (part: string) => (isPlainPart(part) && !isSecret(part) ? part : REDACTED);
  const user = url.username || url.password ? `${REDACTED}${url.password ? `:${REDACTED}` : ''}@` : '';
  const path = url.pathname.split('/').map(mask).join('/');
  const query = queryPairs(url).map(({ name, value }) => (value === undefined ? mask(name) : `${mask(name)}=${value && REDACTED}`));
  // new URL() gives "https://host" the path "/": shown as it was written.
  const shownPath = path === '/' && !/^[^?#]*:\/\/[^/?#]*\/([?#]|$)/.test(raw.trim()) ? '' : path;
  return `${url.protocol}//${user}${url.host}${shownPath}${query.length ? `?${query.join('&')}` : ''}`;
}

export class Redactor {
  /** Every form of every registered credential. */
  private readonly search = new LiteralSearch();
  private readonly curlTargets: CurlTarget[] = [];

  /** How many forms of credentials are registered (0: nothing is ever masked). */
  get size(): number {
    return this.search.size;
  }

  /** Register a credential (4 characters or more) in every form of the closed list (echoForms); a 0x value without its prefix too. */
  add(secret: string | undefined): this {
    if (!secret || secret.length < 4) return this;
    for (const form of echoForms(secret)) this.search.add(form);
    return /^0x/i.test(secret) ? this.add(secret.slice(2)) : this;
  }

  /**
   * Register a credential as a header carries it: each token after an auth scheme such as Bearer,
   * each `name=value` value; for Basic, the password and the pair as sent (its user name is no secret).
   */
  addCredential(value: string | undefined): this {
    const trimmed = value?.trim() ?? '';
    const basic = /^basic\s+([A-Za-z0-9+/=_-]+)$/i.exec(trimmed);
    if (basic) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      return colon < 0 ? this.add(basic[1]).add(decoded) : this.addBasic(decoded.slice(0, colon), decoded.slice(colon + 1)).add(basic[1]);
    }
    for (const word of trimmed.split(/[\s,;]+/).filter((w) => w && !AUTH_SCHEME.test(w))) {
      this.add(word.replace(/^"|"$/g, ''));
      const eq = word.indexOf('=');
      if (eq > 0 && eq < word.length - 1) this.add(word.slice(eq + 1).replace(/^"|"$/g, ''));
    }
    return this;
  }

  /** Basic credentials: the password in every form, and the `user:password` pair in base64. */
  addBasic(user: string, password: string): this {
    if (!password) return this.add(user);
    for (const form of basicPairForms(user, password)) this.search.add(form);
    return this.add(password);
  }

  /**
   * The credential parts of a URL (a file path has none): the password (or a user alone), what
   * publicUrl masks and any credential-named parameter's value, as written and decoded; of one
   * that does not parse (a raw flag), each part that is no plain word, scheme, host or address.
   */
  addUrl(raw: string | undefined): this {
    if (!raw || !URL_LIKE.test(raw.trim())) return this;
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      for (const part of raw.split(/[/?#&=:@\s]+/))
        if (!isPlainPart(part) && !/^[a-z][a-z0-9+.-]*$/i.test(part) && !/^[\w.-]+\.\w+$|^\d+(\.\d+){3}$/.test(part)) this.add(part);
      return this;
    }
    if (url.username || url.password) this.addBasic(safeDecode(url.username), safeDecode(url.password));
    const addValue = (name: string | undefined, value: string) => {
      if (!isPlainPart(value) || value.length >= 8 || (name !== undefined && SECRET_QUERY.test(safeDecode(name))))
        this.add(value).add(safeDecode(value.replace(/\+/g, ' ')));
    };
    // A fragment is never sent, but it is part of the URL as given, and credentials travel there too.
    for (const part of url.hash.replace(/^#/, '').split(/[&;]/)) {
      const eq = part.indexOf('=');
      addValue(eq > 0 ? part.slice(0, eq) : undefined, eq < 0 ? part : part.slice(eq + 1));
    }
    for (const { name, value } of queryPairs(url)) {
      if (!isPlainPart(name)) this.add(name);
      if (value) addValue(name, value);
    }
    for (const segment of url.pathname.split('/')) if (!isPlainPart(segment)) this.add(segment).add(safeDecode(segment));
    return this;
  }

  /** Register configured headers: credential headers token by token, any other header's key-like tokens. */
  addHeaders(headers: Record<string, string>): this {
    for (const [name, value] of Object.entries(headers)) {
      if (SECRET_HEADER.test(name)) this.addCredential(value);
      else for (const word of value.split(/[\s,;=:]+/)) if (looksLikeKey(word)) this.add(word);
    }
    return this;
  }

  /** Register a target's URL and headers as secrets, and remember them for curl lines. */
  addTarget(target: CurlTarget): this {
    this.addUrl(target.url).addHeaders(target.headers);
    if (target.url) this.curlTargets.push(target);
    return this;
  }

  /** publicUrl, with any part that holds a registered secret masked as well (in the host too: a `--secret`). */
  publicUrl(raw: string): string {
    return this.text(publicUrl(raw, (part) => this.text(part) !== part));
  }

  /** The shell variables a curl line of this (unredacted) request uses where it would carry a credential (curl-variables.ts). */
  curlVariables(req: { url: string; headers: Record<string, string> }): CurlVariables {
    return curlVariables(req, this.curlTargets, (value) => this.text(value));
  }

  /** `s` masked (mask); all of it `***` when it could not be masked in part. */
  text(s: string): string {
    const { text, clean } = this.mask(s);
    return clean ? text : REDACTED;
  }

  /**
   * `s` with every registered form, and the start of one before a cut (CUT_MARK), replaced by
   * `***`; `clean` is false when a form still shows after (a credential holding `***`) or the
   * search ran past its budget: the caller then withholds the whole text.
   */
  mask(s: string): { text: string; clean: boolean } {
    if (this.search.size === 0 || s.length < 4) return { text: s, clean: true };
    const found = this.search.spans(s, CUT_MARK);
    if (!found) return { text: REDACTED, clean: false };
    if (found.length === 0) return { text: s, clean: true };
    const text = replaceSpans(s, found, REDACTED);
    return { text, clean: !this.search.starred || this.search.spans(text)?.length === 0 };
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    // A target may echo a credential as a header's name as well as in its value.
    for (const [name, value] of Object.entries(headers)) out[this.text(name)] = SECRET_HEADER.test(name) ? REDACTED : this.text(value);
    return out;
  }

  /** Any JSON-like value masked deep (without recursion, at most MAX_JSON_DEPTH); bigints become decimal strings. */
  value<T>(v: T): T {
    const mapped = mapJson(v, (x) => (typeof x === 'string' ? this.text(x) : typeof x === 'bigint' ? x.toString() : x));
    return (this.size ? this.memberNames(mapped) : mapped) as T;
  }

  /** Member names holding a secret masked in place (a target may echo a credential as a key); `***`, `***2`, … keep them distinct. */
  private memberNames(root: unknown): unknown {
    const todo: unknown[] = [root];
    while (todo.length > 0) {
      const x = todo.pop();
      // One at a time: an answer's array may hold 100 000 objects, past what a spread into push() takes on a deep stack.
      if (Array.isArray(x)) {
        for (const c of x) if (typeof c === 'object' && c !== null) todo.push(c);
      } else if (isRecord(x)) {
        const entries = Object.entries(x);
        if (entries.some(([k]) => this.text(k) !== k)) {
          for (const [k] of entries) delete x[k];
          for (const [k, c] of entries) {
            let name = this.text(k);
            for (let n = 2; Object.prototype.hasOwnProperty.call(x, name); n++) name = `${this.text(k)}${n}`;
            Object.defineProperty(x, name, { value: c, enumerable: true, writable: true, configurable: true });
          }
        }
        for (const [, c] of entries) if (typeof c === 'object' && c !== null) todo.push(c);
      }
    }
    return root;
  }
}
