/**
 * The closed list of forms in which an honest server echoes a credential by accident, each a
 * forward encoding computed once when it is registered (docs/safe-to-share.md): nothing here
 * decodes what a target says.
 */

/** A form shorter than this is not searched for: base64 of a few bytes is found in any blob. */
export const MIN_FORM_LENGTH = 4;

const bytesOf = (s: string) => Buffer.from(s, 'utf8');
const lowerPercent = (s: string) => s.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
const nonAsciiEscaped = (s: string) => s.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** JSON as JSON.stringify writes it; Go's encoding/json (HTML-safe); PHP's json_encode and Python's json.dumps (`\/`, non-ASCII as `\u`). */
function jsonForms(s: string): string[] {
  const js = JSON.stringify(s).slice(1, -1);
  const go = js.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const ascii = nonAsciiEscaped(js);
  return [js, go, ascii, ascii.replace(/\//g, '\\/')];
}

/** encodeURIComponent in either hex case; form encoding (URLSearchParams); Python's quote keeping `/`; every byte as %XX in either case. */
function urlForms(given: string): string[] {
  // A lone surrogate is sent as U+FFFD (as Buffer writes it); encodeURIComponent would throw on it.
  const s = given.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  const component = encodeURIComponent(s);
  const form = new URLSearchParams({ x: s }).toString().slice(2);
  // quote keeps what encodeURIComponent keeps but !*'(), and keeps '/'.
  const quote = component.replace(/%2F/g, '/').replace(/[!*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const every = bytesOf(s).toString('hex').toUpperCase().replace(/../g, '%$&');
  return [component, lowerPercent(component), form, quote, lowerPercent(quote), every, every.toLowerCase()];
}

/** The five HTML specials as each common escaper writes them (named, Go's and PHP's numeric, Python's hex), or every character numeric. */
function htmlForms(s: string): string[] {
  const specials = (quot: string, apos: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': quot, "'": apos })[c]!);
  const numeric = (c: string, radix: 10 | 16) => `&#${radix === 16 ? 'x' : ''}${c.codePointAt(0)!.toString(radix)};`;
  const every = (radix: 10 | 16) => [...s].map((c) => numeric(c, radix)).join('');
  return [
    ...(['&#39;', '&#x27;', '&#039;', '&apos;'] as const).map((apos) => specials('&quot;', apos)),
    specials('&#34;', '&#39;'),
    s.replace(/[&<>"']/g, (c) => numeric(c, 10)),
    every(10),
    every(16),
    every(16).replace(/&#x([0-9a-f]+);/g, (_m, h: string) => `&#x${h.toUpperCase()};`),
  ];
}

/** The base64 characters `bytes` alone decides when it starts `offset` (0–2) bytes in: found whatever stands around it. */
export function base64Core(bytes: Buffer, offset: number): string {
  const all = Buffer.concat([Buffer.alloc(offset), bytes])
    .toString('base64')
    .replace(/=+$/, '');
  return all.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
}

const urlSafe = (base64: string) => base64.replace(/\+/g, '-').replace(/\//g, '_');
/** Base64 and base64url at each of the three byte offsets. */
const base64Forms = (s: string) => [0, 1, 2].map((offset) => base64Core(bytesOf(s), offset)).flatMap((core) => [core, urlSafe(core)]);

/**
 * Every form of `secret` in the closed list, each once, none shorter than MIN_FORM_LENGTH. Each
 * is also taken as a JSON string holds it: written by PHP's json_encode (`\/`: a PHP server
 * writes base64 or a URL-encoded value so), and quoted once more, as the suite quotes what a
 * target said in a reason (`\\/`).
 */
export function echoForms(secret: string): string[] {
  const hex = bytesOf(secret).toString('hex');
  const forms = [secret, ...jsonForms(secret), ...urlForms(secret), ...htmlForms(secret), hex, hex.toUpperCase(), ...base64Forms(secret)];
  const inJson = [...forms, ...forms.map((f) => f.replace(/\//g, '\\/'))];
  return [...new Set([...inJson, ...inJson.map((f) => JSON.stringify(f).slice(1, -1))])].filter((f) => f.length >= MIN_FORM_LENGTH);
}

/** The Basic credentials pair as an Authorization header carries it: base64 and base64url of `user:password`, padded or not. */
export function basicPairForms(user: string, password: string): string[] {
  const b64 = bytesOf(`${user}:${password}`).toString('base64');
  const url = urlSafe(b64);
  return [...new Set([b64, b64.replace(/=+$/, ''), url, url.replace(/=+$/, '')])];
}
