// `npm test`'s shape: the tests that keep a core busy run in a project of their own (one at a
// time, after the rest: scripts/jest-tiers.js), found by their import of test/support/busy-core.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import config, { busyCoreTests } from '../../jest.config';

const ROOT = path.join(__dirname, '../..');
type Project = { displayName?: unknown; testMatch?: string[]; testPathIgnorePatterns?: string[] };
const projects = (config.projects ?? []) as Project[];
const named = (name: string) => projects.find((p) => p.displayName === name)!;

it('finds every test file that keeps a core busy, and only those go to the busy-core project', () => {
  const busy = busyCoreTests();
  expect(busy.map((f) => path.relative(ROOT, f))).toEqual(
    expect.arrayContaining(['test/e2e/busy-runner.test.ts', 'test/faults/fleet-preconf.test.ts', 'test/preconf/load.test.ts']),
  );
  for (const f of busy) expect(readFileSync(f, 'utf8')).toMatch(/support\/busy-core'/);
  expect(named('busy-core').testMatch).toEqual(busy);
  const ignored = named('main').testPathIgnorePatterns!.map((p) => new RegExp(p));
  for (const f of busy) expect(ignored.some((re) => re.test(f))).toBe(true);
  expect(ignored.some((re) => re.test(path.join(ROOT, 'test/unit/jest-tiers.test.ts')))).toBe(false);
});

it('npm test runs the main project, then the busy-core one in band', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.test).toMatch(/node scripts\/jest-tiers\.js$/);
  const tiers = readFileSync(path.join(ROOT, 'scripts/jest-tiers.js'), 'utf8');
  expect(tiers).toMatch(/\['--selectProjects', 'main'\],\s*\['--selectProjects', 'busy-core', '--runInBand'\]/);
});
