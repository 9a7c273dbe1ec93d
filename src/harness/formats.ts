/**
 * The string formats every check judges values with: ISIN, EVM address, hex quantity, hex
 * bytes, RFC 3339 date-time, absolute http(s) URL, the URL an icon can be loaded from. Pure functions, no I/O; each one is also
 * registered as an Ajv format by `src/harness/schemas.ts` (see FORMATS below), so a schema
 * keyword and a hand-written check can never disagree.
 */
import type { getAddress as GetAddress } from 'viem/utils';
import { fullFormats } from 'ajv-formats/dist/formats';

// viem is loaded on the first mixed-case address only: most addresses are lowercase and
// loading it costs ~100 ms of start-up.
let checksumOf: typeof GetAddress | undefined;
/** The EIP-55 checksummed form of a 0x + 40 hex address (any case). */
export function eip55(s: string): string {
  checksumOf ??= (require('viem/utils') as { getAddress: typeof GetAddress }).getAddress;
  return checksumOf(s);
}

const ISIN_SHAPE = /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/;

/** Shaped like an ISIN (prefix, NSIN, digit) whatever its check digit: tells a typo from garbage. */
export function hasIsinShape(s: unknown): s is string {
  return typeof s === 'string' && ISIN_SHAPE.test(s);
}

/**
 * ISO 6166 ISIN: 2-letter prefix, 9 alphanumerics (the NSIN), 1 check digit. Letters are
 * replaced by 10..35 (A=10, Z=35) and the Luhn (mod 10) check is run over the resulting
 * digit string, check digit included. Uppercase only; the prefix is not looked up in
 * ISO 3166 (XS, EU and other non-country prefixes are in real use).
 */
export function isIsin(s: unknown): boolean {
  if (!hasIsinShape(s)) return false;
  let digits = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    digits += c >= 65 /* A */ ? String(c - 55) : ch;
  }
  return luhnValid(digits);
}

/** Luhn (mod 10) over a string of decimal digits whose last digit is the check digit. */
export function luhnValid(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const ADDRESS_SHAPE = /^0x[0-9a-fA-F]{40}$/;

/** `0x` + 40 hex digits in any case, checksum not judged: an address to compare or ask the chain about. */
export function hasAddressShape(s: unknown): s is string {
  return typeof s === 'string' && ADDRESS_SHAPE.test(s);
}

/**
 * A 20-byte EVM address: `0x` + 40 hex digits. An all-lowercase or all-uppercase body
 * carries no checksum and is accepted; a mixed-case body must be the EIP-55 checksum
 * (viem's `getAddress` computes it). The prefix must be a lowercase `0x`.
 */
export function isEvmAddress(s: unknown): boolean {
  if (!hasAddressShape(s)) return false;
  const body = s.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return eip55(s) === s;
}

const HEX_QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;

/** JSON-RPC quantity: `0x` + lowercase hex, no leading zeros, `0x0` for zero ("0x" invalid). */
export function isHexQuantity(s: unknown): boolean {
  return typeof s === 'string' && HEX_QUANTITY.test(s);
}

const HEX_BYTES = /^0x(?:[0-9a-f]{2})*$/;

/** JSON-RPC byte string: `0x` + an even number of lowercase hex digits; `0x` is empty bytes. */
export function isHexBytes(s: unknown): boolean {
  return typeof s === 'string' && HEX_BYTES.test(s);
}

// RFC 3339 section 5.6 date-time: full-date "T" full-time, with the mandatory offset.
// "T" and "Z" may be lowercase (5.6 NOTE). time-secfrac is "." 1*DIGIT.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Fractional second as a string of digits (may be empty). */
  fraction: string;
  /** Offset east of UTC in minutes. */
  offsetMinutes: number;
}

function parseParts(s: unknown): DateTimeParts | undefined {
  if (typeof s !== 'string') return undefined;
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12) return undefined;
  if (day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  if (second === 60) {
    // A leap second exists only as 23:59:60 UTC (RFC 3339 5.7); with an offset, the local
    // hour:minute must be the one that corresponds to 23:59 UTC.
    const utcMinuteOfDay = (((hour * 60 + minute - offsetMinutes) % 1440) + 1440) % 1440;
    if (utcMinuteOfDay !== 23 * 60 + 59) return undefined;
  }
  return { year, month, day, hour, minute, second, fraction: m[7] ? m[7].slice(1) : '', offsetMinutes };
}

/**
 * A full RFC 3339 date-time (section 5.6): `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, with the
 * offset mandatory, real calendar validation (month lengths, leap years) and the leap second
 * `:60` tolerated only where it can occur (23:59:60 UTC, at whatever offset).
 */
export function isRfc3339DateTime(s: unknown): boolean {
  return parseParts(s) !== undefined;
}

/**
 * Parses an RFC 3339 date-time into a Date (millisecond precision: extra fractional digits
 * are truncated). A leap second 23:59:60 maps to the following 00:00:00 UTC, since a Date
 * cannot hold it. Returns undefined for anything `isRfc3339DateTime` rejects.
 */
export function parseRfc3339(s: unknown): Date | undefined {
  const p = parseParts(s);
  if (!p) return undefined;
  const ms = Number((p.fraction + '000').slice(0, 3));
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day); // setUTCFullYear keeps years 0..99 literal
  d.setUTCHours(p.hour, p.minute - p.offsetMinutes, p.second, ms);
  return d;
}

