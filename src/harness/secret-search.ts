/**
 * Literal search for many forms at once, in one pass over the text: each position's last
 * ANCHOR characters are hashed and looked up in the anchors of the registered forms (their first
 * ANCHOR characters), and a form is compared only where its anchor stands. No regular expression
 * is built from a form, nothing is decoded, and the cost is one read of the text plus the
 * comparisons, which are bounded: past a budget proportional to the text, the search gives up and
 * the caller masks the whole text (a target repeating the start of a long credential it holds).
 */
import { MIN_FORM_LENGTH } from './secret-forms';

const ANCHOR = MIN_FORM_LENGTH;
const FILTER_BITS = 22;
const FILTER_MASK = (1 << FILTER_BITS) - 1;
/** Characters compared per character searched, plus a constant, before the search gives up. */
const BUDGET_PER_CHAR = 8;
const BUDGET_BASE = 1 << 24;

export type Span = [start: number, end: number];

/**
 * A form longer than this is also searched for by its first EDGE characters alone, and a match
 * of them extended as far as the text goes on to agree with the form: so much of a credential is
 * a leak wherever it stands (cut or not), and a cut edge (cutEdges) then needs looking for only
 * among the first EDGE characters of each form.
 */
const EDGE = 256;

/** A position's anchor hash from its ANCHOR characters (any UTF-16 code units), kept within a small integer (a fast Map key). */
const hashOf = (a: number, b: number, c: number, d: number) => (Math.imul(Math.imul(Math.imul(a, 65599) + b, 65599) + c, 65599) + d) & 0x3fffffff;

export class LiteralSearch {
  /** Anchor hash -> the forms starting with it, longest first. */
  private readonly byAnchor = new Map<number, string[]>();
  /** The first EDGE characters of a longer form -> the forms they start. */
  private readonly longer = new Map<string, string[]>();
  private readonly filter = new Uint8Array((FILTER_MASK + 1) / 8);
  private readonly forms = new Set<string>();
  /** The first EDGE characters of every form. */
  private readonly starts = new Set<string>();

  /** Whether a form holds `*`: only then can masking (`***`) make a new occurrence, every other one being inside a span found. */
  starred = false;

  get size(): number {
    return this.forms.size;
  }

  add(form: string): void {
    if (form.length < ANCHOR || this.forms.has(form)) return;
    this.forms.add(form);
    this.starred ||= form.includes('*');
    if (form.length > EDGE) {
      const start = form.slice(0, EDGE);
      this.longer.set(start, [...(this.longer.get(start) ?? []), form]);
      return this.add(start);
    }
    this.starts.add(form);
    const h = hashOf(form.charCodeAt(0), form.charCodeAt(1), form.charCodeAt(2), form.charCodeAt(3));
    const list = this.byAnchor.get(h) ?? [];
    list.push(form);
    list.sort((x, y) => y.length - x.length);
    this.byAnchor.set(h, list);
    this.filter[(h & FILTER_MASK) >> 3] |= 1 << (h & 7);
  }

  /**
   * The spans of `text` that hold a form, in the order of their starts; or undefined when the
   * comparisons ran past their budget (mask the whole text).
   */
  spans(text: string): Span[] | undefined {
    const found: Span[] = [];
    if (this.forms.size === 0) return found;
    let budget = BUDGET_BASE + BUDGET_PER_CHAR * text.length;
    let a = 0;
    let b = 0;
    let c = 0;
    for (let i = 0; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (i >= ANCHOR - 1) {
        const h = hashOf(a, b, c, d);
        if (this.filter[(h & FILTER_MASK) >> 3] & (1 << (h & 7))) {
          const start = i - ANCHOR + 1;
          for (const form of this.byAnchor.get(h) ?? []) {
            // Its last character first: most near-misses end there, at the cost of one read.
            if (text.charCodeAt(start + form.length - 1) !== form.charCodeAt(form.length - 1)) continue;
            budget -= form.length;
            if (text.startsWith(form, start)) {
              let end = start + form.length;
              // The start of a long form: as far as the text agrees with any form it starts.
              for (const whole of this.longer.get(form) ?? []) {
                let k = form.length;
                while (k < whole.length && text.charCodeAt(start + k) === whole.charCodeAt(k)) k++;
                budget -= k;
                end = Math.max(end, start + k);
              }
              found.push([start, end]);
              break;
            }
          }
          if (budget < 0) return undefined;
        }
      }
      a = b;
      b = c;
      c = d;
    }
    return found;
  }

  /**
   * Spans ending at each `mark` (a cut the suite made) that hold the start of a form, ANCHOR to
   * EDGE characters of it: the part of a credential left before the cut (a longer start is
   * found by spans). Found with its last ANCHOR characters, compared where they stand in each
   * form's start.
   */
  cutEdges(text: string, mark: string): Span[] | undefined {
    const found: Span[] = [];
    let budget = BUDGET_BASE + BUDGET_PER_CHAR * text.length;
    for (let p = text.indexOf(mark); p >= 0; p = text.indexOf(mark, p + 1)) {
      if (p < ANCHOR) continue;
      const tail = text.slice(p - ANCHOR, p);
      let longest = 0;
      for (const start of this.starts) {
        budget -= start.length;
        for (let j = start.indexOf(tail); j >= 0 && j + ANCHOR <= p; j = start.indexOf(tail, j + 1)) {
          budget -= j + ANCHOR;
          if (j + ANCHOR > longest && text.startsWith(start.slice(0, j + ANCHOR), p - j - ANCHOR)) longest = j + ANCHOR;
        }
      }
      if (budget < 0) return undefined;
      if (longest) found.push([p - longest, p]);
    }
    return found;
  }
}

/** Spans sorted (unless they are already) and merged where they overlap or touch. */
export function merge(spans: Span[], inOrder = false): Span[] {
  const sorted = inOrder ? spans : [...spans].sort((x, y) => x[0] - y[0]);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else out.push([s[0], s[1]]);
  }
  return out;
}

/** `text` with each span replaced by `mask`. */
export function replaceSpans(text: string, spans: readonly Span[], mask: string): string {
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of spans) {
    parts.push(text.slice(at, start), mask);
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
