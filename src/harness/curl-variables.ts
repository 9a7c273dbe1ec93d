/**
 * Curl lines that still work: where a request carried a credential, its URL and headers are
 * named by shell variables (never filled in) instead of `***`, which would make the command fail.
 */

/** Header names whose values are always secrets, whatever the value looks like. */
export const SECRET_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|.*(token|secret|key|password|credential).*)$/i;

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

/**
 * The shell variables a curl line of this (unredacted) request should use: the target it goes
 * to is the registered one whose URL prefixes it (exact match first: an RPC call posts to the
 * URL itself). Returns no variables when nothing secret is in the request's URL or headers.
 */
export function curlVariables(
  req: { url: string; headers: Record<string, string> },
  targets: readonly CurlTarget[],
  masked: (text: string) => string,
): CurlVariables {
  const out: CurlVariables = { headers: {} };
  const target = [...targets]
    .filter((t) => req.url === t.url || req.url.startsWith(`${t.url}/`) || req.url.startsWith(`${t.url}?`))
    .sort((a, b) => Number(req.url === b.url) - Number(req.url === a.url) || b.url!.length - a.url!.length)[0];
  if (!target) return out;
  const url = target.url!;
  if (masked(url) !== url) {
    const rest = masked(req.url.slice(url.length));
    out.url =
      shellVariable(target.urlVar, `the ${target.urlVar === 'BASE_URL' ? 'REST base' : 'JSON-RPC'} URL you gave`) +
      (rest ? `'${rest.replace(/'/g, `'\\''`)}'` : '');
  }
  // Numbered in the order the target's headers were configured, counting secret ones only.
  let n = 0;
  for (const [name, value] of Object.entries(target.headers)) {
    if (!SECRET_HEADER.test(name) && masked(value) === value) continue;
    n++;
    const sent = Object.entries(req.headers).find(([k, v]) => k.toLowerCase() === name.toLowerCase() && v === value);
    if (!sent) continue;
    out.headers[sent[0]] = shellVariable(`${target.headerVar}_${n}`, `your ${name} header line, Name: value`);
  }
  return out;
}
