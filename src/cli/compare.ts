import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckResult } from '../harness/runner';
import { BASE_STYLE, STATUS_COLORS } from './reporters/html';
import { compareSections, escapeHtml as esc, OUTCOME_WORDS, outcomeOf, type Outcome } from './reporters/shared';
import { STATUS_ICON } from './reporters/summary';
import { exitWords, primarySection, scopeWords, type RunDocument } from './results';

/** A comparison that cannot be made (unreadable input, different suite versions): the CLI exits 2. */
export class CompareError extends Error {
  override name = 'CompareError';
}

export interface ComparedRun {
  /** The directory (or file) it was read from. */
  source: string;
  /** The column heading: the target, made unique across columns. */
  label: string;
  doc: RunDocument;
}

export interface ComparedRow {
  id: string;
  section: string;
  title: string;
  level: string;
  /** One verdict per run, in column order; undefined when that run has no such check. */
  verdicts: Array<Outcome | undefined>;
  differs: boolean;
}

export interface Comparison {
  runs: ComparedRun[];
  rows: ComparedRow[];
  differences: number;
}

/** Read `<dir>/results.json` (or the file itself). */
export function loadRun(source: string): RunDocument {
  const file = existsSync(source) && statSync(source).isDirectory() ? path.join(source, 'results.json') : source;
  let doc: RunDocument;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as RunDocument;
  } catch (err) {
    throw new CompareError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (!doc || !Array.isArray(doc.checks) || !doc.suite || !doc.target) throw new CompareError(`${file} is not a results.json of this suite (no suite, target or checks)`);
  if (!doc.status || !Array.isArray(doc.scope?.leftOut)) throw new CompareError(`${file} has no run status or scope facts: it was written by an older suite version; re-run it with this one`);
  return doc;
}

function targetOf(doc: RunDocument): string {
  if (doc.target.embedded) return 'embedded reference';
  const hosts = [doc.target.baseUrl, doc.target.rpcUrl].filter((u): u is string => !!u).map((u) => {
    try {
      const url = new URL(u);
      return `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
    } catch {
      return u;
    }
  });
  return [...new Set(hosts)].join(' + ') || 'no target';
}

/** Column labels: the target, then its profile, then where it was read from, until they differ. */
function labels(sources: string[], docs: RunDocument[]): string[] {
  const candidates = [(d: RunDocument) => targetOf(d), (d: RunDocument) => `${targetOf(d)} (${d.target.profile})`];
  for (const f of candidates) {
    const ls = docs.map(f);
    if (new Set(ls).size === ls.length) return ls;
  }
  return docs.map((d, i) => `${targetOf(d)} (${d.target.profile}, ${path.basename(path.resolve(sources[i]))})`);
}

/** Side by side, one row per check; refuses runs of different suite (or spec) versions. */
export function compareRuns(sources: string[]): Comparison {
  if (sources.length < 2) throw new CompareError('compare needs at least two report directories (each holding a results.json)');
  const docs = sources.map(loadRun);
  const versions = new Set(docs.map((d) => `${d.suite.name} ${d.suite.version} / spec ${d.spec.version}`));
  if (versions.size > 1) {
    throw new CompareError(
      `results from different suite versions cannot be compared: ${docs.map((d, i) => `${sources[i]}: ${d.suite.name} ${d.suite.version} (spec ${d.spec.version})`).join('; ')}. Run every target with the same suite version.`,
    );
  }
  const names = labels(sources, docs);
  const runs = docs.map((doc, i) => ({ source: sources[i], label: names[i], doc }));

  const meta = new Map<string, CheckResult>();
  for (const d of docs) for (const c of d.checks) if (!meta.has(c.id)) meta.set(c.id, c);
  const index = docs.map((d) => new Map(d.checks.map((c) => [c.id, c])));
  const rows: ComparedRow[] = [...meta.values()].map((c) => {
    const verdicts = index.map((m) => {
      const r = m.get(c.id);
      return r ? outcomeOf(r) : undefined;
    });
    return { id: c.id, section: primarySection(c), title: c.title, level: c.level, verdicts, differs: new Set(verdicts).size > 1 };
  });
  // Differences first; within each part, in the spec's order.
  const order = (a: ComparedRow, b: ComparedRow) => Number(b.differs) - Number(a.differs) || compareSections(a.section, b.section);
  rows.sort(order);
  return { runs, rows, differences: rows.filter((r) => r.differs).length };
}

const ICON: Record<Outcome, string> = { 'run-failure': '❌', advisory: '⚠️', expected: '➖', passed: '✅', inconclusive: '❔', blocked: '⛔', skipped: '⏭️', 'out-of-scope': '⏭️' };
const verdictWords = (v: Outcome | undefined) => (v ? `${ICON[v]} ${OUTCOME_WORDS[v]}` : '— (not in this run)');
const counts = (d: RunDocument) => `${d.summary.passed} passed · ${d.summary.failed} failed · ${d.summary.inconclusive} not judged · ${d.summary.skipped} skipped`;

export function renderCompareMd(c: Comparison): string {
  // Redacted URLs hold `***`, which Markdown would read as emphasis.
  const cell = (s: string) => s.replace(/([|*_`])/g, '\\$1').replace(/\r?\n/g, ' ');
  const head = `| | ${c.runs.map((r) => `**${cell(r.label)}**`).join(' | ')} |`;
  const sep = `|---|${c.runs.map(() => '---').join('|')}|`;
  const out = [
    `# Conformance compared: ${c.runs.length} targets, ${c.differences} difference${c.differences === 1 ? '' : 's'}`,
    '',
    `Suite ${c.runs[0].doc.suite.name} ${c.runs[0].doc.suite.version} · spec ${c.runs[0].doc.spec.version}`,
    '',
    head,
    sep,
    `| status | ${c.runs.map((r) => `${STATUS_ICON[r.doc.status]} **${r.doc.status}** (${exitWords(r.doc.exitCode)})`).join(' | ')} |`,
    `| scope | ${c.runs.map((r) => cell(scopeWords(r.doc.scope))).join(' | ')} |`,
    `| checks | ${c.runs.map((r) => counts(r.doc)).join(' | ')} |`,
    `| run | ${c.runs.map((r) => `${r.doc.startedAt} · ${(r.doc.durationMs / 1000).toFixed(1)} s · \`${cell(r.source)}\``).join(' | ')} |`,
    '',
  ];
  const table = (rows: ComparedRow[]) => [`| check | section | ${c.runs.map((r) => cell(r.label)).join(' | ')} |`, `|---|---|${c.runs.map(() => '---').join('|')}|`, ...rows.map((r) => `| \`${r.id}\` | ${r.section} | ${r.verdicts.map(verdictWords).join(' | ')} |`)];
  const diff = c.rows.filter((r) => r.differs);
  const same = c.rows.filter((r) => !r.differs);
  out.push(`## Differences (${diff.length})`, '');
  out.push(...(diff.length ? table(diff) : ['Every check has the same verdict on every target.']), '');
  out.push(`## Same verdict everywhere (${same.length})`, '', ...table(same), '');
  return out.join('\n');
}

