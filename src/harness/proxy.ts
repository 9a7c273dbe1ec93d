/**
 * Which proxy, if any, a request to a target goes through: HTTPS_PROXY for https:// targets,
 * HTTP_PROXY for http:// ones (lower-case names first, as curl reads them), unless NO_PROXY
 * lists the host. Node's fetch ignores these variables; corporate CI often cannot reach a
 * remote target without them. Loopback targets (127.0.0.0/8, localhost, ::1: the embedded
 * reference, local nodes) never go through a proxy.
 */
import { BlockList, isIP } from 'node:net';

export interface ProxySettings {
  env: Record<string, string | undefined>;
  /** True except in the test that proves the proxy path on a loopback server. */
  exemptLoopback: boolean;
}

export const PROXY_FROM_ENVIRONMENT: ProxySettings = { env: process.env, exemptLoopback: true };

function variable(env: ProxySettings['env'], name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value?.trim() || undefined;
}

/** The host as NO_PROXY entries name it: lower case, IPv6 without brackets, no trailing dot. */
function bareHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:7f00:0', 104, 'ipv6'); // ::ffff:127.0.0.0/104, as URL writes it

export function isLoopback(hostname: string): boolean {
  const host = bareHost(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/** One NO_PROXY entry: `*`, a host or domain (`example.com` and `.example.com` both cover subdomains), an IP or CIDR range, optionally `:port`. */
function matchesNoProxy(entry: string, host: string, port: string): boolean {
  if (entry === '*') return true;
  let name = entry.toLowerCase();
  let entryPort: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(name);
  if (bracketed) [, name, entryPort] = bracketed;
  else if (/^[^:]+:\d+$/.test(name)) [name, entryPort] = name.split(':');
  if (entryPort && entryPort !== port) return false;
  const slash = name.indexOf('/');
  if (slash > 0) {
    const [base, bits] = [name.slice(0, slash), Number(name.slice(slash + 1))];
    const family = isIP(base) === 6 ? 'ipv6' : isIP(base) === 4 ? 'ipv4' : undefined;
    if (!family || isIP(host) !== (family === 'ipv6' ? 6 : 4) || !Number.isInteger(bits)) return false;
    const range = new BlockList();
    range.addSubnet(base, bits, family);
    return range.check(host, family);
  }
  const domain = name.replace(/^\*?\./, '');
  return host === domain || (!isIP(host) && host.endsWith(`.${domain}`));
}

/** The proxy URL for a request to `target`, or undefined for a direct connection. */
export function proxyFor(target: string, settings: ProxySettings = PROXY_FROM_ENVIRONMENT): string | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  const proxy = url.protocol === 'https:' ? variable(settings.env, 'https_proxy') : url.protocol === 'http:' ? variable(settings.env, 'http_proxy') : undefined;
  if (!proxy) return undefined;
  const host = bareHost(url.hostname);
  if (settings.exemptLoopback && isLoopback(host)) return undefined;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const noProxy = (variable(settings.env, 'no_proxy') ?? '').split(/[\s,]+/).filter(Boolean);
  if (noProxy.some((entry) => matchesNoProxy(entry, host, port))) return undefined;
  return proxy;
}
