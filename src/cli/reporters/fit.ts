// A report that must fit where it is sent (summary.md: a GitHub comment takes at most 65 536
// characters). Its parts are ranked: the parts of rank 0 are always kept, the others by rank
// (lowest first, then in order), each kept whole or left out whole, and what was left out is said
// once, by the caller's note, after the first part.

/** A part of a report, in the order it is printed. */
export interface Part {
  lines: string[];
  /** 0: always kept; otherwise lower ranks are kept before higher ones. */
  rank: number;
  /** What the part is, as the note counts what was left out ("exchanges of root causes"). */
  kind?: string;
  /** The part this one belongs to: never kept without it (a root cause's exchanges without the root cause). */
  of?: Part;
}

/** UTF-8 bytes: never fewer than the characters any counter counts (code points or UTF-16 units). */
const size = (lines: readonly string[]): number => Buffer.byteLength(lines.join('\n')) + 1;

/** The kinds of the parts, most important first, each with how many: "root causes (3), the latency table". */
function counted(parts: readonly Part[]): string {
  const byKind = new Map<string, number>();
  for (const { kind = 'other parts' } of [...parts].sort((a, b) => a.rank - b.rank)) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  return [...byKind].map(([kind, n]) => (n === 1 && kind.startsWith('the ') ? kind : `${kind} (${n})`)).join(', ');
}

/**
 * The parts joined, within `maxBytes` of UTF-8 (so within as many characters however counted):
 * all of them when they fit, else rank by rank, and `note(what was left out)` after the first
 * part. Should the parts of rank 0 alone not fit, the text is cut at a line and `note` says so.
 */
export function fitParts(parts: readonly Part[], maxBytes: number, note: (leftOut: string) => string[]): string {
  const join = (kept: readonly Part[]) => kept.flatMap((p) => p.lines).join('\n');
  if (parts.reduce((n, p) => n + size(p.lines), 0) <= maxBytes) return join(parts);
  const optional = parts.filter((p) => p.rank > 0);
  // Room for the note at its longest: with every optional part left out (counts only grow).
  let used = size(note(counted(optional))) + parts.filter((p) => p.rank === 0).reduce((n, p) => n + size(p.lines), 0);
  const kept = new Set(parts.filter((p) => p.rank === 0));
  for (const p of [...optional].sort((a, b) => a.rank - b.rank || parts.indexOf(a) - parts.indexOf(b))) {
    if ((p.of && !kept.has(p.of)) || used + size(p.lines) > maxBytes) continue;
    kept.add(p);
    used += size(p.lines);
  }
  const leftOut = optional.filter((p) => !kept.has(p));
  const [first, ...rest] = parts.filter((p) => kept.has(p));
  const text = join([first, { lines: note(counted(leftOut)), rank: 0 }, ...rest]);
  if (Buffer.byteLength(text) <= maxBytes) return text;
  // Only the parts that are always kept are left, and they are too long: cut at a line.
  const ending = ['', '', ...note(leftOut.length ? `the rest of this page, ${counted(leftOut)}` : 'the rest of this page')].join('\n');
  const room = Buffer.from(text)
    .subarray(0, Math.max(0, maxBytes - Buffer.byteLength(ending)))
    .toString('utf8');
  return room.slice(0, Math.max(0, room.lastIndexOf('\n'))) + ending;
}
