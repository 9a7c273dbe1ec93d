/**
 * Literal search for many forms at once, in one pass over the text: an Aho–Corasick automaton of
 * the forms' first EDGE characters, made a full transition table (one lookup per character of
 * the text, whatever the text is), built when the forms are first searched for. No regular
 * expression is built from a form and nothing is decoded. A longer form's start, once found, is
 * followed as far as the text goes on to agree with the form; those comparisons are bounded:
 * past a budget proportional to the text, the search gives up and the caller masks the whole
 * text (a target repeating the start of a periodic credential it holds).
 */
import { MIN_FORM_LENGTH } from './secret-forms';

/**
 * A form longer than this is found by its first EDGE characters, then followed: so much of a
 * credential is a leak wherever it stands (cut or not), and the automaton stays small.
 */
const EDGE = 256;
/** Characters compared per character searched, plus a constant, before the search gives up. */
const BUDGET_PER_CHAR = 8;
const BUDGET_BASE = 1 << 24;

/** Spans as a flat list: start, end, start, end, … (sorted; none overlaps or touches another). */
export type Spans = number[];

interface Automaton {
  /** A character's column in the table: 0 for one in no form. */
  column: Uint16Array;
  columns: number;
  /** Row (state * columns) + column -> the next state's row, negative for a state where a form ends. */
  next: Int32Array;
  /** Per state: how many characters of a form (or of a form's start) it has read. */
  depth: Int32Array;
  /** Per state: the length of the longest form (or form's start) ending there, 0 for none. */
  found: Int32Array;
  /** Per state that ends a longer form's start: the forms to follow. */
  longer: (string[] | undefined)[];
}

function build(forms: Iterable<string>): Automaton {
  const column = new Uint16Array(0x10000);
  let columns = 1;
  const children: Map<number, number>[] = [new Map()];
  const depths = [0];
  const ends = [0];
  const longer: (string[] | undefined)[] = [];
  for (const form of forms) {
    let state = 0;
    for (let k = 0; k < Math.min(form.length, EDGE); k++) {
      const c = (column[form.charCodeAt(k)] ||= columns++);
      let to = children[state].get(c);
      if (to === undefined) {
        children[state].set(c, (to = children.length));
        children.push(new Map());
        depths.push(k + 1);
        ends.push(0);
      }
      state = to;
    }
    ends[state] = depths[state];
    if (form.length > EDGE) (longer[state] ??= []).push(form);
  }
  const next = new Int32Array(children.length * columns);
  const fail = new Int32Array(children.length);
  const found = Int32Array.from(ends);
  // Breadth first: a state's fallback (the longest proper suffix that is some form's start) is shallower, so done before it.
  const queue = [0];
  for (let q = 0; q < queue.length; q++) {
    const state = queue[q];
    if (state !== 0) found[state] ||= found[fail[state]];
    for (let c = 0; c < columns; c++) {
      const to = children[state].get(c);
      if (to === undefined) next[state * columns + c] = state === 0 ? 0 : next[fail[state] * columns + c];
      else {
        next[state * columns + c] = to;
        fail[to] = state === 0 ? 0 : next[fail[state] * columns + c];
        queue.push(to);
      }
    }
  }
  // States made rows, once all are known: the search reads one table entry a character, and nothing else where no form ends.
  for (let j = 0; j < next.length; j++) next[j] = found[next[j]] ? -next[j] * columns : next[j] * columns;
  return { column, columns, next, depth: Int32Array.from(depths), found, longer };
}

export class LiteralSearch {
  private readonly forms = new Set<string>();
  private automaton: Automaton | undefined;

  /** Whether a form holds `*`: only then can masking (`***`) make a new occurrence, every other one being inside a span found. */
  starred = false;

  get size(): number {
    return this.forms.size;
  }

  add(form: string): void {
    if (form.length < MIN_FORM_LENGTH || this.forms.has(form)) return;
    this.forms.add(form);
    this.starred ||= form.includes('*');
    this.automaton = undefined;
  }

  /**
   * The spans of `text` (sorted, merged) that hold a form, and before each `mark` (a cut the suite made) the start
   * of one, MIN_FORM_LENGTH characters or more of it; or undefined when following long forms ran
   * past its budget (mask the whole text).
   */
  spans(text: string, mark?: string): Spans | undefined {
    const out: Spans = [];
    if (this.forms.size === 0) return out;
    const { column, columns, next, depth, found, longer } = (this.automaton ??= build(this.forms));
    let budget = BUDGET_BASE + BUDGET_PER_CHAR * text.length;
    let cut = mark ? text.indexOf(mark) : -1;
    let row = 0;
    for (let i = 0; i < text.length; i++) {
      if (i === cut) {
        const d = depth[row / columns];
        if (d >= MIN_FORM_LENGTH) add(out, i - d, i);
        cut = text.indexOf(mark!, i + 1);
      }
      row = next[row + column[text.charCodeAt(i)]];
      if (row >= 0) continue;
      row = -row;
      const state = row / columns;
      const start = i + 1 - found[state];
      let end = i + 1;
      const wholes = longer[state];
      for (let w = 0; wholes !== undefined && w < wholes.length; w++) {
        const k = agreement(text, start, wholes[w]);
        budget -= k - EDGE;
        end = Math.max(end, start + k);
      }
      if (budget < 0) return undefined;
      add(out, start, end);
    }
    return out;
  }
}

/** How many characters of `whole` the text holds from `at` (its first EDGE known to be there): a few compared one by one, then natively a block at a time. */
function agreement(text: string, at: number, whole: string): number {
  let k = EDGE;
  while (k < whole.length && k < 2 * EDGE && text.charCodeAt(at + k) === whole.charCodeAt(k)) k++;
  while (k < whole.length && text.startsWith(whole.slice(k, k + EDGE), at + k)) k += EDGE;
  while (k < whole.length && text.charCodeAt(at + k) === whole.charCodeAt(k)) k++;
  return Math.min(k, whole.length);
}

/** Adds a span to `spans`, merging it with those it meets. */
function add(spans: Spans, start: number, end: number): void {
  while (spans.length > 0 && spans[spans.length - 2] >= start) {
    end = Math.max(end, spans.pop()!);
    spans.pop();
  }
  if (spans.length > 0 && spans[spans.length - 1] >= start) spans[spans.length - 1] = Math.max(spans[spans.length - 1], end);
  else spans.push(start, end);
}

/** `text` with each span replaced by `mask`. */
export function replaceSpans(text: string, spans: Spans, mask: string): string {
  let out = '';
  let at = 0;
  for (let j = 0; j < spans.length; j += 2) {
    out += text.slice(at, spans[j]) + mask;
    at = spans[j + 1];
  }
  return at === 0 ? text : out + text.slice(at);
}
