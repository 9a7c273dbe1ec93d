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

// ts-jest transpiles only (tsconfig isolatedModules); `npm test` type-checks once with tsc first.
const project: Project = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  watchPathIgnorePatterns: ['<rootDir>/reports/'],
};

const config: Config = {
  testTimeout: 60_000,
  // One and a half workers per core (3 on the 2-core CI machine). Most of a test's time is spent
  // waiting on a chain's block clock, not computing: with one worker per core the machine stayed a
  // third idle (bench/HISTORY.md). Four workers on two cores gained little more and load the
  // timing-sensitive tests harder; the main tier also passes with one core kept busy at three.
  maxWorkers: Math.max(1, Math.floor(availableParallelism() * 1.5)),
  // One temporary folder per run, removed at its end (test/support/run-tmpdir.ts).
  globalSetup: '<rootDir>/test/support/run-tmpdir.ts',
  globalTeardown: '<rootDir>/test/support/run-tmpdir-teardown.ts',
  projects: [
    { ...project, displayName: 'main', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', ...BUSY.map(escape)] },
    { ...project, displayName: 'busy-core', testMatch: BUSY },
  ],
};

export default config;
