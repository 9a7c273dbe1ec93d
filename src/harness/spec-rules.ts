import { readFileSync } from 'node:fs';
import { fromRoot } from './paths';
import { parseShippedYaml } from './yaml-text';

/**
 * specs/rules.yaml is the spec restated in the project's own words: its sections, what their
 * tables say, and every statement, testable or not. Checks cite its statements (and table rows)
 * by id in their `statements` field; the rest is derived: the statement texts quoted in results
 * (here, so the verdict can read them), specs/SPEC.md and the traceability matrix of
 * docs/development.md (src/cli/traceability.ts).
 */
export interface Statement {
  /** `<entry id>.<n>`: "4.5.2" is statement 2 of 4.5. Written in rules.yaml, never renumbered. */
  id: string;
  text: string;
  /** The statement's number in the source's "Rules:" list of its section. */
  rule?: number;
  /** Why no check can judge it. */
  untestable?: string;
  /** Entries that restate it in detail: the checks citing those enforce it. */
  via?: string[];
  note?: string;
}

export interface Table {
  columns: string[];
  rows: string[][];
}

export interface Entry {
  /** "4.5" for a heading, "5.2" for a numbered item of a section without subsections. */
  id: string;
  /** Only where the source has a heading. */
  title?: string;
  text?: string;
  table?: Table;
  statements: Statement[];
}

export interface Spec {
  title: string;
  version: string;
  summary: string;
  sections: Entry[];
}

export const RULES_FILE = fromRoot('specs', 'rules.yaml');

const ID = /^\d+(\.\d+)*$/;

function keysOnly(what: string, node: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(node).filter((k) => !allowed.includes(k));
  if (extra.length) throw new Error(`${what}: unknown key(s) ${extra.join(', ')} (allowed: ${allowed.join(', ')})`);
}

function isStringArray(x: unknown): x is string[] {
  return Array.isArray(x) && x.every((s) => typeof s === 'string');
}

/**
 * Parse and check the shape of rules.yaml. Unknown keys are errors, so a field that belongs
 * elsewhere (a list of checks, say) cannot creep back in unnoticed.
 */
export function parseSpec(source: string): Spec {
  // The build's parse when it has one (yaml-text.ts): the configuration's modules import this one,
  // and the run starts the embedded reference only once they are loaded (src/cli/run.ts).
  const doc = parseShippedYaml(source) as Record<string, unknown>;
  keysOnly('rules.yaml', doc, ['title', 'version', 'summary', 'sections']);
  for (const k of ['title', 'version', 'summary'] as const) if (typeof doc[k] !== 'string') throw new Error(`rules.yaml: ${k} must be a string`);
  if (!Array.isArray(doc.sections)) throw new Error('rules.yaml: sections must be a list');
  const sections = (doc.sections as Array<Record<string, unknown>>).map((e): Entry => {
    const where = `rules.yaml entry ${String(e.id)}`;
    keysOnly(where, e, ['id', 'title', 'text', 'table', 'statements']);
    if (typeof e.id !== 'string' || !ID.test(e.id)) throw new Error(`${where}: id must be a quoted section number like "4.5"`);
    for (const k of ['title', 'text'] as const) if (e[k] !== undefined && typeof e[k] !== 'string') throw new Error(`${where}: ${k} must be a string`);
    if (e.table !== undefined) {
      const t = e.table as Record<string, unknown>;
      keysOnly(`${where} table`, t, ['columns', 'rows']);
      if (!isStringArray(t.columns) || !Array.isArray(t.rows)) throw new Error(`${where}: a table has columns and rows`);
      for (const row of t.rows) {
        if (!isStringArray(row) || row.length !== t.columns.length)
          throw new Error(`${where}: every row has ${t.columns.length} string cells: ${JSON.stringify(row)}`);
      }
    }
    const statements = (e.statements ?? []) as Array<Record<string, unknown>>;
    if (!Array.isArray(statements)) throw new Error(`${where}: statements must be a list`);
    for (const s of statements) {
      keysOnly(`${where} statement`, s, ['id', 'text', 'rule', 'untestable', 'via', 'note']);
      if (typeof s.id !== 'string' || !new RegExp(`^${e.id.replace(/\./g, '\\.')}\\.[1-9]\\d*$`).test(s.id)) {
        throw new Error(`${where}: every statement has an id, the entry's id and its number: "${e.id}.1"`);
      }
      if (typeof s.text !== 'string' || !s.text) throw new Error(`${where}: every statement has text`);
      if (s.rule !== undefined && !Number.isInteger(s.rule)) throw new Error(`${where}: rule is the number in the source's "Rules:" list`);
      if (s.untestable !== undefined && (typeof s.untestable !== 'string' || !s.untestable)) throw new Error(`${where}: untestable gives the reason`);
      if (s.via !== undefined && (!isStringArray(s.via) || !s.via.length)) throw new Error(`${where}: via lists entry ids`);
      if (s.untestable && s.via) throw new Error(`${where}: a statement is untestable or enforced via other entries, not both`);
    }
    return { ...(e as Omit<Entry, 'statements'>), statements: statements as unknown as Statement[] };
  });
  const entryIds = new Set(sections.map((e) => e.id));
  const seen = new Set<string>();
  for (const s of sections.flatMap((e) => e.statements)) {
    if (seen.has(s.id) || entryIds.has(s.id)) throw new Error(`rules.yaml: statement id ${s.id} is used twice (or is an entry's id)`);
    seen.add(s.id);
  }
  return { title: doc.title as string, version: doc.version as string, summary: doc.summary as string, sections };
}

let rules: Spec | undefined;

/** The spec of `file`; specs/rules.yaml is parsed once per process (a run quotes it twice, at its end). */
export function loadSpec(file = RULES_FILE): Spec {
  if (file !== RULES_FILE) return parseSpec(readFileSync(file, 'utf8'));
  return (rules ??= parseSpec(readFileSync(file, 'utf8')));
}

/** A table row's id: "2.1.r4" is row 4 of the table of 2.1 (rows follow the source, so positions are stable). */
export function rowId(entry: string, index: number): string {
  return `${entry}.r${index + 1}`;
}

/** A row in words, for quoting: "field: decimals; type: integer; …". */
function rowText(t: Table, row: string[]): string {
  return row.map((v, i) => `${t.columns[i]}: ${v || '—'}`).join('; ');
}

/** Every id a check may cite — statements and table rows — with its text. */
export function statementTexts(spec: Spec): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of spec.sections) {
    for (const s of e.statements) out.set(s.id, s.text.trim());
    e.table?.rows.forEach((r, i) => out.set(rowId(e.id, i), rowText(e.table!, r)));
  }
  return out;
}

let texts: Map<string, string> | undefined;

/**
 * The text of every statement the checks cite or their failures name, from specs/rules.yaml:
 * results.json carries it, reports quote it under a failure.
 */
export function quoted(checks: Array<{ statements: readonly string[]; violated?: readonly string[] }>): Record<string, string> {
  texts ??= statementTexts(loadSpec());
  const out: Record<string, string> = {};
  for (const id of checks.flatMap((c) => [...c.statements, ...(c.violated ?? [])])) out[id] = texts.get(id) ?? '';
  return out;
}
