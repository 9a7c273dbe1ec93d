// URL flags (--base-url, --rpc-url, --openapi): parsed once, with the mistakes people make
// (no scheme, the list's path pasted into --base-url) refused with the corrected value, and
// nothing that may be a credential echoed.
import { publicUrl, REDACTED } from '../harness/redact';
import { safeDecode } from '../harness/url-parts';
import { ConfigError } from './config-error';

/** `--rpc-url (or RPC_URL)`: how a message names a flag and its environment variable. */
export function flagName(flag: string, env: string): string {
  return env ? `--${flag} (or ${env})` : `--${flag}`;
}

/** The list's path (spec 4.1): {base_url} is what comes before it. */
const LIST_PATH = '/v1/tokenized-stocks';
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(:\d+)?([/?#]|$)/i;

/** `--rpc-url http://localhost:8545`: the corrected flag, masked, saying so when something was. */
function suggestUrl(flag: string, corrected: string): string {
  // The rule results.json uses: userinfo, non-plain path segments and query values masked.
  const shown = publicUrl(corrected);
  return `--${flag} ${shown}${shown.includes(REDACTED) ? ` (with your own value where ${REDACTED} stands: it may be a credential, so it is not shown)` : ''}`;
}

/**
 * An absolute http(s) URL. Credentials in it (user:pass@) become a Basic Authorization header,
 * because fetch refuses URLs that carry them; the value is never echoed (it may hold a key):
 * where the mistake is plain (no scheme, the list's path pasted into --base-url), the corrected
 * value is spelled out with its credentials masked.
 */
export function parseUrl(value: string, flag: string, env: string): { url: string; authorization?: string } {
  const trimmed = value.trim();
  if (!SCHEME.test(trimmed)) {
    // Quotes kept by a .env or a YAML file, a scheme typed without its colon or a slash, or none at all.
    const unquoted = trimmed.replace(/^(['"])(.*)\1$/, '$2').trim();
    const mistyped = SCHEME.test(unquoted) ? undefined : /^(https?)(?::\/?(?!\/)|\/\/)/i.exec(unquoted);
    const corrected = SCHEME.test(unquoted)
      ? unquoted
      : mistyped
        ? `${mistyped[1].toLowerCase()}://${unquoted.slice(mistyped[0].length)}`
        : `${LOOPBACK_HOST.test(unquoted) ? 'http' : 'https'}://${unquoted.replace(/^\/+/, '')}`;
    const what =
      unquoted !== trimmed
        ? 'the URL is in quotes'
        : mistyped
          ? `the URL's scheme is mistyped (${mistyped[0]})`
          : 'the URL has no scheme (http:// or https://)';
    let parsed = true;
    try {
      new URL(corrected);
    } catch {
      parsed = false;
    }
    if (parsed) throw new ConfigError(`${flagName(flag, env)}: ${what}; did you mean ${suggestUrl(flag, corrected)}?`);
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError(`${flagName(flag, env)}: not an absolute URL such as https://node.example (value not shown: it may carry a key)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${flagName(flag, env)}: only http and https URLs are supported`);
  const path = url.pathname.replace(/\/+$/, '');
  if (flag === 'base-url' && path.toLowerCase().endsWith(LIST_PATH)) {
    const base = new URL(trimmed);
    base.pathname = path.slice(0, -LIST_PATH.length) || '/';
    base.search = '';
    base.hash = '';
    const corrected = base.toString().replace(/\/+$/, '');
    throw new ConfigError(
      `${flagName(flag, env)}: give the base URL, without the list's path ${LIST_PATH} (the suite adds it, spec 4.1): ${suggestUrl(flag, corrected)}`,
    );
  }
  let authorization: string | undefined;
  if (url.username || url.password) {
    // As the masking registers them (Redactor.addUrl): a `%` that starts no escape is the character itself, never a crash.
    authorization = `Basic ${Buffer.from(`${safeDecode(url.username)}:${safeDecode(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url: url.toString().replace(/\/+$/, ''), ...(authorization ? { authorization } : {}) };
}
