/**
 * The shape of the codebase (issue: one-way dependencies, every check findable):
 * - no import cycle anywhere in src/, suites/, bench/ (type-only imports included);
 * - each folder imports only what it may (see docs/development.md, "Layout");
 * - clients observe, checks judge: no client reaches the verdict vocabulary;
 * - every check id that --list prints is written literally in suites/;
 * - no source splits a section string: sections derive from statement ids;
 * - nothing in src/ is there for the tests alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { allChecks } from '../../suites';
import { BLOCK_TAGS } from '../../src/harness/hex';
import { cyclesOf, importGraph, reachable, specifiersOf, type ImportGraph } from '../support/imports';

const ROOT = path.resolve(__dirname, '../..');
const graph = importGraph(ROOT, ['src', 'suites', 'bench']);
const files = [...graph.keys()];

describe('the import-graph reader', () => {
  test('finds every form of import, relative ones only', () => {
    const src = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      "export { c } from './c';",
      "export * from './d';",
      "import './side-effect';",
      "const e = require('./e');",
      "const f = await import('./f');",
      "import { readFileSync } from 'node:fs';",
      "import {\n  g,\n  type G,\n} from './g';",
    ].join('\n');
    expect(specifiersOf(src).sort()).toEqual(['../b', './a', './c', './d', './e', './f', './g', './side-effect']);
  });
  test('finds a cycle, a self-import, and none in a tree', () => {
    const g: ImportGraph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(cyclesOf(g)).toEqual([['a', 'b', 'c'], ['d']]);
    expect(
      cyclesOf(
        new Map([
          ['x', ['y']],
          ['y', []],
        ]),
      ),
    ).toEqual([]);
    expect([...reachable(g, 'e')].sort()).toEqual(['a', 'b', 'c']);
  });
  test('reads this repository (sanity: the graph is not empty and resolves)', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(graph.get('suites/index.ts')).toEqual(expect.arrayContaining(['suites/rest/index.ts', 'suites/rpc/index.ts']));
  });
});

describe('one-way dependencies', () => {
  test('no import cycle in src/, suites/, bench/', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  // Arrows of docs/development.md "Layout": what each folder may import (besides itself and packages).
  const MAY_IMPORT: Array<[folder: string, allowed: string[]]> = [
    ['src/harness/', []],
    ['suites/', ['src/harness/']],
    ['src/reference/', []],
    // The verdict (each outcome, the run's status and scope, root causes, results.json) is derived
    // from the harness's results alone: never from the CLI, a check or the embedded target.
    ['src/verdict/', ['src/harness/']],
    ['src/cli/', ['suites/', 'src/harness/', 'src/reference/', 'src/verdict/']],
    // The GitHub Action runs the CLI and reads what it wrote, with the CLI's gate and tables.
    ['src/action/', ['src/cli/', 'src/harness/', 'src/verdict/']],
    // The bench drives the reference with the same signing helpers its tests use.
    ['bench/', ['src/', 'suites/', 'test/reference/helpers.ts', 'test/support/documents.ts']],
  ];
  test.each(MAY_IMPORT)('%s imports only itself and %j', (folder, allowed) => {
    const bad = files
      .filter((f) => f.startsWith(folder))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((t) => !t.startsWith(folder) && !allowed.some((a) => t.startsWith(a)))
          .map((t) => `${f} -> ${t}`),
      );
    expect(bad).toEqual([]);
  });

  test('the verdict has a home of its own, below the CLI', () => {
    const verdict = files.filter((f) => f.startsWith('src/verdict/'));
    // A moved or renamed part must be listed again, not pass unseen.
    for (const part of ['outcome', 'status', 'scope', 'root-causes', 'seal', 'document', 'build-document']) expect(verdict).toContain(`src/verdict/${part}.ts`);
    const upward = verdict.flatMap((f) =>
      graph
        .get(f)!
        .filter((t) => ['src/cli/', 'src/reference/', 'suites/'].some((d) => t.startsWith(d)))
        .map((t) => `${f} -> ${t}`),
    );
    expect(upward).toEqual([]);
    // It decides from the results and the blockers the runner recorded, never from the runner itself.
    expect(verdict.filter((f) => graph.get(f)!.includes('src/harness/runner.ts'))).toEqual([]);
    // The harness it stands on never reaches back up into it.
    expect(files.filter((f) => f.startsWith('src/harness/') && graph.get(f)!.some((t) => t.startsWith('src/verdict/')))).toEqual([]);
  });

  // The configuration loads the signing key and the gate masks it: both stand below certificate/,
  // which signs and verifies with the keys signing-keys.ts reads, never the other way round.
  test.each(['src/cli/config.ts', 'src/cli/egress.ts', 'src/cli/signing-keys.ts'])('%s does not reach certificate/', (file) => {
    expect(graph.has(file)).toBe(true);
    expect([...reachable(graph, file)].filter((t) => t.startsWith('src/cli/certificate/'))).toEqual([]);
  });

  // forTerminal is the gate's: the gate, the jest adapter and the reports take it from beside the
  // gate (inert-text.ts), and the gate reaches no report.
  test('the gate reaches no report', () => {
    expect(graph.get('src/cli/egress.ts')).toContain('src/cli/inert-text.ts');
    expect([...reachable(graph, 'src/cli/egress.ts')].filter((t) => t.startsWith('src/cli/reporters/'))).toEqual([]);
  });

  test('the verdict vocabulary is a leaf but for the evidence ledger fail() records into, itself a leaf', () => {
    expect(graph.get('src/harness/verdict.ts')).toEqual(['src/harness/evidence.ts']);
    expect(graph.get('src/harness/evidence.ts')).toEqual([]);
  });

  // Clients record and return observations; they never reach fail/skip/inconclusive.
  const CLIENTS = ['http', 'rest', 'rpc', 'signer', 'transcript', 'redact'].map((m) => `src/harness/${m}.ts`);
  test.each(CLIENTS)('client %s does not reach the verdicts', (client) => {
    expect(graph.has(client)).toBe(true); // a moved or renamed client must be listed again, not pass unseen
    expect(reachable(graph, client).has('src/harness/verdict.ts')).toBe(false);
  });

  // Observers observe, checks judge: the pre-confirmation pass returns evidence, and every rule
  // it is weighed against (suites/preconf) states the verdict.
  test('the pre-confirmation pass does not import the verdict vocabulary', () => {
    const pass = files.filter((f) => f.startsWith('src/harness/preconf/'));
    expect(pass.length).toBeGreaterThan(5);
    expect(pass.filter((f) => graph.get(f)!.includes('src/harness/verdict.ts'))).toEqual([]);
  });

  test('the embedded reference is imported by the CLI only (and by the bench and tests)', () => {
    const importers = files.filter((f) => graph.get(f)!.some((t) => t.startsWith('src/reference/')) && !f.startsWith('src/reference/'));
    expect(importers.filter((f) => !f.startsWith('src/cli/') && !f.startsWith('bench/'))).toEqual([]);
  });
});

describe('a check gets exactly what it declared', () => {
  // CheckContext<N> types the clients a check's needs name; the runner builds them, none is forced.
  const text = files.filter((f) => f.startsWith('src/') || f.startsWith('suites/')).map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')] as const);
  test('no cast to a client, a signer or a context', () => {
    const casts = text.flatMap(([f, t]) =>
      (t.match(/\bas (Signer|RestClient|RpcClient|CheckContext|RunContext|OpenApiSource)\b/g) ?? []).map((m) => `${f}: ${m}`),
    );
    expect(casts).toEqual([]);
  });
  test('no placeholder client: an absent URL gives no client at all', () => {
    const placeholders = text.filter(([f, t]) => !f.startsWith('src/reference/') && /127\.0\.0\.1:9\b/.test(t)).map(([f]) => f);
    expect(placeholders).toEqual([]);
  });
});

describe('every check findable', () => {
  const suiteText = files
    .filter((f) => f.startsWith('suites/'))
    .map((f) => readFileSync(path.join(ROOT, f), 'utf8'))
    .join('\n');
  const ids = allChecks().map((c) => c.id);

  test.each(ids)('%s is written literally in suites/', (id) => {
    expect(suiteText).toContain(`'${id}'`);
  });

  // The per-block tables are written out by hand; none may lose a block parameter of 4.2.
  test.each(['rpc.getCode.block', 'rpc.getTransactionCount.block', 'rpc.getBlockReceipts.block', 'rpc.estimateGas.block'])(
    '%s.* covers every block parameter',
    (prefix) => {
      for (const key of [...BLOCK_TAGS, 'head-number']) expect(ids).toContain(`${prefix}.${key}`);
    },
  );
});

describe('a section string is for display only', () => {
  // A check's sections, and a failure's, derive from statement ids (sectionsOf, violatedSections):
  // a comma-joined `section` such as "4.3, 5.2" is shown, never split back into its parts.
  const SPLIT_SECTION = /\b\w*section\w*\)?\s*\??\.\s*split\(/i;

  it('the pattern catches what it is for', () => {
    for (const bad of ["section.split(',')", "r.section.split(', ')", "(c.failedSection ?? c.section).split(',')", 'meta.section?.split(/,/)'])
      expect(bad).toMatch(SPLIT_SECTION);
    for (const fine of ["id.split('.')", "sectionsOf(r.statements).join(', ')", "a.split('.').map(Number)"]) expect(fine).not.toMatch(SPLIT_SECTION);
  });

  it('no source in src/ or suites/ calls .split( on a section string', () => {
    const offenders = files
      .filter((f) => f.startsWith('src/') || f.startsWith('suites/'))
      .flatMap((f) =>
        readFileSync(path.join(ROOT, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (SPLIT_SECTION.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(files.filter((f) => f.startsWith('src/')).length).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });
});

describe("a target's text is cut with its mark", () => {
  // A check that quotes what a target answered cuts it with cut() (json.ts), whose mark (…) tells the
  // egress gate where the cut edge is: a secret's prefix left before it is masked. A bare .slice()
  // leaves no edge to see, so a key cut in two would be published half.
  const BARE_CUT = /\b(text|body)\.slice\(0,/;

  it('no check slices a text or body it quotes', () => {
    const offenders = files
      .filter((f) => f.startsWith('suites/'))
      .flatMap((f) =>
        readFileSync(path.join(ROOT, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (BARE_CUT.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(files.filter((f) => f.startsWith('suites/')).length).toBeGreaterThan(20);
    expect(offenders).toEqual([]);
  });
});

describe('readers only read the verdict', () => {
  // Each check's outcome and effect, the run's headline and its root causes are decided once
  // (src/verdict/outcome.ts, seal.ts) and stored in results.json. A reader (a report, the jest
  // adapter, the certificate and badge, compare, the Action) is given the ReaderDocument view
  // (src/verdict/reader.ts), whose checks have no raw status, level or cause: the compiler refuses a
  // reader that would decide again (test/unit/reader-view.test.ts proves the type). What is left to
  // look at here is that readers take that view, and not the raw document.
  const READERS = ['src/cli/reporters/', 'src/cli/jest/', 'src/cli/certificate/', 'src/cli/compare.ts', 'src/action/'];
  const readerFiles = () => files.filter((f) => READERS.some((r) => f.startsWith(r)));
  const linesOf = (f: string) => readFileSync(path.join(ROOT, f), 'utf8').split('\n');

  it('readers name the raw document only to write it, re-derive it, or turn what they parse into the view', () => {
    const all = readerFiles();
    // Every kind of reader is looked at: the reports, the jest adapter, the certificate, compare and the Action.
    for (const r of READERS) expect([r, all.some((f) => f.startsWith(r))]).toEqual([r, true]);
    const raw = /\b(RunDocument|Judged)\b/;
    const naming = all.filter((f) => linesOf(f).some((line) => raw.test(line)));
    // json.ts writes results.json; verify.ts re-derives it to catch an edit; live.ts judges what it re-ran now.
    const parsers = naming.filter((f) => !['src/cli/reporters/json.ts', 'src/cli/certificate/verify.ts', 'src/cli/certificate/live.ts'].includes(f));
    expect(parsers.sort()).toEqual(['src/action/main.ts', 'src/cli/compare.ts', 'src/cli/jest/checks.conformance.ts']);
    for (const f of parsers) expect([f, linesOf(f).some((line) => /\breaderDocument\(/.test(line))]).toEqual([f, true]);
  });

  it('no report, jest adapter or compare works the root causes or the headline out again', () => {
    const deciding = /\b(rootCauses|statusLine|deriveStatus|exitCodeFor)\(/;
    const offenders = readerFiles()
      // The verifier re-derives, to catch an edited document; --live judges what it re-ran now with the run's own functions.
      .filter((f) => f !== 'src/cli/certificate/verify.ts' && f !== 'src/cli/certificate/live.ts')
      .flatMap((f) => linesOf(f).flatMap((line, i) => (deciding.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])));
    expect(offenders).toEqual([]);
  });
});

describe('nothing in src/ is there for the tests alone', () => {
  // The product is what ships: an export of src/ that no product file uses (its own file included)
  // is test code in the package, or dead code a test keeps alive. Helpers for tests live in
  // test/support.
  const EXPORTED = /^export (?:async )?(?:const|let|function\*?|class|type|interface|enum) (\w+)/gm;
  const PRODUCT = ['src/', 'suites/', 'bench/', 'bin/', 'action/', 'scripts/'];
  const productFiles = () =>
    PRODUCT.flatMap((dir) =>
      readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|js|mjs)$/.test(f))
        .map((f) => path.join(dir, f)),
    );
  /** A source without its comments: a name a comment mentions is not a use of it. */
  const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  /** Exports of `file` that no product file uses: used means named in another product file's code, or again in its own. */
  const unused = (exportsOf: Map<string, string>, texts: Map<string, string>): string[] =>
    [...exportsOf].flatMap(([file, text]) =>
      [...text.matchAll(EXPORTED)].flatMap(([, name]) => {
        const word = new RegExp(`\\b${name}\\b`);
        const own = code(text).split(word).length > 2;
        const elsewhere = [...texts].some(([f, t]) => f !== file && word.test(code(t)));
        return own || elsewhere ? [] : [`${file}: ${name}`];
      }),
    );

  it('the rule catches what it is for', () => {
    const texts = new Map([
      [
        'src/a.ts',
        'export function used() {}\nexport const onlyTests = 1;\nexport type Local = string;\nconst x: Local = "";\n/** like named */\nexport const named = 2;',
      ],
      ['src/b.ts', "import { used } from './a';\n// a test keeps it equal to onlyTests\nconst url = 'https://x.example/'; /* named */"],
    ]);
    expect(unused(new Map([['src/a.ts', texts.get('src/a.ts')!]]), texts)).toEqual(['src/a.ts: onlyTests', 'src/a.ts: named']);
  });

  it('every export of src/ is used by the product', () => {
    const texts = new Map(productFiles().map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')]));
    const src = new Map([...texts].filter(([f]) => f.startsWith('src/') && f.endsWith('.ts')));
    expect(src.size).toBeGreaterThan(40);
    expect(unused(src, texts)).toEqual([]);
  });
});
