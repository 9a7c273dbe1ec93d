import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { allChecks } from '../../suites';
import { GENERATED, TRACEABILITY_MD, withGenerated } from '../../src/cli/docs';
import { SPEC_VERSION } from '../../src/verdict/document';
import { ROOT } from '../../src/harness/paths';
import { check, sectionOfStatement } from '../../src/harness/check';
import { citedBy, renderMatrix, renderSpec, SPEC_MD, type Citing } from '../../src/cli/traceability';
import { isDirect, traceabilityProblems } from '../support/traceability-problems';
import { loadSpec, parseSpec, RULES_FILE, statementTexts } from '../../src/harness/spec-rules';

const spec = loadSpec();
const checks = allChecks();
const ids = spec.sections.map((e) => e.id);
/** A title says what is checked; the rule itself is quoted from rules.yaml. */
const MAX_TITLE = 80;

/** A small spec for exercising the rules on known input. */
const TOY = `
title: Toy
version: 0.0.1
summary: A toy spec.
sections:
  - id: "1"
    title: One
  - id: "1.1"
    table: { columns: [a, b], rows: [[x, y]] }
    statements: [{ id: "1.1.1", text: testable }]
  - id: "1.2"
    statements: [{ id: "1.2.1", text: not testable, untestable: not shown }]
  - id: "2"
    title: Two
    statements: [{ id: "2.1", text: overview, via: ["1.1"] }]
`;

