import { existsSync, statSync } from 'node:fs';
import { levelWord, readerDocument, type ReaderCheck, type ReaderDocument } from '../verdict/reader';
import path from 'node:path';
import { Egress } from './egress';
import { BASE_STYLE, pageHead, statusClass } from './reporters/html';
import { compareSections, JUDGED_OUTCOMES, OUTCOMES, sectionOf, type Outcome } from '../verdict/outcome';
import { answersWords, countLine, OUTCOME_WORDS } from './reporters/outcome-words';
import { escapeHtml as esc, mdCode, mdText } from './inert-text';
import { STATUS_ICON } from './reporters/summary';
import { isRecord } from '../harness/json';
import { validateRef } from '../harness/schemas';
import { readRegularFile, UnreadableFile } from '../harness/regular-file';
import { boundedJson, MAX_RESULTS_BYTES, MAX_RESULTS_DEPTH, Refused } from './certificate/open';
import { exitWords } from '../verdict/status';
import { RESULTS_SCHEMA_VERSION, type RunDocument } from '../verdict/document';
import { scopeWords } from '../verdict/scope';

/** A comparison that cannot be made (unreadable input, different suite versions): the CLI exits 2. */
export class CompareError extends Error {
  override name = 'CompareError';
}

export interface ComparedRun {
  /** The directory (or file) it was read from. */
  source: string;
  /** The column heading: the target, made unique across columns. */
  label: string;
  doc: ReaderDocument;
}

export interface ComparedRow {
  id: string;
  section: string;
  title: string;
  level: string;
  /** One verdict per run, in column order; undefined when that run has no such check. */
  verdicts: Array<Outcome | undefined>;
  /** Per run: skipped because that run's scope left it out (a flag not given, the profile), as its result's outOfScope says. */
  outOfScope: boolean[];
  /** --samples: "k/N answers failed" per run, in column order ('' when that run did not sample the check). */
  answers: string[];
  /**
   * Different verdicts: judged (passed or failed) in two or more runs with different verdicts there,
   * or failed in one run and not judged in another where it was in scope (a failure seen in one run
   * is never hidden by another run that could not judge it).
   */
  differs: boolean;
  /** The verdicts differ only in scope: judged in at most one run, and failed in none where another run could not judge it (out of scope, skipped or passed elsewhere), or the same wherever judged. */
  scopeOnly: boolean;
}

export interface Comparison {
  runs: ComparedRun[];
  rows: ComparedRow[];
  /**
   * The runs' stored statuses (each run's own verdict: conformant, non-conformant, incomplete) are
   * not all the same: one difference of verdict, whatever the checks say (a run --require full or
   * its deadline left incomplete, beside one that is conformant, with every check the same).
   */
  statusDiffers: boolean;
  /** Rows that differ in verdict (`differs`). */
  differences: number;
  /** Rows that differ only in scope (`scopeOnly`). */
  scopeDifferences: number;
}

/**
 * How a row's verdicts differ across runs (see ComparedRow). `outOfScope[i]`: run i's scope left the
 * check out (a flag not given, the profile), so its skip is a difference of scope, not of verdict.
 */
export function differenceOf(verdicts: Array<Outcome | undefined>, outOfScope: readonly boolean[] = []): Pick<ComparedRow, 'differs' | 'scopeOnly'> {
  const judged = verdicts.filter((v): v is Outcome => v !== undefined && JUDGED_OUTCOMES.has(v));
  const unjudgedInScope = verdicts.some((v, i) => v !== undefined && !JUDGED_OUTCOMES.has(v) && !(v === 'skipped' && outOfScope[i]));
  const differs = (judged.length >= 2 && new Set(judged).size > 1) || (judged.includes('failed') && unjudgedInScope);
  return { differs, scopeOnly: !differs && new Set(verdicts).size > 1 };
}

