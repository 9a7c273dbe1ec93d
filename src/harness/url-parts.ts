/**
 * The shapes of the parts of a URL or a header value, as the gate reads them to know which may be
 * a credential (redact.ts registers and masks them; src/action/inputs.ts masks the Action's log
 * with isPlainPart). Nothing here masks anything.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A value that names a URL (a scheme then `//`): only such a value carries credentials; a file path is shown as given. */
export const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A header token that looks like a provider key rather than a word (URL parts follow the stricter
 * PLAIN_PART rule): a UUID; 8+ characters mixing letters and digits in one word (hex, base64url,
 * `sk_live_q7Xw…`); or 20+ characters of base64url with digits. `v1`, `rpc`, `tokenized-stocks`, `base-sepolia`,
 * `84532` stay readable.
 */
export function looksLikeKey(s: string): boolean {
  if (s.length < 8 || !/^[A-Za-z0-9_~.+/=%-]+$/.test(s)) return false;
  if (UUID.test(s)) return true;
  const mixed = (w: string) => /\d/.test(w) && /[A-Za-z]/.test(w);
  if (s.split(/[-_.~]/).some((w) => w.length >= 8 && mixed(w))) return true;
  return s.length >= 20 && mixed(s);
}

/**
 * A URL part that cannot be a key: a plain word (letters, `-`, `_`, up to 16 characters: `rpc`,
 * `api`, `tokenized-stocks`, `base-sepolia`), maybe with a document's extension (`openapi.json`,
 * `spec.yaml`), a version (`v2`) or a short number (a chain id such as `84532`). Everything else in
 * a path or query may be a credential.
 */
const PLAIN_PART = /^([A-Za-z][A-Za-z_-]{0,15}(\.(json|ya?ml))?|v\d{1,2}|\d{1,8})$/;

export function isPlainPart(part: string): boolean {
  return part === '' || PLAIN_PART.test(part);
}

/** A URL's query as written (not decoded): `name=value` pairs, a bare `name` with value undefined. */
export function queryPairs(url: URL): { name: string; value?: string }[] {
  return url.search
    .replace(/^\?/, '')
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? { name: pair } : { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
    });
}

/** decodeURIComponent, or `s` as it is when it is no valid encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
