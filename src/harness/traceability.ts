import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Check } from './check';
import { fromRoot, ROOT } from './paths';

/** specs/rules.yaml: every rule of the spec, with its checks or why it cannot be tested. */
export interface Rule {
  id: string;
  rule: string;
  checks?: string[];
  untestable?: string;
  note?: string;
}

export const RULES_FILE = fromRoot('specs', 'rules.yaml');
/** The spec itself lives beside the repository (shared/), as in CI. */
export const SPEC_FILE = path.resolve(ROOT, '../shared/spec/tokenized-stocks-api-and-rpc.md');

export function loadRules(file = RULES_FILE): Rule[] {
  return (YAML.parse(readFileSync(file, 'utf8')) as { rules: Rule[] }).rules;
}

/** `*` matches any run of characters (across segments); everything else is literal. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

export function checksOf(rule: Rule, checks: Check[]): Check[] {
  const globs = (rule.checks ?? []).map(globToRegExp);
  return checks.filter((c) => globs.some((g) => g.test(c.id)));
}

/**
 * The spec's structure: section numbers from its headings, and the ids of its numbered rules —
 * "2.1 rule 1" for a list under "Rules:", "5.1" for a top-level section's own numbered list.
 */
export function specOutline(markdown: string): { sections: Set<string>; rules: string[] } {
  const sections = new Set<string>();
  const rules: string[] = [];
  let section = '';
  let underRules = false;
  for (const line of markdown.split('\n')) {
    const h = /^#{2,3} (\d+(?:\.\d+)*)\.? /.exec(line);
    if (h) {
      section = h[1];
      sections.add(section);
      underRules = false;
      continue;
    }
    if (/^Rules:\s*$/.test(line)) underRules = true;
    const item = /^(\d+)\. /.exec(line);
    if (item && section) {
      const id = underRules ? `${section} rule ${item[1]}` : `${section}.${item[1]}`;
      rules.push(id);
      if (!underRules) sections.add(id);
    }
  }
  return { sections, rules };
}

/** The traceability matrix as a Markdown table (README). */
export function renderMatrix(rules: Rule[], checks: Check[]): string {
  const rows = ['| section | rule | enforced by |', '|---|---|---|'];
  for (const r of rules) {
    const by = r.untestable ? `not testable: ${r.untestable}` : checksOf(r, checks).map((c) => `\`${c.id}\`${c.level === 'advisory' ? ' (advisory)' : ''}`).join(', ');
    rows.push(`| ${r.id} | ${r.rule.replace(/\|/g, '\\|')} | ${by}${r.note ? ` — ${r.note}` : ''} |`);
  }
  return rows.join('\n');
}
