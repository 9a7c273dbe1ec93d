import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Config } from 'jest';

/**
 * The test files that keep a core busy (they import test/support/busy-core.ts), found by their
 * import so no list has to be kept: a busy core beside another worker's timing-sensitive test
 * is a flake, so `npm test` runs these in a project of their own, one at a time, after the rest
 * (scripts/jest-tiers.js).
 */
export function busyCoreTests(root = path.join(__dirname, 'test')): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) walk(file);
      else if (e.name.endsWith('.test.ts') && /from '(\.\.\/)+support\/busy-core'/.test(readFileSync(file, 'utf8'))) found.push(file);
    }
  };
  walk(root);
  return found.sort();
}

const BUSY = busyCoreTests();
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Project = Exclude<NonNullable<Config['projects']>[number], string>;

// esbuild transpiles only (scripts/jest-transform.js, tsconfig isolatedModules); `npm test` type-checks with tsc.
const project: Project = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': '<rootDir>/scripts/jest-transform.js' },
  watchPathIgnorePatterns: ['<rootDir>/reports/'],
};

const config: Config = {
  testTimeout: 60_000,
  // Longest first, also from a clean clone (scripts/jest-sequencer.js, test/durations.json).
  testSequencer: '<rootDir>/scripts/jest-sequencer.js',
  // One worker per core; `npm test` adds one for every two cores idle at its start
  // (scripts/jest-tiers.js): the tests mostly wait on block clocks.
  maxWorkers: availableParallelism(),
  // One temporary folder per run, removed at its end (test/support/run-tmpdir.ts).
  globalSetup: '<rootDir>/test/support/run-tmpdir.ts',
  globalTeardown: '<rootDir>/test/support/run-tmpdir-teardown.ts',
  projects: [
    { ...project, displayName: 'main', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', ...BUSY.map(escape)] },
    { ...project, displayName: 'busy-core', testMatch: BUSY },
  ],
};

export default config;