describe('specs/rules.yaml: the spec restated', () => {
  it('has the title and version, and the version is the one the suite reports and the API documents carry', () => {
    expect(spec.title).toBe('Tokenized Stock Listing API and Chain JSON-RPC Methods');
    expect(spec.version).toBe('1.0.0');
    expect(SPEC_VERSION).toBe(spec.version);
    const openapi = YAML.parse(readFileSync(path.join(ROOT, 'specs/tokenized-stocks.openapi.yaml'), 'utf8')) as { info: { version: string } };
    const openrpc = JSON.parse(readFileSync(path.join(ROOT, 'specs/node-rpc.openrpc.json'), 'utf8')) as { info: { version: string } };
    const results = JSON.parse(readFileSync(path.join(ROOT, 'schemas/results.json'), 'utf8')) as {
      properties: { spec: { properties: { version: { const: string } } } };
    };
    expect([openapi.info.version, openrpc.info.version, results.properties.spec.properties.version.const]).toEqual([spec.version, spec.version, spec.version]);
  });

  it('has every top-level section 1-9 of the source, ids unique and in document order, every parent present', () => {
    expect(ids.filter((id) => !id.includes('.'))).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(new Set(ids).size).toBe(ids.length);
    const key = (id: string): number[] => id.split('.').map(Number);
    const sorted = [...ids].sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) - (y[i] ?? -1);
      return 0;
    });
    expect(ids).toEqual(sorted);
    const missingParents = ids.filter((id) => id.includes('.') && !ids.includes(id.slice(0, id.lastIndexOf('.'))));
    expect(missingParents).toEqual([]);
  });

  it('gives every heading-less entry (a numbered item) statements, and leaves no entry empty', () => {
    const hasChildren = (id: string): boolean => ids.some((o) => o.startsWith(`${id}.`));
    expect(spec.sections.filter((e) => !e.statements.length && !hasChildren(e.id)).map((e) => e.id)).toEqual([]);
    expect(spec.sections.filter((e) => e.title === undefined && !e.statements.length).map((e) => e.id)).toEqual([]);
    expect(spec.sections.filter((e) => e.title !== undefined).map((e) => `${e.id} ${e.title}`)).toEqual(
      expect.arrayContaining(['4.5 eth_getTransactionCount', '2.1 Tokenized equity token (`v1TokenizedEquityToken`)', '7 Errors']),
    );
  });

  it('keeps the numbered "Rules:" of 2.1, 4.1 and 7, and a reason for every untestable statement', () => {
    const rules = spec.sections.flatMap((e) => e.statements.filter((s) => s.rule !== undefined).map((s) => `${e.id} rule ${s.rule}`));
    expect(rules).toEqual(['2.1 rule 1', '2.1 rule 2', '2.1 rule 3', '4.1 rule 1', '4.1 rule 2', '4.1 rule 3', '7 rule 1', '7 rule 2']);
    for (const e of spec.sections) for (const s of e.statements) if (s.untestable !== undefined) expect(s.untestable.length).toBeGreaterThan(10);
  });

  it('lists no checks: the checks cite the spec, not the other way round', () => {
    expect(readFileSync(RULES_FILE, 'utf8')).not.toMatch(/^\s*checks:/m);
    expect(() => parseSpec(`${TOY}    checks: [rest.list.status-200]\n`)).toThrow(/unknown key\(s\) checks/);
  });

  it('gives every statement an id, its entry and its number, unique and never an entry id', () => {
    const statementIds = spec.sections.flatMap((e) => e.statements.map((s) => s.id));
    expect(statementIds).toEqual(expect.arrayContaining(['4.5.1', '4.5.2', '4.5.3', '2.1.12', '7.5', '9.1.2']));
    expect(new Set(statementIds).size).toBe(statementIds.length);
    for (const e of spec.sections) for (const s of e.statements) expect(s.id.slice(0, s.id.lastIndexOf('.'))).toBe(e.id);
    expect(() => parseSpec(TOY.replace('id: "1.1.1"', 'id: "1.2.1"'))).toThrow(/"1.1.1"/);
    expect(() => parseSpec(TOY.replace('{ id: "1.1.1", text: testable }', '{ text: testable }'))).toThrow(/every statement has an id/);
    expect(() => parseSpec(`${TOY}  - id: "2.1"\n    statements: [{ id: "2.1.1", text: x }]\n`)).toThrow(/2.1 is used twice \(or is an entry's id\)/);
  });

  it('names table rows by position, and quotes statements and rows as text', () => {
    const texts = statementTexts(spec);
    expect(texts.get('4.5.2')).toMatch(/^With "pending", the count includes every pre-confirmed transaction/);
    expect(texts.get('2.1.r4')).toBe('field: decimals; type: integer; format: int64; meaning: how many decimals the token uses');
    expect(texts.get('4.1.r3')).toBe('item: operation id; value: listTokenizedStocks');
    expect(statementTexts(parseSpec(TOY)).get('1.1.r1')).toBe('a: x; b: y');
  });

  it('rejects malformed entries', () => {
    expect(() => parseSpec(TOY.replace('id: "1.2"', 'id: 1.2.x'))).toThrow(/section number/);
    expect(() => parseSpec(TOY.replace('untestable: not shown', 'untestable: not shown, via: ["1.1"]'))).toThrow(/not both/);
    expect(() => parseSpec(`${TOY}    table: { columns: [a, b], rows: [[x]] }\n`)).toThrow(/2 string cells/);
  });
});

