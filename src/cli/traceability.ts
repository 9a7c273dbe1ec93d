import { sectionOfStatement, type Check } from '../harness/check';
import { fromRoot } from '../harness/paths';
import { rowId, type Entry, type Spec, type Statement } from '../harness/spec-rules';

// specs/rules.yaml is read by src/harness/spec-rules.ts; derived from it here: specs/SPEC.md, the
// traceability matrix of docs/development.md.

/** What the matrix needs to know of a check: a structural subset of Check. */
export type Citing = Pick<Check, 'id' | 'statements' | 'section' | 'level'>;

export const SPEC_MD = fromRoot('specs', 'SPEC.md');
/** SPEC.md as the matrix links to it: relative to docs/, where the matrix is. */
const SPEC_LINK = '../specs/SPEC.md';

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
    'Which check cites which section: the traceability matrix in [docs/development.md](../docs/development.md#traceability-which-check-enforces-which-rule).',
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
 * The traceability matrix as a Markdown table (docs/development.md): one row per entry, the
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
