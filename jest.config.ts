import type { Config } from 'jest';

// ts-jest transpiles only (isolatedModules); `npm test` type-checks once with tsc first.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 60_000,
  // Tests spawn anvil nodes; two workers match the 2-core CI machine.
  maxWorkers: 2,
  watchPathIgnorePatterns: ['<rootDir>/reports/'],
};

export default config;
