/**
 * Literal search for many forms in one pass: an Aho–Corasick automaton of the forms' first EDGE
 * characters as a full table, one lookup a character whatever the text; no regular expression
 * from a form, nothing decoded. A longer form's start is followed as far as the text agrees,
 * within a budget: past it the caller masks the whole text (a periodic credential repeated).
 */
import { MIN_FORM_LENGTH } from './secret-forms';

/** A longer form is found by its first EDGE characters, then followed: so much of a credential is a leak wherever it stands. */
const EDGE = 256;

/** Spans as a flat list, start, end, start, end, …: sorted, none meeting another. */
export type Spans = number[];
const NONE: readonly string[] = [];

export class LiteralSearch {
  private readonly forms = new Set<string>();
  /** A character's column in the table (0: in no form); row (state × columns) + column → the next row, negative where a form ends. */
  private column = new Uint16Array(0);
  private columns = 0;
  private next: Int32Array | undefined;
  /** Per state: the characters of a form's start read; the longest form ending there (0: none); the longer forms to follow. */
  private depth: number[] = [];
  private found: number[] = [];
  private longer: (string[] | undefined)[] = [];
  /** Whether a form holds `*`: only then can masking (`***`) make a new occurrence. */
  starred = false;

  get size(): number {
    return this.forms.size;
  }

  add(form: string): void {
    if (form.length < MIN_FORM_LENGTH || this.forms.has(form)) return;
    this.forms.add(form);
    this.starred ||= form.includes('*');
    this.next = undefined;
  }

  private build(): Int32Array {
    this.column = new Uint16Array(0x10000);
    let columns = 1;
    const children: Map<number, number>[] = [new Map()];
    [this.depth, this.found, this.longer] = [[0], [0], []];
    for (const form of this.forms) {
      let state = 0;
      for (let k = 0; k < Math.min(form.length, EDGE); k++) {
        const c = (this.column[form.charCodeAt(k)] ||= columns++);
        let to = children[state].get(c);
        if (to === undefined) {
          children[state].set(c, (to = children.push(new Map()) - 1));
          this.depth.push(k + 1);
          this.found.push(0);
        }
        state = to;
      }
      this.found[state] = this.depth[state];
      if (form.length > EDGE) (this.longer[state] ??= []).push(form);
    }
    const next = new Int32Array(children.length * columns);
    const fail = new Int32Array(children.length);
    // Breadth first: a state's fallback (its longest proper suffix that starts a form) is shallower, so done before it.
    for (let q = 0, queue = [0]; q < queue.length; q++) {
      const state = queue[q];
      if (state !== 0) this.found[state] ||= this.found[fail[state]];
      for (let c = 0; c < columns; c++) {
        const to = children[state].get(c);
        const fallback = state === 0 ? 0 : next[fail[state] * columns + c];
        next[state * columns + c] = to ?? fallback;
        if (to !== undefined) {
          fail[to] = fallback;
          queue.push(to);
        }
      }
    }
    for (let j = 0; j < next.length; j++) next[j] = (this.found[next[j]] ? -columns : columns) * next[j];
    this.columns = columns;
    return next;
  }

  /**
   * The spans of `text` that hold a form, and before each `mark` (a cut the suite made) the start
   * of one, MIN_FORM_LENGTH characters or more; undefined past the budget (mask the whole text).
   */
  spans(text: string, mark?: string): Spans | undefined {
    const out: Spans = [];
    if (this.forms.size === 0) return out;
    const next = (this.next ??= this.build());
    const { column, columns, depth, found, longer } = this;
    // Characters compared in following long forms: 8 per character of the text, and a constant.
    let budget = (1 << 24) + 8 * text.length;
    let cut = mark ? text.indexOf(mark) : -1;
    for (let i = 0, row = 0; i < text.length; i++) {
      if (i === cut) {
        if (depth[row / columns] >= MIN_FORM_LENGTH) add(out, i - depth[row / columns], i);
        cut = text.indexOf(mark!, i + 1);
      }
      row = next[row + column[text.charCodeAt(i)]];
      if (row >= 0) continue;
      row = -row;
      const start = i + 1 - found[row / columns];
      let end = i + 1;
      for (const whole of longer[row / columns] ?? NONE) {
        const k = agreement(text, start, whole);
        budget -= k - EDGE;
        end = Math.max(end, start + k);
      }
      if (budget < 0) return undefined;
      add(out, start, end);
    }
    return out;
  }
}

/** How many characters of `whole` the text holds from `at` (its first EDGE known to): a few one by one, then a block at a time. */
function agreement(text: string, at: number, whole: string): number {
  let k = EDGE;
  while (k < whole.length && k < 2 * EDGE && text.charCodeAt(at + k) === whole.charCodeAt(k)) k++;
  while (k < whole.length && text.startsWith(whole.slice(k, k + EDGE), at + k)) k += EDGE;
  while (k < whole.length && text.charCodeAt(at + k) === whole.charCodeAt(k)) k++;
  return Math.min(k, whole.length);
}

/** Adds a span to `spans`, merged with those it meets. */
function add(spans: Spans, start: number, end: number): void {
  while (spans.length > 0 && spans[spans.length - 2] >= start) end = Math.max(end, spans.splice(-2)[1]);
  if (spans.length > 0 && spans[spans.length - 1] >= start) spans[spans.length - 1] = Math.max(spans[spans.length - 1], end);
  else spans.push(start, end);
}

/** `text` with each span replaced by `mask`. */
export function replaceSpans(text: string, spans: Spans, mask: string): string {
  let out = '';
  for (let j = 0; j < spans.length; j += 2) out += text.slice(j === 0 ? 0 : spans[j - 1], spans[j]) + mask;
  return spans.length === 0 ? text : out + text.slice(spans[spans.length - 1]);
}