export function renderCompareHtml(c: Comparison): string {
  const style = `${BASE_STYLE}
.cols th{min-width:150px}.cols th:nth-child(2){min-width:0;width:70px}.head td{vertical-align:top}.pill{font-size:.85rem}
tr.diff td{background:#fff8c5}td.v{white-space:nowrap}td.v-run-failure{color:#cf222e;font-weight:600}td.v-passed{color:#1a7f37}td.v-inconclusive,td.v-blocked{color:#8250df}td.v-skipped,td.v-out-of-scope,td.v-none{color:#57606a}td.v-advisory,td.v-expected{color:#9a6700}
details>summary{cursor:pointer;font-weight:600;margin:18px 0 8px}`;
  const th = c.runs.map((r) => `<th>${esc(r.label)}</th>`).join('');
  const headRows = [
    `<tr><td class="muted">status</td>${c.runs.map((r) => `<td><span class="pill" style="background:${STATUS_COLORS[r.doc.status]}">${esc(r.doc.status)}</span><div class="small muted">${esc(exitWords(r.doc.exitCode))}</div></td>`).join('')}</tr>`,
    `<tr><td class="muted">scope</td>${c.runs.map((r) => `<td class="small">${esc(scopeWords(r.doc.scope))}</td>`).join('')}</tr>`,
    `<tr><td class="muted">checks</td>${c.runs.map((r) => `<td class="small">${esc(counts(r.doc))}</td>`).join('')}</tr>`,
    `<tr><td class="muted">run</td>${c.runs.map((r) => `<td class="small muted">${esc(r.doc.startedAt)} · ${(r.doc.durationMs / 1000).toFixed(1)} s<br><code>${esc(r.source)}</code></td>`).join('')}</tr>`,
  ].join('\n');
  const row = (r: ComparedRow) =>
    `<tr class="${r.differs ? 'diff' : ''}"><td><code>${esc(r.id)}</code><div class="small muted">${esc(r.title)}</div></td><td>${esc(r.section)}</td>${r.verdicts.map((v) => `<td class="v v-${v ?? 'none'}">${esc(v ? OUTCOME_WORDS[v] : '—')}</td>`).join('')}</tr>`;
  const diff = c.rows.filter((r) => r.differs);
  const same = c.rows.filter((r) => !r.differs);
  const table = (rows: ComparedRow[]) => `<table class="cols"><thead><tr><th>check</th><th>section</th>${th}</tr></thead><tbody>${rows.map(row).join('\n')}</tbody></table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Conformance compared: ${c.runs.length} targets, ${c.differences} differences</title><style>${style}</style></head><body><main>
<h1>Conformance compared: ${c.runs.length} targets, ${c.differences} difference${c.differences === 1 ? '' : 's'}</h1>
<div class="muted">${esc(c.runs[0].doc.suite.name)} ${esc(c.runs[0].doc.suite.version)} · spec ${esc(c.runs[0].doc.spec.version)}</div>
<table class="cols head" style="margin-top:14px"><thead><tr><th></th>${th}</tr></thead><tbody>${headRows}</tbody></table>
<h2>Differences (${diff.length})</h2>
${diff.length ? table(diff) : '<p>Every check has the same verdict on every target.</p>'}
<details><summary>Same verdict everywhere (${same.length})</summary>${table(same)}</details>
</main></body></html>
`;
}

/** Write compare.md and compare.html into `outDir`; returns their paths. */
export function writeComparison(c: Comparison, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const files: Array<[string, string]> = [
    ['compare.md', renderCompareMd(c)],
    ['compare.html', renderCompareHtml(c)],
  ];
  return files.map(([name, body]) => {
    const file = path.join(outDir, name);
    writeFileSync(file, body);
    return file;
  });
}
