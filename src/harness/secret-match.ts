/**
 * Finding a registered secret in text as a target may have re-encoded it. The Redactor replaces
 * the literal forms it knows; this matcher looks at the text the way a reader's tool would decode
 * it (percent-decoding of any byte and `+` as space; JSON, JavaScript and C escapes with `\/`,
 * `\uXXXX`, `\u{X…}`, `\xXX` and octal `\163`; HTML character references, every name of the HTML5 table and
 * numeric ones of any zero padding; base64 and base64url runs, and each of those decodings again
 * inside what a base64 run decodes to), case-insensitively, so a hit can be masked whole and a
 * write that would still carry one refused.
 */
import { decodeHTML } from 'entities';

/** Text is examined in windows of this many characters (overlapping), so no view of a huge text is made at once. */
const WINDOW = 1 << 20;
/** The shortest start of a secret that counts as a hit right before a cut mark. */
export const CUT_PREFIX = 6;
/** What this suite writes where it cut a text (json.ts CUT_MARK, report notes, an ASCII ellipsis). */
const CUT_MARKS = ['…', '...', '[cut'];

function codePoint(n: number): string {
  return Number.isInteger(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
}

/** Every `%XX` run decoded as UTF-8 bytes (invalid bytes become U+FFFD), `+` read as a space first. */
export function percentDecode(s: string): string {
  if (!s.includes('%') && !s.includes('+')) return s;
  return s.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/**
 * JSON, JavaScript, PHP and C string escapes undone: `\/`, `\"`, `\\`, `\n`, `\uXXXX` (surrogate
 * pairs joined), `\u{X…}` (JavaScript, PHP 7, Ruby, Rust: any zero padding, up to U+10FFFF), `\xXX`,
 * and octal `\163` (C, PHP, Python, sloppy JavaScript: one to three digits, `\8` and `\9` being
 * the digits themselves): no escape of these languages spells a digit as itself.
 */
export function jsonUnescape(s: string): string {
  if (!s.includes('\\')) return s;
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
  return s.replace(/\\(u\{0*[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|[\s\S])/g, (m, e: string) => {
    if (e[1] === '{') return codePoint(parseInt(e.slice(2, -1), 16)) || m;
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (simple[e] ?? e);
  });
}

/**
 * Characters a reader retypes as ASCII when they copy what a page shows: the typographic hyphens,
 * dashes and minus signs as `-`, a no-break space as a space. `&hyphen;` and `&dash;` are U+2010 in
 * the HTML5 table, yet a key shown with them is the key.
 */
const LOOKALIKE_HYPHEN = /[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]/g;

/**
 * HTML character references decoded as a browser decodes them (the `entities` library, maintained
 * with the WHATWG table): every named reference of HTML5 (`&UnderBar;`, `&dollar;`), the legacy
 * ones without `;` (`&amp`, `&lt`), and numeric ones in decimal or hexadecimal with any number of
 * leading zeros (`&#0000000115;`); then hyphen and space lookalikes read as ASCII. Linear in the text.
 */
export function htmlDecode(s: string): string {
  return s.includes('&')
    ? decodeHTML(s)
        .replace(LOOKALIKE_HYPHEN, '-')
        .replace(/\u00a0/g, ' ')
    : s;
}

/**
 * The decoded text of every base64 or base64url run of 8 or more characters (but runs of hex
 * digits), read from each of its first four offsets (a run glued to other letters still decodes at
 * one of them), one per line.
 */
export function base64Runs(s: string): string {
  const out: string[] = [];
  for (const m of s.matchAll(/[A-Za-z0-9+/_-]{8,}/g)) {
    // Hex (hashes, addresses, calldata) is most of what a node answers; a secret's base64 made of hex digits alone is vanishingly rare.
    if (/^(0x)?[0-9a-fA-F]*$/.test(m[0])) continue;
    const run = m[0].replace(/-/g, '+').replace(/_/g, '/');
    // Unpadded runs decode too: Buffer reads a last group of 2 or 3 characters.
    for (let off = 0; off < 4 && run.length - off >= 8; off++) out.push(Buffer.from(run.slice(off), 'base64').toString('latin1'));
  }
  return out.join('\n');
}

/**
 * The text of every run of 8 or more hex digits (a `0x` prefix or not), decoded as bytes from
 * each of its two nibble offsets, one per line: a node's answers are hex (revert data, calldata,
 * logs), and a target that echoes a credential there hex-encoded gives it to anyone with a hex
 * decoder.
 */
export function hexRuns(s: string): string {
  const out: string[] = [];
  for (const m of s.matchAll(/[0-9a-fA-F]{8,}/g))
    for (let off = 0; off < 2; off++) out.push(Buffer.from(m[0].slice(off, m[0].length - ((m[0].length - off) % 2)), 'hex').toString('latin1'));
  return out.join('\n');
}

/**
 * Characters a page shows as nothing (soft hyphen, zero-width spaces and joiners, word joiner,
 * BOM, Mongolian vowel separator, combining grapheme joiner): a key with them between its
 * characters reads, and copies from most pages, as the key.
 */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]|\u034f/g;

/** The text as it reads: invisible characters dropped, compatibility forms (fullwidth `ｔｏｋ`, ligatures) as their plain letters (NFKC). */
export function asRead(s: string): string {
  return /[^\x00-\x7f]/.test(s) ? s.replace(INVISIBLE, '').normalize('NFKC') : s;
}

/** A line break between two base64 characters: where an encoder wrapped a run. */
const WRAPPED_LINE = /([A-Za-z0-9+/_-])\r?\n(?=[A-Za-z0-9+/_-])/g;

/**
 * Base64 or hex written in groups (`cTdY dzJr …`, `71 37 58 …`: four groups or more, split by
 * spaces or tabs), the groups joined, one run per line: as a reader pastes them into a decoder.
 * Split, not matched with a pattern: a pattern retried inside every long run is quadratic.
 */
function groupedRuns(s: string): string {
  if (!/[ \t]/.test(s)) return '';
  const out: string[] = [];
  for (const segment of s.split(/[^A-Za-z0-9+/=_ \t-]+/)) {
    if (!/[ \t]/.test(segment)) continue;
    const groups = segment.split(/[ \t]+/).filter(Boolean);
    if (groups.length >= 4) out.push(groups.join(''));
  }
  return out.join('\n');
}

/** JSON escapes undone up to three times: a body quoted in a JSON string, quoted again in a report, is escaped once per level. */
function jsonUnescapeDeep(s: string, unescape: (x: string) => string = jsonUnescape): string {
  let out = s;
  for (let i = 0; i < 3 && out.includes('\\'); i++) out = unescape(out);
  return out;
}

/**
 * jsonUnescape remembered for one text's views: the same text is often several of their inputs
 * (htmlDecode and percentDecode give it back unchanged when it holds no `&` or `%`), and undoing
 * 4 MiB dense with escapes costs hundreds of ms each time.
 */
function rememberedUnescape(): (x: string) => string {
  const seen = new Map<string, string>();
  return (x) => {
    let out = seen.get(x);
    if (out === undefined) seen.set(x, (out = jsonUnescape(x)));
    return out;
  };
}

/**
 * The printable ASCII runs (4 characters or more) of what base64 runs decoded to, one per line:
 * the text a second decoding applies to. Base64 of text (escaped JSON, `%XX`, base64 again) decodes
 * to printable characters at its own offset; the other offsets, and base64 of binary data, decode
 * to noise that is left out, so the second level costs little more than the first.
 */
function printableRuns(decoded: string): string {
  return decoded.match(/[\x20-\x7e]{4,}/g)?.join('\n') ?? '';
}

/**
 * The ways a reader may decode `s`, lower-cased: as written, each decoding alone (escapes to three
 * levels deep), all of them in turn, base64 runs of each of those, and inside what a base64 run
 * decodes to, each decoding once more (base64 of escaped JSON, of `%XX`, of HTML references, of
 * base64, of hex), base64 once more inside that (base64 of base64 of base64), hex runs decoded,
 * and the text as it reads (invisible characters dropped, fullwidth forms as ASCII). Three levels
 * of base64 at most, each read only from the printable runs of the level above (base64 shrinks
 * its text to three quarters): each view is at most a few times the window's size.
 */
export function views(s: string): string[] {
  const unescape = rememberedUnescape();
  const deep = (x: string) => jsonUnescapeDeep(x, unescape);
  const json = deep(s);
  const all = percentDecode(percentDecode(deep(htmlDecode(s))));
  const hex = hexRuns(s);
  const out = [s, percentDecode(s), percentDecode(percentDecode(s)), unescape(s), json, htmlDecode(s), all, deep(percentDecode(s)), asRead(all), hex];
  // Base64 wrapped in lines (`base64`, MIME, PEM, a JSON string's \n) is read across the breaks, as `base64 -d` reads it.
  const unwrapped = [s, json, all].map((v) => (/[\r\n]/.test(v) ? v.replace(WRAPPED_LINE, '$1') : v));
  const grouped = groupedRuns(json);
  if (grouped) out.push(hexRuns(grouped));
  for (const source of new Set([s, json, all, ...unwrapped, grouped])) {
    const decoded = base64Runs(source);
    if (!decoded) continue;
    out.push(decoded);
    const text = printableRuns(decoded);
    if (!text) continue;
    const inner = percentDecode(percentDecode(deep(htmlDecode(text))));
    const second = inner !== text ? [base64Runs(text), base64Runs(inner)] : [base64Runs(text)];
    out.push(deep(text), percentDecode(text), inner, hexRuns(text), ...second);
    // A third level, base64 only, read from the printable runs of the second as the second is from the first's.
    for (const level of second) {
      const third = printableRuns(level);
      if (third) out.push(base64Runs(third));
    }
  }
  return [...new Set(out)].map((v) => v.toLowerCase());
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A secret of this many characters or more (whitespace aside) is also found with whitespace
 * between its characters; a shorter one stays matched as written only, as ordinary words meet
 * across a space (`in to`) far more often than a key-length run of characters does. 8 is where a
 * value starts to count as a key (looksLikeKey, a URL's query values).
 */
const SPLIT_MIN_LENGTH = 8;

/**
 * What a target may put between a secret's characters and still show the secret to a reader:
 * whitespace (a line break, a space, a tab, a no-break space), the same as a JSON escape (`\n`,
 * `\r`, `\t`: a report quotes answers in JSON), and the characters a page shows as nothing.
 */
const GAP_CHARS = String.raw`[\s\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff\u034f]`;
/**
 * At most this many whitespace characters or escapes in one GAP (a line break and an indent of
 * a few hundred columns): an unbounded one is a backtracking stack the size of the answer, and
 * 8 MiB of spaces after a secret's first character (`B`, of any `Bearer …` registered) threw
 * RangeError out of the gate.
 */
const GAP_MAX = 256;
const GAP = String.raw`(?:${GAP_CHARS}|\\[nrt]){0,${GAP_MAX}}`;
/**
 * Before a backslash of the secret, GAP_CHARS only: no GAP may start with the character after it.
 * A GAP that could also be the secret's own `\n` (the JSON form of any secret with a line break,
 * every PEM) made the pattern try each escaped newline of an answer as the secret's, each try
 * rescanning the rest: quadratic, days for 16 MiB of `\n` after a PEM's public header.
 */
const GAP_BEFORE_BACKSLASH = `${GAP_CHARS}{0,${GAP_MAX}}`;

/**
 * The source of a regular expression that finds `secret` as written or, from SPLIT_MIN_LENGTH
 * characters on, with any GAP between its characters (a whitespace or invisible character of its
 * own included): the span it matches runs from the secret's first character to its last, the
 * inserted whitespace with it. Linear: no GAP can match the character that follows it.
 */
export function secretSource(secret: string): string {
  // U+034F (combining grapheme joiner) is in the class on purpose, as a character of its own.
  // eslint-disable-next-line no-misleading-character-class
  const chars = [...secret.replace(new RegExp(`${GAP_CHARS}+`, 'g'), '')];
  if (chars.length < SPLIT_MIN_LENGTH) return escapeRegExp(secret);
  return chars.map((c, i) => (i === 0 ? '' : c === '\\' ? GAP_BEFORE_BACKSLASH : GAP) + escapeRegExp(c)).join('');
}

/**
 * The start of a registered form that gives nothing away, left out of its cut edge: a PEM's armour
 * line, or the first word of a value of several (`Bearer `, `Basic `: the header value is
 * registered whole). Any text could end in it before `[cut` or `...`, and a target writing
 * `Bearer[cut` had every text holding it hidden whole. What follows keeps its own cut edge.
 */
const PUBLIC_START = /^(?:-----begin [a-z0-9 ]+-----\s*|[a-z][\w-]*\s+)/;

/**
 * A cut edge is matched up to this many characters of a secret, nested one optional group per
 * character: nested for all of an RSA-4096 key (3,200 characters), the pattern's compilation ran
 * V8 out of memory and aborted the process. A start longer than this is a hit wherever it shows.
 */
export const CUT_MAX = 128;

/** The source matching any start of `form` of `shortest` to CUT_MAX characters (the longest it can). */
export function cutStart(form: string, shortest: number): string {
  const chars = [...form].map(escapeRegExp);
  return chars.slice(0, shortest).join('') + chars.slice(shortest, CUT_MAX).reduceRight((rest, c) => `(?:${c}${rest})?`, '');
}

/** The source matching the first CUT_MAX characters of `form`: that much of a secret is a leak, cut or not. */
export function longStart(form: string): string {
  return [...form].slice(0, CUT_MAX).map(escapeRegExp).join('');
}

/** The registered secrets in a form that can be searched for in any view of a text. */
export class SecretMatcher {
  private readonly forms = new Set<string>();
  private longest = 0;
  private pattern?: RegExp;
  private cutPattern?: RegExp;

  /** A secret (at least 4 characters), compared without letter case. */
  add(secret: string | undefined): this {
    if (!secret || secret.length < 4) return this;
    const form = secret.toLowerCase();
    if (this.forms.has(form)) return this;
    this.forms.add(form);
    this.longest = Math.max(this.longest, form.length);
    this.pattern = this.cutPattern = undefined;
    return this;
  }

  get size(): number {
    return this.forms.size;
  }

  private compile(): [RegExp, RegExp] {
    if (!this.pattern || !this.cutPattern) {
      const sorted = [...this.forms].sort((x, y) => y.length - x.length);
      this.pattern = new RegExp(sorted.map(secretSource).join('|'));
      // A cut edge: any start of CUT_PREFIX characters or more of a secret, right before a cut mark.
      const edges = sorted.map((x) => x.replace(PUBLIC_START, '')).filter((x) => x.length > CUT_PREFIX);
      const starts = edges.map((x) => cutStart(x, CUT_PREFIX));
      const marks = CUT_MARKS.map(escapeRegExp).join('|');
      const long = edges.filter((x) => [...x].length > CUT_MAX).map((x) => longStart(x));
      this.cutPattern = starts.length ? new RegExp(`(?:${starts.join('|')})(?=${marks})${long.map((l) => `|${l}`).join('')}`) : /(?!)/;
    }
    return [this.pattern, this.cutPattern];
  }

  /** Whether any view of `text` holds a registered secret, or a cut edge ends in the start of one. */
  finds(text: string): boolean {
    if (this.forms.size === 0 || text.length < 4) return false;
    const [pattern, cutPattern] = this.compile();
    // Windows overlap by far more than any encoding of the longest secret can take, or the secret
    // split by the widest GAPs (two characters per escape), up to a window.
    const overlap = Math.min(WINDOW, Math.max(256, this.longest * (2 * GAP_MAX + 12)));
    for (let at = 0; at < text.length; at += WINDOW) {
      const window = text.slice(Math.max(0, at - overlap), at + WINDOW);
      for (const v of views(window)) if (pattern.test(v) || cutPattern.test(v)) return true;
    }
    return false;
  }
}

/**
 * Characters that end a token: whitespace, quotes, brackets and the separators of JSON, HTML,
 * Markdown and tables; but the braces of a `\u{X…}` escape belong to the word it spells (matched
 * here as one piece, so they are skipped). A separator is one character and a token is what lies
 * between two: no pattern loops over a token, whose length a target chooses (a loop over 8 MiB
 * of one token overflowed the backtracking stack, and RangeError left the gate).
 */
const SEPARATOR = /\\u\{[0-9a-fA-F]{0,16}\}|[\s"'`<>()[\]{},|]/g;

/**
 * `text` with every token (a run between separators) in which `finds` sees a secret replaced by
 * `mask`. A token that ended in an odd run of backslashes keeps one, so an escaped quote after it
 * stays escaped.
 */
export function maskTokens(text: string, finds: (token: string) => boolean, mask: string): string {
  const out: string[] = [];
  let start = 0;
  const token = (end: number) => {
    if (end <= start) return;
    const word = text.slice(start, end);
    if (!finds(word)) return void out.push(word);
    let slashes = 0;
    while (slashes < word.length && word[word.length - 1 - slashes] === '\\') slashes++;
    out.push(slashes % 2 === 1 ? `${mask}\\` : mask);
  };
  for (const m of text.matchAll(SEPARATOR)) {
    if (m[0].length > 1) continue;
    token(m.index);
    out.push(m[0]);
    start = m.index + 1;
  }
  token(text.length);
  return out.join('');
}
