import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareRuns, CompareError, renderCompareHtml, renderCompareMd, writeComparison } from '../../src/cli/compare';
import type { ScopeFacts } from '../../src/verdict/scope';
import { writeReports } from '../../src/cli/write-reports';
import type { CheckResult } from '../../src/harness/runner';
import type { RunDocument } from '../../src/verdict/document';
import { runDocument } from '../support/documents';
import { main } from '../../src/cli/main';
import { capture } from '../support/sink';

async function compareCli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = capture();
  const err = capture();
  const code = await main(['compare', ...argv], {}, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

// Rendered as GitHub would show compare.md: raw HTML allowed, bare URLs linked.
const MarkdownIt = require('markdown-it') as new (opts: object) => { render(md: string): string };
const markdown = new MarkdownIt({ html: true, linkify: true });

const result = (id: string, status: CheckResult['status'], section = '4.5'): CheckResult => ({
  id,
  title: `title of ${id}`,
  statements: [`${section}.1`],
  section,
  level: 'required',
  needs: ['rpc'],
  status,
  reason: status === 'passed' ? '' : `why ${id}`,
  durationMs: 1,
  exchanges: [],
  exchangeCount: 0,
});

function runDir(checks: CheckResult[], over: Partial<ScopeFacts> = {}, version = '0.1.0'): string {
  const scope: ScopeFacts = {
    only: ['rest', 'rpc', 'cross', 'preconf'],
    profile: 'dedicated',
    embedded: false,
    baseUrl: null,
    rpcUrl: 'https://rpc.staging.example',
    signer: false,
    archive: false,
    ...over,
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'run-'));
  writeReports(runDocument(checks, scope, { suite: { name: 'tokenized-stocks-conformance', version } }), dir);
  return dir;
}