/**
 * Read `<dir>/results.json` (or the file itself). A results.json is anyone's file (downloaded
 * from another team's CI, edited by hand): one that breaks its schema is refused, and what a
 * valid one holds is still rendered as data, never as markup.
 */
export function loadRun(source: string): ReaderDocument {
  const file = existsSync(source) && statSync(source).isDirectory() ? path.join(source, 'results.json') : source;
  let doc: RunDocument;
  try {
    // Its size before a byte is read, its depth and duplicate members before it is parsed (as verify-certificate reads it).
    doc = boundedJson(readRegularFile(file, MAX_RESULTS_BYTES), file, MAX_RESULTS_BYTES, MAX_RESULTS_DEPTH) as RunDocument;
  } catch (err) {
    throw new CompareError(err instanceof UnreadableFile || err instanceof Refused ? err.message : `cannot read ${file}: ${(err as Error).message}`);
  }
  if (!doc || !Array.isArray(doc.checks) || !doc.suite || !doc.target)
    throw new CompareError(`${file} is not a results.json of this suite (no suite, target or checks)`);
  // The contract's major version says what its fields mean: another one is refused, never read as this one.
  const major = typeof doc.schemaVersion === 'string' ? doc.schemaVersion.split('.')[0] : undefined;
  if (major !== RESULTS_SCHEMA_VERSION.split('.')[0])
    throw new CompareError(
      `${file} is results.json contract ${typeof doc.schemaVersion === 'string' ? JSON.stringify(doc.schemaVersion.slice(0, 40)) : '1 (no schemaVersion)'}; this suite reads ${RESULTS_SCHEMA_VERSION}: re-run it with this version`,
    );
  if (
    !doc.status ||
    !Array.isArray(doc.scope?.leftOut) ||
    !doc.counts ||
    doc.checks.some((c: unknown) => !isRecord(c) || !OUTCOMES.includes(c.outcome as Outcome))
  )
    throw new CompareError(`${file} has no run status, scope facts or outcomes: it was written by an older suite version; re-run it with this one`);
  const schema = validateRef('results.json', doc);
  if (!schema.valid)
    throw new CompareError(
      `${file} does not match the results.json schema of this suite: ${schema.errors.slice(0, 5).join('; ')}${schema.errors.length > 5 ? ` (… ${schema.errors.length - 5} more)` : ''}`,
    );
  return readerDocument(doc);
}