/**
 * An absolute http: or https: URL with a host (`scheme://authority...`), parseable by the WHATWG
 * URL parser, and free of whitespace, control characters and backslashes (which the parser
 * would silently strip, encode or turn into '/').
 */
export function isAbsoluteHttpUrl(s: unknown): boolean {
  if (typeof s !== 'string' || s.length === 0) return false;
  if (/[\s\u0000-\u001f\u007f]/.test(s)) return false;
  // The WHATWG parser is lenient where RFC 3986 is not: it reads 'https:///x' as host 'x' and
  // a backslash as '/'. Require a non-empty authority right after '//' and no backslash.
  if (!/^https?:\/\/[^/?#]/i.test(s) || s.includes('\\')) return false;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
}

/** RFC 3986's absolute URI, as ajv-formats judges its `uri` format. */
const isUri = fullFormats.uri as (s: string) => boolean;

/**
 * A URL, the format 2.1 gives icon_url: an absolute URI (RFC 3986), or one once its non-ASCII
 * characters are percent-encoded. The WHATWG URL Standard's valid URL strings hold non-ASCII
 * code points (RFC 3987 calls them IRIs: https://cdn.example/logos/Nestlé.png, https://例え.jp/),
 * which browsers load as they are; RFC 3986 alone would need them as %C3%A9. What no URL holds
 * still fails: whitespace, markup characters, C1 controls, noncharacters, a lone surrogate, a
 * relative path.
 */
export function isUrl(s: unknown): boolean {
  if (typeof s !== 'string' || /[\u0080-\u009f\ufdd0-\ufdef]/.test(s)) return false;
  // Noncharacters (U+FFFE, U+FFFF and their like in every plane) are in no URL either.
  for (const c of s) if (((c.codePointAt(0) ?? 0) & 0xfffe) === 0xfffe) return false;
  let ascii: string;
  try {
    ascii = s.replace(/[^\u0000-\u007f]+/gu, (m) => encodeURIComponent(m));
  } catch {
    return false; // a lone surrogate: no character at all
  }
  return isUri(ascii);
}

/**
 * The schemes an icon URL may use: those a client loads an image from. http(s) name a host,
 * ipfs/ipns a content id or name (token lists publish logos this way), ar an Arweave
 * transaction or name, data an inline image. Left out on purpose: javascript: and vbscript:
 * (code, not a resource), file: (the server's own disk), ftp: (no browser or wallet loads it
 * any more), and any scheme no client resolves to an image.
 */
export const ICON_URL_SCHEMES = Object.freeze(['https', 'http', 'ipfs', 'ipns', 'ar', 'data'] as const);
export type IconUrlScheme = (typeof ICON_URL_SCHEMES)[number];

// Characters RFC 3986 never allows in a URL and that mark markup or a cut: <, >, ", whitespace,
// controls, backslash.
const NOT_IN_A_URL = /[\s\u0000-\u001f\u007f<>"\\]/;
// scheme "//" authority: a content id, name or host, then anything a URL may hold.
const AUTHORITY_URL = /^(ipfs|ipns|ar):\/\/[^/?#]+/i;
// RFC 2397 with an image media type: data:image/<subtype>[;param...][;base64],<data>
const DATA_IMAGE = /^data:image\/[a-z0-9][a-z0-9.+-]*(?:;[a-z0-9.+-]+=[^;,]*)*(?:;base64)?,./i;

/**
 * The scheme of a URL an icon can be loaded from (ICON_URL_SCHEMES), lowercased, or undefined:
 * an absolute URL (never relative), free of markup, whitespace and characters a URL cannot
 * hold; http(s) with a host (isAbsoluteHttpUrl), ipfs/ipns/ar with a non-empty id after `//`,
 * data with an image media type and some data.
 */
export function iconUrlScheme(s: unknown): IconUrlScheme | undefined {
  if (typeof s !== 'string' || s.length === 0 || NOT_IN_A_URL.test(s)) return undefined;
  if (isAbsoluteHttpUrl(s)) return s.slice(0, 5).toLowerCase() === 'https' ? 'https' : 'http';
  const authority = AUTHORITY_URL.exec(s);
  if (authority) return authority[1]!.toLowerCase() as IconUrlScheme;
  return DATA_IMAGE.test(s) ? 'data' : undefined;
}

/** A URL an icon can be loaded from: see iconUrlScheme. */
export function isIconUrl(s: unknown): boolean {
  return iconUrlScheme(s) !== undefined;
}

/**
 * What a format asks, where its name alone does not say it: appended to a schema failure, so a
 * node writing upper-case or zero-padded hex learns which encoding is meant (docs/judgement-calls.md).
 */
export const FORMAT_MEANING: Readonly<Record<string, string>> = Object.freeze({
  'hex-quantity': 'a quantity is 0x and lowercase hex digits without leading zeros (0x0 for zero), the Ethereum JSON-RPC encoding',
  'hex-bytes': 'bytes are 0x and an even number of lowercase hex digits, the Ethereum JSON-RPC encoding',
});

/**
 * The formats registered with Ajv under these names (schemas use them in `format`).
 * `date-time` replaces ajv-formats' own so that both agree with `isRfc3339DateTime`.
 */
export const FORMATS: Readonly<Record<string, (s: string) => boolean>> = Object.freeze({
  isin: isIsin,
  'evm-address': isEvmAddress,
  'hex-quantity': isHexQuantity,
  'hex-bytes': isHexBytes,
  'date-time': isRfc3339DateTime,
  'http-url': isAbsoluteHttpUrl,
  url: isUrl,
  'icon-url': isIconUrl,
});
