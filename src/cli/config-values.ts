// One value of a flag or variable, parsed and range-checked; the messages name the flag and its
// variable and never print a value that looks like key material.
import { ConfigError } from './config-error';
import { flagName } from './url-flags';
import { SAMPLES_RANGE } from '../harness/sampling';

/** Shorter than this, a value would be replaced inside ordinary words: refused rather than half-redacted. */
export const MIN_SECRET_LENGTH = 4;

/**
 * The largest delay a timer can wait (setTimeout, AbortSignal.timeout): 2^31-1 ms, about 24.8
 * days. Node fires a longer timer at once (with a warning), which would stop a run at its start.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The accepted range of each numeric flag: beyond it a value is a mistake, never clamped. */
export const NUMBER_RANGE = {
  'timeout-ms': { min: 1, max: MAX_TIMER_MS },
  'deadline-ms': { min: 1, max: MAX_TIMER_MS },
  concurrency: { min: 1, max: 256 },
  'max-rps': { min: 1, max: 100_000 },
  samples: SAMPLES_RANGE,
  // The embedded reference's own bounds (src/reference/index.ts): at least 10 ms, at most an hour.
  'block-time': { min: 10, max: 3_600_000 },
  'flashblock-ms': { min: 10, max: 3_600_000 },
} as const;

/** The longest duration a flag takes (--nav-max-age, --clock-skew): ten years, in seconds. */
const MAX_DURATION_SEC = 10 * 365 * 86_400;

/**
 * A value as a message quotes it: "value", unless it looks like key material (a transaction key,
 * a PEM, a long hex or base64 run), which no message ever prints, whatever flag it was given to.
 */
export function quoted(value: string): string {
  const v = value.trim();
  if (/-----BEGIN|^(0x)?[0-9a-fA-F]{32,}$|^[A-Za-z0-9+/_=-]{40,}$/.test(v)) return 'the value (not shown: it looks like a key)';
  return `"${value.length > 100 ? `${value.slice(0, 100)}…` : value}"`;
}

export function parsePositiveInt(value: string, flag: keyof typeof NUMBER_RANGE, env: string): number {
  const { min, max } = NUMBER_RANGE[flag];
  if (!/^\d+$/.test(value)) throw new ConfigError(`${flagName(flag, env)}: ${quoted(value)} is not a positive integer`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new ConfigError(`${flagName(flag, env)}: ${value} is out of range (${min} to ${max})`);
  return n;
}

/** "90", "90s", "15m", "36h", "2d" -> seconds. */
export function parseDuration(value: string, flag: string, env: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h|d)?$/.exec(value.trim());
  if (!m) throw new ConfigError(`${flagName(flag, env)}: ${quoted(value)} is not a duration (e.g. 90s, 15m, 36h, 2d)`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's') as 's'];
  const seconds = Number(m[1]) * unit;
  if (!(seconds <= MAX_DURATION_SEC)) throw new ConfigError(`${flagName(flag, env)}: ${value} is out of range (at most 10 years)`);
  return seconds;
}

export function parseHeader(line: string, flag: string, env: string): [string, string] {
  const i = line.indexOf(':');
  const name = i > 0 ? line.slice(0, i).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigError(`${flagName(flag, env)}: expected 'Name: value', got a header without a valid name`);
  const value = line.slice(i + 1).trim();
  // What HTTP can carry in a field value (RFC 9110 5.5: visible ASCII, space, tab, obs-text). Any
  // other character (a control character, a typographic quote or ellipsis pasted into a token)
  // made every request fail, and the run called both targets unreachable: non-conformant, exit 1.
  const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(value);
  if (bad)
    throw new ConfigError(
      `${flagName(flag, env)}: the value of header ${name} has a character HTTP cannot carry at position ${bad.index + 1} (${bad[0].charCodeAt(0) < 0x20 || bad[0] === '\x7f' ? 'a control character' : `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}, not Latin-1: a typographic quote, dash or ellipsis pasted in?`}); value not shown`,
    );
  return [name, value];
}