describe("traceability: generated from the checks' own citations", () => {
  it('every cited statement exists and is testable; every testable statement is cited', () => {
    expect(traceabilityProblems(spec, checks)).toEqual([]);
  });

  it('the rules catch each kind of disagreement (toy spec)', () => {
    const toy = parseSpec(TOY);
    const c = (id: string, ...statements: string[]): Citing => ({
      id,
      statements,
      section: [...new Set(statements.map((s) => s.slice(0, s.lastIndexOf('.'))))].join(', '),
      level: 'required',
    });
    expect(traceabilityProblems(toy, [c('rest.a', '1.1.1')])).toEqual([]);
    expect(traceabilityProblems(toy, [c('rest.a', '1.1.1', '1.1.r1')])).toEqual([]);
    expect(traceabilityProblems(toy, [])).toEqual([
      '1.1.1 is testable but no check cites it (cite it, or mark it untestable with the reason)',
      '2: via 1.1, which no check cites',
    ]);
    expect(traceabilityProblems(toy, [c('rest.a', '1.1.1', '3.7.1'), c('rest.b', '1.2.1'), c('rest.c', '2.1'), c('rest.d', '1.1.r2')])).toEqual([
      'rest.a cite(s) 3.7.1, which specs/rules.yaml does not have',
      'rest.b cite(s) 1.2.1, which is not directly testable (untestable)',
      'rest.c cite(s) 2.1, which is not directly testable (enforced through 1.1)',
      'rest.d cite(s) 1.1.r2, which specs/rules.yaml does not have',
    ]);
  });

  it('every check names its statements; its section is derived from them', () => {
    for (const c of checks) {
      expect(c.statements.length).toBeGreaterThan(0);
      expect(c.section).toBe([...new Set(c.statements.map(sectionOfStatement))].join(', '));
    }
    expect(checks.find((c) => c.id === 'preconf.nonce.back-to-back')?.statements).toEqual(['4.5.2', '1.4.1', '4.5.1', '4.2.2']);
    const meta = { id: 'rest.x.y', title: 't', level: 'required' as const, needs: [] };
    const noop = async (): Promise<void> => undefined;
    expect(check({ ...meta, statements: ['4.5.2', '2.1.r4'] }, noop).section).toBe('4.5, 2.1');
    expect(() => check({ ...meta, statements: [] }, noop)).toThrow(/at least one statement/);
    expect(() => check({ ...meta, statements: ['4.5'] }, noop)).not.toThrow(); // the format allows it; traceability finds no such statement
    for (const bad of ['4.5.0', '4.5.x', '4.5.r0', 'rule 2', '4.5.2 ']) expect(() => check({ ...meta, statements: [bad] }, noop)).toThrow(/must look like/);
    expect(() => check({ ...meta, statements: ['4.5.2', '4.5.2'] }, noop)).toThrow(/named twice/);
  });

  it('titles are short: the rule text comes from the statements', () => {
    const long = checks.filter((c) => c.title.length > MAX_TITLE).map((c) => `${c.id} (${c.title.length}): ${c.title}`);
    expect(long).toEqual([]);
  });

  it('inverts the citations: a check citing two sections appears under both, in check order', () => {
    const by = citedBy(checks);
    const latency = checks.find((c) => c.id === 'preconf.latency.about-200ms');
    expect(latency?.section).toBe('4.5, 8');
    expect(by.get('4.5')).toContain(latency);
    expect(by.get('8')).toContain(latency);
    const matrix = renderMatrix(spec, checks);
    const row = (id: string): string | undefined => matrix.split('\n').find((l) => l.startsWith(`| [${id}](`));
    expect(row('8')).toContain('`preconf.latency.about-200ms` (8.2; advisory)');
    expect(row('4.5')).toContain('`preconf.latency.about-200ms` (4.5.3; advisory)');
    expect(row('4.5')).toContain('`preconf.nonce.back-to-back` (4.5.2, 4.5.1)');
    expect(row('2.1')).toContain('`rest.token.field.decimals` (2.1.r4, 2.1.1)');
    expect(row('1.2')).toMatch(/\|\s*\| A statement about what a record means/);
    expect(row('2.5')).toContain('through [4.4](../specs/SPEC.md#section-4.4)');
  });

  it('every statement a failure names in the source is a testable statement or a table row of rules.yaml', () => {
    // Checks' own statements are covered above; this covers `fail(..., { violated: ['4.2.1'] })`,
    // which may name a statement the check does not declare, and the ids judging helpers are given.
    // Walked, not `git ls-files`: the copy the standalone test runs this in has no .git.
    const files = ['src', 'suites', 'bench'].flatMap((dir) =>
      readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => path.join(dir, f)),
    );
    const texts = statementTexts(spec);
    const untestable = new Set(spec.sections.flatMap((e) => e.statements.filter((s) => s.untestable).map((s) => s.id)));
    const named: string[] = [];
    // Any array of statement-id literals: `violated: [...]`, a helper's argument, a root's constant.
    const arrays = /\[\s*('\d+(?:\.\d+)*\.r?\d+'(?:\s*,\s*'\d+(?:\.\d+)*\.r?\d+')*)\s*,?\s*\]/g;
    for (const f of files) {
      for (const m of readFileSync(path.join(ROOT, f), 'utf8').matchAll(arrays)) for (const id of m[1]!.matchAll(/'([^']+)'/g)) named.push(`${f}: ${id[1]}`);
    }
    expect(named.length).toBeGreaterThan(40);
    expect(named).toContain('src/harness/expect.ts: 4.2.1');
    expect(named.filter((c) => !texts.has(c.split(': ')[1]!) || untestable.has(c.split(': ')[1]!))).toEqual([]);
  });

  it('each testable statement is reachable: via targets have direct statements', () => {
    const direct = new Set(spec.sections.filter((e) => e.statements.some(isDirect)).map((e) => e.id));
    const vias = spec.sections.flatMap((e) => e.statements.flatMap((s) => s.via ?? []));
    expect(vias.length).toBeGreaterThan(0);
    expect(vias.filter((v) => !direct.has(v))).toEqual([]);
  });
});