describe('compare', () => {
  const staging = runDir([result('rpc.a', 'passed'), result('rpc.b', 'passed'), result('rpc.c', 'failed', '4.3'), result('rpc.only-here', 'passed', '4.6')]);
  const production = runDir([result('rpc.a', 'passed'), result('rpc.b', 'inconclusive'), result('rpc.c', 'passed', '4.3')], {
    rpcUrl: 'https://rpc.example/v2/***',
  });

  it('one row per check, one column per target: verdict differences first, then scope-only ones, each in the spec order', () => {
    const c = compareRuns([staging, production]);
    expect(c.runs.map((r) => r.label)).toEqual(['rpc.staging.example', 'rpc.example/v2/***']);
    expect(c.rows.map((r) => [r.id, r.verdicts, r.differs, r.scopeOnly])).toEqual([
      ['rpc.c', ['failed', 'passed'], true, false],
      ['rpc.b', ['passed', 'not-judged'], false, true],
      ['rpc.only-here', ['passed', undefined], false, true],
      ['rpc.a', ['passed', 'passed'], false, false],
    ]);
    expect([c.differences, c.scopeDifferences]).toEqual([1, 2]);
  });

  it('runs of different scope: only checks judged in two or more runs with different verdicts count as differences', () => {
    const rest = (id: string, status: CheckResult['status']) => ({ ...result(id, status, '4.1'), needs: ['rest'] as CheckResult['needs'] });
    const full = runDir([rest('rest.a', 'passed'), rest('rest.b', 'failed'), result('rpc.x', 'passed'), result('rpc.y', 'passed')], {
      baseUrl: 'https://api.example',
    });
    const restOnly = runDir(
      [
        rest('rest.a', 'passed'),
        rest('rest.b', 'passed'),
        result('rpc.x', 'skipped'),
        { ...result('rpc.y', 'skipped'), cause: 'out-of-scope', outOfScope: { flag: '--rpc-url', words: 'no --rpc-url' } },
      ],
      { baseUrl: 'https://api.example', rpcUrl: null },
    );
    const c = compareRuns([full, restOnly]);
    expect(c.rows.map((r) => r.id)).toEqual(['rest.b', 'rpc.x', 'rpc.y', 'rest.a']);
    expect([c.statusDiffers, c.differences, c.scopeDifferences]).toEqual([true, 1, 2]);
    const md = renderCompareMd(c);
    // One check and the run statuses (non-conformant, conformant).
    expect(md).toContain('## Differences (2)');
    expect(md).toContain('| ` rest.b ` | 4.1 | ❌ failed | ✅ passed |');
    expect(md).toContain('2 checks differ in scope only: judged in at most one run');
    expect(md).toContain('(listed with --all).');
    expect(md).not.toContain('`rpc.y`');
    const all = renderCompareMd(c, { all: true });
    expect(all.indexOf('## Scope only (2)')).toBeGreaterThan(all.indexOf('## Differences (2)'));
    expect(all).toContain('| ` rpc.y ` | 4.5 | ✅ passed | ⏭️ out of scope |');
    expect(renderCompareHtml(c)).not.toContain('<code>rpc.y</code>');
    expect(renderCompareHtml(c, { all: true })).toContain('<code>rpc.y</code>');
  });

  it('compare.md and compare.html head each column with its target, status and scope', () => {
    const c = compareRuns([staging, production]);
    const md = renderCompareMd(c);
    // The run statuses differ (non-conformant, incomplete): one difference, beside the one check's.
    expect(md).toContain('# Conformance compared: 2 targets, 2 differences');
    expect(md).toContain('The run status differs: rpc.staging.example non-conformant · rpc.example/v2/\\*\\*\\* incomplete.');
    expect(md).toContain('| | **rpc.staging.example** | **rpc.example/v2/\\*\\*\\*** |');
    expect(md).toContain(
      '| status | ❌ **non-conformant** (exit 1: non-conformant — a check failed the run or a target was unreachable) | ⚠️ **incomplete** (exit 3: incomplete',
    );
    // Only JSON-RPC checks ran: nothing that sends transactions was in the run, key or not.
    expect(md).toContain(
      '| scope | REST interface not judged; pre-confirmed state not judged (no check that sends transactions was selected) (profile dedicated) |',
    );
    expect(md.indexOf('## Differences (2)')).toBeLessThan(md.indexOf('## Same verdict everywhere (1)'));
    expect(md).toContain('| ` rpc.c ` | 4.3 | ❌ failed | ✅ passed |');
    expect(renderCompareMd(c, { all: true })).toContain('| ` rpc.only-here ` | 4.6 | ✅ passed | — (not in this run) |');
    const html = renderCompareHtml(c);
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(html).toContain('<th>rpc.staging.example</th><th>rpc.example/v2/***</th>');
    expect(html).toContain('<tr class="diff"><td><code>rpc.c</code>');
    const out = mkdtempSync(path.join(tmpdir(), 'cmp-'));
    const files = writeComparison(c, out);
    expect(files.map((f) => path.basename(f))).toEqual(['compare.md', 'compare.html']);
    expect(readFileSync(files[0], 'utf8')).toBe(md);
  });

  it('columns with the same target are told apart by profile, then by directory', () => {
    const a = runDir([result('rpc.a', 'passed')], { profile: 'public' });
    const b = runDir([result('rpc.a', 'passed')], { profile: 'dedicated' });
    expect(compareRuns([a, b]).runs.map((r) => r.label)).toEqual(['rpc.staging.example (public)', 'rpc.staging.example (dedicated)']);
    const twin = compareRuns([a, a]).runs.map((r) => r.label);
    expect(new Set(twin).size).toBe(1); // same directory twice: nothing to tell apart
  });

  it('refuses results of different suite versions, naming them', () => {
    const old = runDir([result('rpc.a', 'passed')], {}, '0.0.9');
    expect(() => compareRuns([staging, old])).toThrow(CompareError);
    expect(() => compareRuns([staging, old])).toThrow(/different suite versions cannot be compared: .*0\.1\.0.*; .*0\.0\.9/);
  });

  it('refuses fewer than two runs, and a directory without results.json', () => {
    expect(() => compareRuns([staging])).toThrow(/at least two/);
    expect(() => compareRuns([staging, mkdtempSync(path.join(tmpdir(), 'empty-'))])).toThrow(/cannot read .*results\.json/);
  });

  it('what a results.json holds is rendered as text: no link, image or HTML reaches compare.md or compare.html', () => {
    const img = '![x](http://127.0.0.1:9/t.png)';
    const tag = '<img src=http://127.0.0.1:9/t.png onerror=alert(1)>';
    // A path survives URL parsing as written; a base URL that is no URL is labelled raw.
    const a = runDir([result('rpc.a', 'passed')], { rpcUrl: `http://127.0.0.1:9/${img}`, grep: `${tag}|[a](http://127.0.0.1:9/)` });
    const b = runDir([result('rpc.a', 'failed')], { rpcUrl: null, baseUrl: tag });
    const c = compareRuns([a, b]);
    expect(c.runs.map((r) => r.label)).toEqual([`127.0.0.1:9/${img}`, tag]);
    const md = renderCompareMd(c, { all: true });
    const html = markdown.render(md);
    expect(html).not.toMatch(/<img|<a[\s>]/);
    expect(new Set([...html.matchAll(/<\/?([a-z0-9]+)/g)].map((m) => m[1]))).toEqual(
      new Set(['h1', 'h2', 'p', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'code']),
    );
    expect(html).toContain('127.0.0.1:9/![x](http:');
    const page = renderCompareHtml(c, { all: true });
    expect(page).not.toMatch(/<img|<a[\s>]|onerror=alert\(1\)>/);
    expect(page).toContain('&lt;img src=http://127.0.0.1:9/t.png onerror=alert(1)&gt;');
  });

  it('refuses a results.json that breaks its schema (a section that is not a section number), naming the file', () => {
    const dir = runDir([result('rpc.a', 'passed')]);
    const file = path.join(dir, 'results.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as RunDocument;
    doc.checks[0].section = '<img src=x onerror=alert(1)>';
    writeFileSync(file, JSON.stringify(doc));
    expect(() => compareRuns([staging, dir])).toThrow(CompareError);
    expect(() => compareRuns([staging, dir])).toThrow(/results\.json does not match the results\.json schema of this suite: .*section/);
  });

  it('refuses a results.json whose checks hold a null, naming the file (never a TypeError)', () => {
    const dir = runDir([result('rpc.a', 'passed')]);
    const file = path.join(dir, 'results.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { checks: unknown[] };
    doc.checks.unshift(null);
    writeFileSync(file, JSON.stringify(doc));
    expect(() => compareRuns([staging, dir])).toThrow(CompareError);
  });

  it('300 000 rows of the same verdict rendered: compare.md is written (a spread of a table into push() once overflowed the stack)', () => {
    const c = compareRuns([staging, production]);
    const same = c.rows.find((r) => !r.differs && !r.scopeOnly)!;
    const many = { ...c, rows: Array.from({ length: 300_000 }, (_, i) => ({ ...same, id: `rpc.n${i}` })) };
    expect(renderCompareMd(many).split('\n').length).toBeGreaterThan(300_000);
  });

  it('names each run as the user wrote its folder, an absolute one by its name only: no local path is published', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'cwd-'));
    const [a, b] = [runDir([result('rpc.a', 'passed')]), runDir([result('rpc.a', 'failed')])];
    const out = path.join(cwd, 'cmp');
    await compareCli([a, b, '--report-dir', out]);
    for (const f of ['compare.md', 'compare.html']) {
      const text = readFileSync(path.join(out, f), 'utf8');
      expect(text).not.toContain(path.dirname(a));
      expect(text).toContain(path.basename(a));
      expect(text).toContain(path.basename(b));
    }
  });

  it('failed in one run and not judged in another (in scope there) is a difference, never scope only', () => {
    const a = runDir([result('rpc.a', 'failed'), result('rpc.b', 'failed'), result('rpc.c', 'passed')]);
    const b = runDir([
      result('rpc.a', 'inconclusive'),
      { ...result('rpc.b', 'skipped'), cause: 'out-of-scope', outOfScope: { flag: '--archive', words: 'no --archive' } },
      result('rpc.c', 'inconclusive'),
    ]);
    const c = compareRuns([a, b]);
    expect(c.rows.map((r) => [r.id, r.verdicts, r.differs, r.scopeOnly])).toEqual([
      ['rpc.a', ['failed', 'not-judged'], true, false],
      ['rpc.b', ['failed', 'skipped'], false, true],
      ['rpc.c', ['passed', 'not-judged'], false, true],
    ]);
    expect(renderCompareMd(c)).toContain('| ` rpc.a ` | 4.5 | ❌ failed | ❔ not judged |');
  });

  it('the console: differing verdicts exit 1 (as diff), each printed; --all prints the scope-only rows too; none differing exits 0', async () => {
    const a = runDir([result('rpc.a', 'failed'), result('rpc.b', 'passed')]);
    const b = runDir([result('rpc.a', 'inconclusive'), result('rpc.b', 'inconclusive')]);
    const out = mkdtempSync(path.join(tmpdir(), 'cmp-'));
    const plain = await compareCli([a, b, '--report-dir', out]);
    expect(plain.code).toBe(1);
    expect(plain.out).toContain('  differs: rpc.a (4.5): rpc.staging.example (');
    expect(plain.out).not.toContain('scope only: rpc.b');
    expect(plain.out).toContain('2 checks, 1 with different verdicts, 1 differing in scope only (--all lists them)');
    const all = await compareCli([a, b, '--report-dir', out, '--all']);
    expect(all.code).toBe(1);
    expect(all.out).toMatch(/ {2}scope only: rpc\.b \(4\.5\): .* passed · .* not-judged\n/);
    const same = await compareCli([a, a, '--report-dir', out]);
    expect(same.code).toBe(0);
  });

  it('runs whose stored statuses differ differ in verdict, even with every check the same: counted once, stated once, exit 1', async () => {
    const checks = [result('rpc.a', 'passed'), result('rpc.b', 'passed')];
    const plain = runDir(checks);
    // The same checks, with --require full: the scope is not full, so the run is incomplete (exit 3).
    const strict = runDir(checks, { required: 'full' });
    const c = compareRuns([plain, strict]);
    expect(c.runs.map((r) => [r.doc.status, r.doc.exitCode])).toEqual([
      ['conformant', 0],
      ['incomplete', 3],
    ]);
    expect([c.statusDiffers, c.differences, c.rows.some((r) => r.differs)]).toEqual([true, 0, false]);
    const md = renderCompareMd(c);
    expect(md).toContain('# Conformance compared: 2 targets, 1 difference\n');
    expect(md).toContain('## Differences (1)');
    expect(md.match(/The run status differs: /g)).toHaveLength(1);
    expect(renderCompareHtml(c)).toContain('<h2>Differences (1)</h2>');
    const out = mkdtempSync(path.join(tmpdir(), 'cmp-'));
    const cli = await compareCli([plain, strict, '--report-dir', out]);
    expect(cli.code).toBe(1);
    expect(cli.out.match(/differs: run status: .* conformant · .* incomplete\n/g)).toHaveLength(1);
    expect(cli.out).toContain('run statuses differ; 2 checks, 0 with different verdicts, 0 differing in scope only');
    // The same status everywhere: nothing differs, exit 0.
    const again = await compareCli([strict, runDir(checks, { required: 'full' }), '--report-dir', out]);
    expect([again.code, again.out.includes('differs')]).toEqual([0, false]);
  });

  it('a flag compare does not take (--json) is refused in the suite words, with the flags it takes', async () => {
    const r = await compareCli([staging, production, '--json']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('conformance compare: unknown flag --json; the flags are --report-dir, --all, --help (see --help)\n');
    expect((await compareCli([staging, production, '--al'])).err).toContain('unknown flag --al (did you mean --all?)');
    expect((await compareCli([staging, production, '--report-dir'])).err).toBe(
      'conformance compare: --report-dir needs a value (--report-dir=<value> for one that starts with -) (see --help)\n',
    );
  });
});

test('a line the egress gate withheld (masking could not make it safe) turns exit 0 into exit 2', async () => {
  // The target's host, printed in compare's column labels, spells one credential; masked, it spells the other.
  const same = [result('rpc.a', 'passed')];
  const runs = [runDir(same, { rpcUrl: 'https://prex-secret-ypost.example' }), runDir(same, { rpcUrl: 'https://prex-secret-ypost.example' })];
  const plain = await compareCli(runs);
  expect(plain.code).toBe(0);
  const out = capture();
  const err = capture();
  const code = await main(['compare', ...runs], { SECRETS: 'pre***post,x-secret-y' }, { out: out.stream, err: err.stream });
  expect(code).toBe(2);
  expect(err.text()).toContain('status: not published whole');
  expect(out.text() + err.text()).not.toMatch(/x-secret-y|pre\*\*\*post/);
});
