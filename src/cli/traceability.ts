import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { sectionOfStatement, type Check } from '../harness/check';
import { fromRoot } from '../harness/paths';

/**
 * specs/rules.yaml is the spec restated in the project's own words: its sections, what their
 * tables say, and every statement, testable or not. Checks cite its statements (and table rows)
 * by id in their `statements` field; everything else here (specs/SPEC.md, the traceability
 * matrix of docs/traceability.md, the statement texts quoted in results) is derived.
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

/** What the matrix needs to know of a check: a structural subset of Check. */
export type Citing = Pick<Check, 'id' | 'statements' | 'section' | 'level'>;

export const RULES_FILE = fromRoot('specs', 'rules.yaml');
export const SPEC_MD = fromRoot('specs', 'SPEC.md');
/** SPEC.md as the matrix links to it: relative to docs/, where the matrix is. */
const SPEC_LINK = '../specs/SPEC.md';

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
  const doc = YAML.parse(source) as Record<string, unknown>;
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

export function loadSpec(file = RULES_FILE): Spec {
  return parseSpec(readFileSync(file, 'utf8'));
}

/** A statement a check can judge directly: neither untestable nor delegated to other entries. */
export function isDirect(s: Statement): boolean {
  return !s.untestable && !s.via;
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
export function quoted(checks: Array<Pick<Citing, 'statements'> & { violated?: readonly string[] }>): Record<string, string> {
  texts ??= statementTexts(loadSpec());
  const out: Record<string, string> = {};
  for (const id of checks.flatMap((c) => [...c.statements, ...(c.violated ?? [])])) out[id] = texts.get(id) ?? '';
  return out;
}

/** The entry ids a check cites: the sections of its statements, in order (what its `section` field says, never parsed back). */
export function citations(c: Citing): string[] {
  return [...new Set(c.statements.map(sectionOfStatement))];
}

/** The matrix: entry id → the checks citing it, in check order. Built only from the checks. */
export function citedBy(checks: Citing[]): Map<string, Citing[]> {
  const out = new Map<string, Citing[]>();
  for (const c of checks) {
    for (const id of citations(c)) out.set(id, [...(out.get(id) ?? []), c]);
  }
  return out;
}

/** Statement (or row) id → the checks citing it, in check order. */
export function statementsCitedBy(checks: Citing[]): Map<string, Citing[]> {
  const out = new Map<string, Citing[]>();
  for (const c of checks) for (const id of c.statements) out.set(id, [...(out.get(id) ?? []), c]);
  return out;
}

/** Every way the spec and the checks' citations disagree; empty when they agree. */
export function traceabilityProblems(spec: Spec, checks: Citing[]): string[] {
  const problems: string[] = [];
  const entries = new Map(spec.sections.map((e) => [e.id, e]));
  const statements = new Map(spec.sections.flatMap((e) => e.statements.map((s) => [s.id, s] as const)));
  const texts = statementTexts(spec);
  const cited = citedBy(checks);
  const citedStatements = statementsCitedBy(checks);
  if (entries.size !== spec.sections.length) problems.push('rules.yaml: entry ids are not unique');
  for (const [id, by] of citedStatements) {
    const s = statements.get(id);
    const who = by.map((c) => c.id).join(', ');
    if (!texts.has(id)) problems.push(`${who} cite(s) ${id}, which specs/rules.yaml does not have`);
    else if (s && !isDirect(s))
      problems.push(`${who} cite(s) ${id}, which is not directly testable (${s.untestable ? 'untestable' : `enforced through ${s.via!.join(', ')}`})`);
  }
  for (const e of spec.sections) {
    for (const s of e.statements) {
      if (isDirect(s) && !citedStatements.has(s.id))
        problems.push(`${s.id} is testable but no check cites it (cite it, or mark it untestable with the reason)`);
      for (const v of s.via ?? []) {
        if (!entries.has(v)) problems.push(`${e.id}: via ${v}, which specs/rules.yaml does not have`);
        else if (!cited.has(v)) problems.push(`${e.id}: via ${v}, which no check cites`);
      }
    }
  }
  return problems;
}

/** Where an entry's text is: the anchor SPEC.md sets for it. */
export function anchorOf(id: string): string {
  return `section-${id}`;
}

export function specLink(id: string): string {
  return `${SPEC_LINK}#${anchorOf(id)}`;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const depth = (id: string): number => id.split('.').length;

function statementLine(e: Entry, s: Statement): string {
  const parts: string[] = [`<a id="${anchorOf(s.id)}"></a>**${s.id}**`];
  if (s.rule !== undefined) parts.push(`<a id="${anchorOf(e.id)}-rule-${s.rule}"></a>*Rule ${s.rule}.*`);
  parts.push(s.text.trim());
  if (s.untestable) parts.push(`— *not testable:* ${s.untestable}`);
  if (s.via) parts.push(`— *enforced through* ${s.via.map((v) => `[${v}](#${anchorOf(v)})`).join(', ')}`);
  if (s.note) parts.push(`(${s.note})`);
  return parts.join(' ');
}

/** specs/SPEC.md: the spec in readable form, generated from rules.yaml. */
export function renderSpec(spec: Spec): string {
  const out: string[] = [
    '<!-- Generated from specs/rules.yaml by `npm run docs` (src/cli/docs.ts). Do not edit by hand: edit rules.yaml and regenerate; a test fails when this file is stale. -->',
    '',
    `# ${spec.title}`,
    '',
    `Spec version ${spec.version}, restated in this project's own words. ${spec.summary.trim()}`,
    '',
    'Section numbers and titles follow the source document; numbered items of a section without',
    'subsections (1.4, 5.2, 9.1) are entries of their own. Every statement has an id, its entry and its',
    'number (**4.5.2** is statement 2 of 4.5), and every table row one too, its entry, `r` and its',
    'position (**2.1.r4** is row 4 of the table of 2.1). A check names the ids it enforces in its',
    "`statements` field (`['4.5.2', '1.4.1']`), and a failed check's report quotes them. Every",
    'statement is testable unless marked *not testable* with the reason; *enforced through* names the',
    'sections that restate it in detail.',
    'Which check cites which section: the traceability matrix in [docs/traceability.md](../docs/traceability.md).',
  ];
  for (const e of spec.sections) {
    out.push('', `<a id="${anchorOf(e.id)}"></a>`);
    if (e.title !== undefined) {
      out.push(`${'#'.repeat(depth(e.id) + 1)} ${depth(e.id) === 1 ? `${e.id}.` : e.id} ${e.title}`);
      const rest: string[] = [];
      if (e.text) rest.push(e.text.trim());
      if (e.table) {
        const t = e.table;
        rest.push(
          [
            `| id | ${t.columns.join(' | ')} |`,
            `|---|${t.columns.map(() => '---').join('|')}|`,
            ...t.rows.map((r, i) => `| ${rowId(e.id, i)} | ${r.map(cell).join(' | ')} |`),
          ].join('\n'),
        );
      }
      if (e.statements.length) rest.push(e.statements.map((s) => `- ${statementLine(e, s)}`).join('\n'));
      for (const r of rest) out.push('', r);
    } else {
      // A numbered item: the source gives it a number, not a heading.
      out.push(`**${e.id}**`, '', e.statements.map((s) => `- ${statementLine(e, s)}`).join('\n'));
    }
  }
  return `${out.join('\n')}\n`;
}

/**
 * The traceability matrix as a Markdown table (docs/traceability.md): one row per entry, the
 * checks citing it with the statements of it each enforces (inverted from the checks' own
 * `statements` fields), and its statements no check can judge.
 */
export function renderMatrix(spec: Spec, checks: Citing[]): string {
  const cited = citedBy(checks);
  const rows = ['| section | enforced by | not testable |', '|---|---|---|'];
  for (const e of spec.sections) {
    if (!e.statements.length && !cited.has(e.id)) continue;
    const label = e.title ?? e.statements.map((s) => s.text.trim()).join(' ');
    const by = (cited.get(e.id) ?? []).map((c) => {
      const here = c.statements.filter((s) => sectionOfStatement(s) === e.id);
      return `\`${c.id}\` (${here.join(', ')}${c.level === 'advisory' ? '; advisory' : ''})`;
    });
    const via = [...new Set(e.statements.flatMap((s) => s.via ?? []))];
    if (via.length) by.push(`through ${via.map((v) => `[${v}](${specLink(v)})`).join(', ')}`);
    const untestable = e.statements
      .filter((s) => s.untestable)
      .map((s) =>
        e.title === undefined && e.statements.length === 1
          ? s.untestable!
          : `${s.rule !== undefined ? `rule ${s.rule}: ` : ''}${s.text.trim()} — ${s.untestable!}`,
      );
    rows.push(`| [${e.id}](${specLink(e.id)}) ${cell(label)} | ${by.join(', ')} | ${cell(untestable.join(' <br> '))} |`);
  }
  return rows.join('\n');
}
