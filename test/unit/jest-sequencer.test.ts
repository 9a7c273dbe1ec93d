// The order jest starts the test files in (scripts/jest-sequencer.js): longest first, from jest's
// cache where an earlier run filled it, else from test/durations.json, so a clean clone (CI) does
// not start the fault catalogue's shards last.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const LongestFirst = require('../../scripts/jest-sequencer.js') as new (o?: object) => {
  sort(tests: Test[]): Test[];
  cacheResults(tests: Test[], results: object): void;
};

const ROOT = path.join(__dirname, '../..');
const recorded = (JSON.parse(readFileSync(path.join(ROOT, 'test/durations.json'), 'utf8')) as { seconds: Record<string, number> }).seconds;

interface Test {
  path: string;
  duration?: number;
  context: {
    config: { cache: boolean; cacheDirectory: string; id: string; haste: object; name: string; rootDir: string };
    hasteFS: { getSize: (p: string) => number };
  };
}

/** Test files as jest hands them to the sequencer, with a cache folder of their own (empty: a clean clone). */
function tests(files: string[], cacheDirectory = mkdtempSync(path.join(tmpdir(), 'sequencer-'))): Test[] {
  // One context for all, as jest gives one project's files. Sizes as jest would see them: the
  // shards are among the smallest files, and size is jest's own rule.
  const context = {
    config: { cache: true, cacheDirectory, id: 'main', haste: {}, name: 'main', rootDir: ROOT },
    hasteFS: { getSize: (p: string) => readFileSync(p).length },
  };
  return files.map((f) => ({ path: path.join(ROOT, f), context }));
}
const order = (ts: Test[]) => new LongestFirst().sort(ts).map((t) => path.relative(ROOT, t.path));

it('from a clean clone: the recorded longest files first, longest first, files not recorded after them', () => {
  const files = [
    'test/unit/formats.test.ts',
    'test/faults/faults-rest.test.ts',
    'test/faults/faults-preconf.test.ts',
    'test/unit/reporters.test.ts',
    'test/e2e/cli.test.ts',
  ];
  const got = order(tests(files));
  const long = files.filter((f) => recorded[f] !== undefined).sort((a, b) => recorded[b] - recorded[a]);
  expect(long.length).toBeGreaterThanOrEqual(3);
  // Longest first by the recorded seconds; files recorded alike may come in either order.
  expect(got.slice(0, long.length).map((f) => recorded[f])).toEqual(long.map((f) => recorded[f]));
  expect(new Set(got.slice(0, long.length))).toEqual(new Set(long));
  expect(got).toHaveLength(files.length);
});

it("jest's own figure from an earlier run on this machine wins over the recorded one", () => {
  const files = ['test/faults/faults-preconf.test.ts', 'test/e2e/cli.test.ts'];
  const ts = tests(files);
  // An earlier run here found cli.test.ts the longer (jest's cache, as jest writes it).
  new LongestFirst().cacheResults(ts, {
    testResults: [
      { testFilePath: ts[0].path, numFailingTests: 0, perfStats: { runtime: 1_000 } },
      { testFilePath: ts[1].path, numFailingTests: 0, perfStats: { runtime: 500_000 } },
    ],
  });
  expect(order(tests(files, ts[0].context.config.cacheDirectory))).toEqual(['test/e2e/cli.test.ts', 'test/faults/faults-preconf.test.ts']);
});

it('test/durations.json names only test files there are, each with a whole number of seconds', () => {
  const missing = Object.keys(recorded).filter((f) => !existsSync(path.join(ROOT, f)) || !f.endsWith('.test.ts'));
  expect(missing).toEqual([]);
  for (const s of Object.values(recorded)) expect(Number.isInteger(s) && s >= 2).toBe(true);
  // The catalogue's shards, which jest's size rule would start last, are there.
  expect(Object.keys(recorded)).toEqual(expect.arrayContaining(['test/faults/faults-preconf.test.ts', 'test/faults/faults-replay.test.ts']));
});

it('--record writes the figures of a jest --json output, from this checkout or another clone, of files there are', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'record-'));
  const out = path.join(dir, 'jest.json');
  const r = (name: string, s: number) => ({ name, startTime: 1_000, endTime: 1_000 + s * 1000 });
  writeFileSync(
    out,
    JSON.stringify({
      testResults: [
        r(path.join(ROOT, 'test/unit/formats.test.ts'), 1.2),
        r('/tmp/ci-clone/test/p/test/faults/faults-rest.test.ts', 61.6),
        r(path.join(ROOT, 'test/e2e/cli.test.ts'), 2.4),
        r(path.join(ROOT, 'test/unit/removed-since.test.ts'), 30),
      ],
    }),
  );
  const { recordInto } = require('../../scripts/jest-sequencer.js') as { recordInto: (jestJson: string, to: string) => number };
  const to = path.join(dir, 'durations.json');
  expect(recordInto(out, to)).toBe(2);
  expect(JSON.parse(readFileSync(to, 'utf8')).seconds).toEqual({ 'test/e2e/cli.test.ts': 2, 'test/faults/faults-rest.test.ts': 62 });
});