describe('generated documents are current (run `npm run docs` after changing rules.yaml, checks or flags)', () => {
  it('specs/SPEC.md', () => {
    const md = readFileSync(SPEC_MD, 'utf8');
    expect(md.split('\n')[0]).toMatch(/Generated from specs\/rules\.yaml by `npm run docs`/);
    expect(md).toBe(renderSpec(spec));
    // Anchors the matrix of docs/development.md and other pages link to.
    for (const id of ids) expect(md).toContain(`<a id="section-${id}"></a>`);
    expect(md).toContain('### 4.5 eth_getTransactionCount');
    // Statements and table rows show their ids, with anchors.
    expect(md).toContain('<a id="section-4.5.2"></a>**4.5.2** With "pending", the count includes');
    expect(md).toContain('| 2.1.r4 | decimals | integer | int64 |');
  });

  it.each(GENERATED.map((g) => [path.relative(ROOT, g.file), g] as const))('%s (its generated block)', (_, { file, block, render }) => {
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(withGenerated(text, block, render));
  });

  it('the matrix links every section into specs/SPEC.md, and SPEC.md links back to it', () => {
    const links = [...readFileSync(TRACEABILITY_MD, 'utf8').matchAll(/\]\(\.\.\/specs\/SPEC\.md#section-[^)]+\)/g)];
    expect(links.length).toBeGreaterThan(20);
    expect(readFileSync(SPEC_MD, 'utf8')).toContain('(../docs/development.md#traceability-which-check-enforces-which-rule)');
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown file offers: its headings (numbered when repeated, as GitHub does) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of markdown.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1]!);
  return out;
}

/** Markdown without its fenced blocks: a line in a code block is no heading. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** The relative links of a page (links in code are none; https: and mailto: lead outside the repository). */
function relativeLinks(page: string): string[] {
  const text = withoutFences(readFileSync(path.join(ROOT, page), 'utf8')).replace(/`[^`\n]*`/g, '``');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link));
}

describe('documentation links', () => {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const pages = ['README.md', 'CONTRIBUTING.md', ...docs];

  it('reads the pages and their links; docs/ holds at most ten pages, by audience', () => {
    expect(docs.length).toBeGreaterThan(5);
    expect(docs.length).toBeLessThanOrEqual(10);
    expect(pages.flatMap(relativeLinks).length).toBeGreaterThan(50);
  });

  it.each(pages)('every relative link in %s lands on a file, and on an anchor that file sets', (page) => {
    const broken: string[] = [];
    for (const link of relativeLinks(page)) {
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = path.join(ROOT, file ? path.join(path.dirname(page), file) : page);
      if (!existsSync(target)) broken.push(`${link}: no such file`);
      else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no such anchor`);
    }
    expect(broken).toEqual([]);
  });

  it('the anchor reader finds headings and explicit ids as GitHub names them', () => {
    const md =
      '# Known failures: expectation files\n## Pre-confirmed state ("pending") and the `signer`\n## Run status\n## Run status\n<a id="section-4.5"></a>\n```\n# not a heading\n```';
    expect([...anchorsOf(md)]).toEqual([
      'known-failures-expectation-files',
      'pre-confirmed-state-pending-and-the-signer',
      'run-status',
      'run-status-1',
      'section-4.5',
    ]);
  });
});
