/**
 * "Did you mean …" for what a user types by hand: flags, group names, check ids. Bounded: inputs
 * and candidates are compared only up to MAX_LENGTH characters, and at most MAX_SUGGESTIONS are named.
 */

const MAX_LENGTH = 80;
const MAX_SUGGESTIONS = 3;

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours: `ulr` for `url`). */
export function editDistance(a: string, b: string): number {
  a = a.slice(0, MAX_LENGTH);
  b = b.slice(0, MAX_LENGTH);
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * Whether editDistance(a, b) is exactly 1, in one linear pass: every variable of the environment
 * is compared on every run, and the full table costs a run milliseconds per name before it starts.
 */
export function oneEditApart(a: string, b: string): boolean {
  if (a.length > MAX_LENGTH || b.length > MAX_LENGTH) return editDistance(a, b) === 1;
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (a[i] === b[i]) i++;
  if (a.length === b.length) {
    // One substitution, or a swap of two neighbours.
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // One insertion or deletion: the longer without its first differing character is the shorter.
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * The candidates closest to `input`: those it is a prefix of (or that are a prefix of it) first,
 * then those within an edit distance of about a third of its length (at least 1), nearest first.
 */
export function suggestions(input: string, candidates: Iterable<string>): string[] {
  const typed = input.slice(0, MAX_LENGTH).toLowerCase();
  if (!typed) return [];
  const limit = Math.max(1, Math.floor(typed.length / 3));
  const scored: Array<[string, number]> = [];
  for (const c of new Set(candidates)) {
    const lower = c.toLowerCase();
    if (lower === typed) continue;
    const prefix = typed.length >= 3 && (lower.startsWith(typed) || typed.startsWith(lower));
    const distance = editDistance(typed, lower);
    if (prefix || distance <= limit) scored.push([c, prefix ? 0 : distance]);
  }
  return scored
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_SUGGESTIONS)
    .map(([c]) => c);
}

/** ` (did you mean --rpc-url?)`, or '' when nothing is close. */
export function didYouMean(input: string, candidates: Iterable<string>, show: (c: string) => string = (c) => c): string {
  const close = suggestions(input, candidates);
  return close.length ? ` (did you mean ${close.map(show).join(' or ')}?)` : '';
}

/** Under CI: `CI` set to anything but empty, 0 or false (CI=true, CI=1), or GitHub Actions. */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return (ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false') || env.GITHUB_ACTIONS === 'true';
}

/** A variable name as people misspell it: case, underscores and dashes aside (`BASEURL`, `base_url`, `Rpc-Url`). */
const folded = (name: string) => name.toUpperCase().replace(/[-_]/g, '');

/**
 * Variables that are set but are near misses of the suite's own (`BASEURL` for BASE_URL, `BASE_URI`,
 * `SIGNER_KEY` for SIGNER_PRIVATE_KEY): each with the name meant. Only names close to the suite's
 * are compared, so PATH, HOME and the rest of a CI's environment never are: the same letters up to
 * case and separators; one edit away from a name of two words or more (`RPC_URI`); or a flag's
 * name written as a variable (`--signer-key` as SIGNER_KEY) where that is not its variable.
 */
export function nearMissVariables(
  env: NodeJS.ProcessEnv,
  known: ReadonlyArray<readonly [flag: string, variable: string]>,
): Array<{ given: string; meant: string }> {
  const variables = new Set(known.map(([, v]) => v).filter(Boolean));
  const byFolded = new Map([...variables].map((v) => [folded(v), v]));
  // A flag's name as a variable, only where it has two words (SIGNER_KEY): HEADER or SECRET alone are too common.
  const byFlag = new Map(known.filter(([f, v]) => v && f.includes('-') && f.toUpperCase().replace(/-/g, '_') !== v).map(([f, v]) => [folded(f), v]));
  const out: Array<{ given: string; meant: string }> = [];
  for (const [given, value] of Object.entries(env)) {
    if (value === undefined || variables.has(given) || given.length > MAX_LENGTH) continue;
    const f = folded(given);
    let meant = byFolded.get(f) ?? byFlag.get(f);
    if (meant === undefined && given.length >= 7 && /^[A-Za-z0-9_]+$/.test(given)) {
      // One edit changes the length by one at most: only names that close are worth the distance.
      const upper = given.toUpperCase();
      meant = [...variables].find((v) => v.includes('_') && v.length >= 7 && oneEditApart(upper, v));
    }
    if (meant !== undefined) out.push({ given, meant });
  }
  return out.sort((a, b) => a.given.localeCompare(b.given));
}

/**
 * Other tools' names for what the suite reads, set in many shells: Foundry's ETH_RPC_URL. Not read
 * (a node the user did not name for this run must not be judged by surprise), but said once, with
 * how to use it when no JSON-RPC URL was given.
 */
export function foreignVariables(env: NodeJS.ProcessEnv, rpcGiven: boolean): string[] {
  if (!env.ETH_RPC_URL?.trim()) return [];
  const use = rpcGiven ? '' : ': to judge that node, pass --rpc-url "$ETH_RPC_URL" (or set RPC_URL)';
  return [`note: ETH_RPC_URL (Foundry's name) is set but not read; the suite reads --rpc-url or RPC_URL${use}`];
}