function targetOf(doc: ReaderDocument): string {
  if (doc.target.embedded) return 'embedded reference';
  const hosts = [doc.target.baseUrl, doc.target.rpcUrl]
    .filter((u): u is string => !!u)
    .map((u) => {
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
function labels(sources: string[], docs: ReaderDocument[]): string[] {
  const candidates = [(d: ReaderDocument) => targetOf(d), (d: ReaderDocument) => `${targetOf(d)} (${d.target.profile})`];
  for (const f of candidates) {
    const ls = docs.map(f);
    if (new Set(ls).size === ls.length) return ls;
  }
  return docs.map((d, i) => `${targetOf(d)} (${d.target.profile}, ${path.basename(path.resolve(sources[i]))})`);
}

/** Side by side, one row per check; refuses runs of different suite (or spec) versions. */
/**
 * `sources`: where each results.json is read from. `shown`: how the published comparison names
 * each (default: as read); the caller gives the paths as the user wrote them, never a resolved
 * absolute path (it would publish the user's home folder).
 */
export function compareRuns(sources: string[], shown: readonly string[] = sources): Comparison {
  if (sources.length < 2) throw new CompareError('compare needs at least two report directories (each holding a results.json)');
  const docs = sources.map(loadRun);
  const versions = new Set(docs.map((d) => `${d.suite.name} ${d.suite.version} / spec ${d.spec.version}`));
  if (versions.size > 1) {
    throw new CompareError(
      `results from different suite versions cannot be compared: ${docs.map((d, i) => `${sources[i]}: ${d.suite.name} ${d.suite.version} (spec ${d.spec.version})`).join('; ')}. Run every target with the same suite version.`,
    );
  }
  const names = labels(sources, docs);
  const runs = docs.map((doc, i) => ({ source: shown[i] ?? sources[i], label: names[i], doc }));

  const meta = new Map<string, ReaderCheck>();
  for (const d of docs) for (const c of d.checks) if (!meta.has(c.id)) meta.set(c.id, c);
  const index = docs.map((d) => new Map(d.checks.map((c) => [c.id, c])));
  const rows: ComparedRow[] = [...meta.values()].map((c) => {
    const verdicts = index.map((m) => {
      const r = m.get(c.id);
      return r?.outcome;
    });
    const outOfScope = index.map((m) => m.get(c.id)?.outOfScope !== undefined);
    // A sampled pass says nothing its verdict does not (the run's N is in the header): k/N where answers failed.
    const answers = index.map((m) => {
      const r = m.get(c.id);
      return r?.samples?.failed ? answersWords(r) : '';
    });
    return { id: c.id, section: sectionOf(c), title: c.title, level: levelWord(c), verdicts, outOfScope, answers, ...differenceOf(verdicts, outOfScope) };
  });
  // Verdict differences first, then those of scope only, then the rest; each in the spec's order.
  const rank = (r: ComparedRow) => (r.differs ? 0 : r.scopeOnly ? 1 : 2);
  rows.sort((a, b) => rank(a) - rank(b) || compareSections(a.section, b.section));
  return {
    runs,
    rows,
    statusDiffers: new Set(docs.map((d) => d.status)).size > 1,
    differences: rows.filter((r) => r.differs).length,
    scopeDifferences: rows.filter((r) => r.scopeOnly).length,
  };
}

/** Every difference of verdict, counted once: the run statuses (one, when they differ) and each check whose verdicts differ. What compare's exit code and headings state. */
export const verdictDifferences = (c: Pick<Comparison, 'statusDiffers' | 'differences'>): number => c.differences + (c.statusDiffers ? 1 : 0);

/** The run statuses side by side, as stored: stated once, where they differ. */
export const statusesWords = (c: Pick<Comparison, 'runs'>): string => c.runs.map((r) => `${r.label} ${r.doc.status}`).join(' · ');

/** What compare.md and compare.html list: scope-only rows only when asked (--all). */
export interface RenderOptions {
  all?: boolean;
}

const SCOPE_ONLY_WORDS =
  'differ in scope only: judged in at most one run (out of scope, skipped, or passed there and not judged in the others), or the same verdict wherever judged';

const ICON: Record<Outcome, string> = {
  failed: '❌',
  'stale-expectation': '🆕',
  warning: '⚠️',
  'known-failure': '➖',
  passed: '✅',
  'not-judged': '❔',
  blocked: '⛔',
  skipped: '⏭️',
};
/** The stored outcome in words; a skipped check the run's scope left out says so. */
const words = (v: Outcome, scoped: boolean) => (v === 'skipped' && scoped ? 'out of scope' : OUTCOME_WORDS[v]);
const verdictWords = (v: Outcome | undefined, scoped: boolean) => (v ? `${ICON[v]} ${words(v, scoped)}` : '— (not in this run)');
const counts = (d: ReaderDocument) => countLine(d.counts);

export function renderCompareMd(c: Comparison, opts: RenderOptions = {}): string {
  // Every string below comes from the results.json files (labels from their target URLs): inert text.
  const head = `| | ${c.runs.map((r) => `**${mdText(r.label)}**`).join(' | ')} |`;
  const sep = `|---|${c.runs.map(() => '---').join('|')}|`;
  const total = verdictDifferences(c);
  const out = [
    `# Conformance compared: ${c.runs.length} targets, ${total} difference${total === 1 ? '' : 's'}`,
    '',
    mdText(`Suite ${c.runs[0].doc.suite.name} ${c.runs[0].doc.suite.version} · spec ${c.runs[0].doc.spec.version}`),
    '',
    head,
    sep,
    `| status | ${c.runs.map((r) => `${STATUS_ICON[r.doc.status]} **${mdText(r.doc.status)}** (${mdText(exitWords(r.doc.exitCode))})`).join(' | ')} |`,
    `| scope | ${c.runs.map((r) => mdText(scopeWords(r.doc.scope))).join(' | ')} |`,
    `| checks | ${c.runs.map((r) => mdText(counts(r.doc))).join(' | ')} |`,
    ...(c.runs.some((r) => r.doc.sampling)
      ? [`| samples | ${c.runs.map((r) => (r.doc.sampling ? `${Math.trunc(Number(r.doc.sampling.n))} per read-only question` : '1')).join(' | ')} |`]
      : []),
    `| run | ${c.runs.map((r) => `${mdText(r.doc.startedAt)} · ${(r.doc.durationMs / 1000).toFixed(1)} s · ${mdCode(r.source, { table: true })}`).join(' | ')} |`,
    '',
  ];
  const table = (rows: ComparedRow[]) => [
    `| check | section | ${c.runs.map((r) => mdText(r.label)).join(' | ')} |`,
    `|---|---|${c.runs.map(() => '---').join('|')}|`,
    // A section is digits and dots (loadRun refused any other by the schema); mdText would escape `4.1` as a list marker.
    ...rows.map(
      (r) =>
        `| ${mdCode(r.id, { table: true })} | ${r.section} | ${r.verdicts.map((v, i) => verdictWords(v, r.outOfScope[i]) + (r.answers[i] ? ` (${r.answers[i]})` : '')).join(' | ')} |`,
    ),
  ];
  const diff = c.rows.filter((r) => r.differs);
  const scope = c.rows.filter((r) => r.scopeOnly);
  const same = c.rows.filter((r) => !r.differs && !r.scopeOnly);
  // Lines one at a time: a spread of a table's rows into push() overflows the stack past about 100 000 checks.
  const add = (...parts: Array<string | string[]>) => {
    for (const part of parts) for (const line of Array.isArray(part) ? part : [part]) out.push(line);
  };
  add(`## Differences (${total})`, '');
  if (c.statusDiffers) add(`The run status differs: ${mdText(statusesWords(c))}.`, '');
  add(diff.length ? table(diff) : ['Every check judged in two or more runs has the same verdict in each.'], '');
  add(`${scope.length} check${scope.length === 1 ? '' : 's'} ${SCOPE_ONLY_WORDS}${scope.length && !opts.all ? ' (listed with --all)' : ''}.`, '');
  if (opts.all && scope.length) add(`## Scope only (${scope.length})`, '', table(scope), '');
  add(`## Same verdict everywhere (${same.length})`, '', table(same), '');
  return out.join('\n');
}

export function renderCompareHtml(c: Comparison, opts: RenderOptions = {}): string {
  const style = `${BASE_STYLE}
.cols th{min-width:150px}.cols th:nth-child(2){min-width:0;width:70px}.head td{vertical-align:top}.pill{font-size:.85rem}
tr.diff td{background:#fff8c5}td.v{white-space:nowrap}td.v-failed{color:#cf222e;font-weight:600}td.v-passed{color:#1a7f37}td.v-not-judged,td.v-blocked{color:#8250df}td.v-skipped,td.v-none{color:#57606a}td.v-warning,td.v-known-failure,td.v-stale-expectation{color:#9a6700}
details>summary{cursor:pointer;font-weight:600;margin:18px 0 8px}.head{margin-top:14px}`;
  const th = c.runs.map((r) => `<th>${esc(r.label)}</th>`).join('');
  const headRows = [
    `<tr><td class="muted">status</td>${c.runs.map((r) => `<td><span class="pill ${esc(statusClass(r.doc.status))}">${esc(r.doc.status)}</span><div class="small muted">${esc(exitWords(r.doc.exitCode))}</div></td>`).join('')}</tr>`,
    `<tr><td class="muted">scope</td>${c.runs.map((r) => `<td class="small">${esc(scopeWords(r.doc.scope))}</td>`).join('')}</tr>`,
    `<tr><td class="muted">checks</td>${c.runs.map((r) => `<td class="small">${esc(counts(r.doc))}</td>`).join('')}</tr>`,
    ...(c.runs.some((r) => r.doc.sampling)
      ? [
          `<tr><td class="muted">samples</td>${c.runs.map((r) => `<td class="small">${r.doc.sampling ? `${Math.trunc(Number(r.doc.sampling.n))} per read-only question` : '1'}</td>`).join('')}</tr>`,
        ]
      : []),
    `<tr><td class="muted">run</td>${c.runs.map((r) => `<td class="small muted">${esc(r.doc.startedAt)} · ${(r.doc.durationMs / 1000).toFixed(1)} s<br><code>${esc(r.source)}</code></td>`).join('')}</tr>`,
  ].join('\n');
  const row = (r: ComparedRow) =>
    `<tr class="${r.differs ? 'diff' : ''}"><td><code>${esc(r.id)}</code><div class="small muted">${esc(r.title)}</div></td><td>${esc(r.section)}</td>${r.verdicts.map((v, i) => `<td class="v v-${v ?? 'none'}">${esc(v ? words(v, r.outOfScope[i]) : '—')}${r.answers[i] ? `<div class="small">${esc(r.answers[i])}</div>` : ''}</td>`).join('')}</tr>`;
  const diff = c.rows.filter((r) => r.differs);
  const scope = c.rows.filter((r) => r.scopeOnly);
  const same = c.rows.filter((r) => !r.differs && !r.scopeOnly);
  const table = (rows: ComparedRow[]) =>
    `<table class="cols"><thead><tr><th>check</th><th>section</th>${th}</tr></thead><tbody>${rows.map(row).join('\n')}</tbody></table>`;
  const total = verdictDifferences(c);
  return `<!doctype html><html lang="en">${pageHead(`Conformance compared: ${c.runs.length} targets, ${total} difference${total === 1 ? '' : 's'}`, style)}<body><main>
<h1>Conformance compared: ${c.runs.length} targets, ${total} difference${total === 1 ? '' : 's'}</h1>
<div class="muted">${esc(c.runs[0].doc.suite.name)} ${esc(c.runs[0].doc.suite.version)} · spec ${esc(c.runs[0].doc.spec.version)}</div>
<table class="cols head"><thead><tr><th></th>${th}</tr></thead><tbody>${headRows}</tbody></table>
<h2>Differences (${total})</h2>
${c.statusDiffers ? `<p>The run status differs: ${esc(statusesWords(c))}.</p>\n` : ''}${diff.length ? table(diff) : '<p>Every check judged in two or more runs has the same verdict in each.</p>'}
<p>${scope.length} check${scope.length === 1 ? '' : 's'} ${esc(SCOPE_ONLY_WORDS)}${scope.length && !opts.all ? ' (listed with --all)' : ''}.</p>
${opts.all && scope.length ? `<h2>Scope only (${scope.length})</h2>\n${table(scope)}` : ''}
<details><summary>Same verdict everywhere (${same.length})</summary>${table(same)}</details>
</main></body></html>
`;
}

/** Write compare.md and compare.html into `outDir` through the egress gate; returns their paths. */
export function writeComparison(c: Comparison, outDir: string, opts: RenderOptions = {}, gate: Egress = new Egress()): string[] {
  const files: Array<[string, string]> = [
    ['compare.md', renderCompareMd(c, opts)],
    ['compare.html', renderCompareHtml(c, opts)],
  ];
  return files.map(([name, body]) => gate.writeFile(outDir, name, body));
}
