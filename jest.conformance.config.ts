import type { Config } from 'jest';

/**
 * The conformance suite through jest (`npm run conformance:jest`, or `npx jest -c
 * jest.conformance.config.ts`): globalSetup runs the suite once, exactly as `npm run conformance`
 * does (BASE_URL, RPC_URL, ONLY, GREP, … from the environment and .env; the embedded reference
 * when no URL is set; the same reports in REPORT_DIR), and each check becomes a test named by its
 * id. `npm test` (jest.config.ts: roots test/, *.test.ts) never collects this adapter.
 */
const config: Config = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/src/cli/jest'],
  testMatch: ['**/*.conformance.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/scripts/jest-transform.js' },
  globalSetup: '<rootDir>/src/cli/jest/global-setup.ts',
  // The run happens in globalSetup; the tests only read its results.
  testTimeout: 10_000,
  watchPathIgnorePatterns: ['<rootDir>/reports/'],
};

export default config;
