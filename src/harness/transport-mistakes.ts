// The transport failures that are a mistake in the configuration rather than a target that is
// down: said in words that name the fix, where the client's own words would mislead (undici
// reports a proxy refusing the CONNECT tunnel as an abort, read elsewhere as a timeout; OpenSSL
// reports TLS spoken to a plain-HTTP server as "wrong version number").

/** What a transport failure was, when it is a mistake the user can fix. */
export interface TransportMistake {
  kind: 'plain-http' | 'proxy-refused';
  /** The proxy's HTTP status, for `proxy-refused`. */
  proxyStatus?: number;
  /** What happened and what to do, in words. */
  words: string;
}

/** The proxy's answer to CONNECT, when it was not 200 (undici: "Proxy response (407) !== 200 when HTTP Tunneling"). */
const PROXY_REFUSED = /Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;

/** TLS spoken to a server that answers in plain HTTP. */
const PLAIN_HTTP = /ERR_SSL_WRONG_VERSION_NUMBER|wrong version number|EPROTO/;

/** The URL with http:// in place of https:// (credentials, path and query kept: the caller redacts). */
function plainUrl(url: string): string {
  return url.replace(/^https:/i, 'http:');
}

function hasCredentials(proxy: string): boolean {
  try {
    const url = new URL(proxy);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/** The mistake a failed request shows, or undefined for a plain transport failure (refused, reset, timed out). */
export function transportMistake(err: unknown, url: string, proxy: string | undefined, proxyOrigin: string): TransportMistake | undefined {
  const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  const text = `${e?.message ?? ''} ${e?.code ?? ''} ${e?.cause?.code ?? ''} ${e?.cause?.message ?? ''}`;
  const refused = proxy ? PROXY_REFUSED.exec(text) : null;
  if (refused) {
    const status = Number(refused[1]);
    const fix =
      status !== 407
        ? 'check HTTPS_PROXY / HTTP_PROXY, and NO_PROXY for hosts to reach directly'
        : hasCredentials(proxy!)
          ? 'it refused the credentials in its URL: check the user and password in HTTPS_PROXY / HTTP_PROXY'
          : "it asks for credentials: give them in the proxy's URL (HTTPS_PROXY=http://user:password@proxy:port)";
    return {
      kind: 'proxy-refused',
      proxyStatus: status,
      words: `the proxy ${proxyOrigin} refused the CONNECT tunnel with HTTP ${status}: ${fix}`,
    };
  }
  if (/^https:/i.test(url) && PLAIN_HTTP.test(text)) {
    const origin = plainUrl(url).replace(/^(http:\/\/[^/?#]*).*$/i, '$1');
    return { kind: 'plain-http', words: `this server speaks plain HTTP, not TLS (the TLS handshake met a plain HTTP answer): use http://, as in ${origin}` };
  }
  return undefined;
}
