// One lint configuration for the whole project: typescript-eslint's recommended rules, plus the
// few that keep the code honest about what it means (no unused values, no shadowed globals).
// Formatting is Prettier's job (.prettierrc.json); nothing here argues about layout.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist', 'dist/', '.dist-builds/', 'node_modules/', 'coverage/', 'reports*/', 'src/reference/contracts/artifacts.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Node's CommonJS loader is used on purpose where a module must load lazily (the embedded target).
      '@typescript-eslint/no-require-imports': 'off',
      'no-shadow-restricted-names': 'error',
      'no-control-regex': 'off', // the suite matches control characters in untrusted text on purpose
    },
  },
  {
    files: ['test/**/*.ts', 'suites/**/*.ts', 'jest*.ts'],
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
  },
  {
    // Tests read untyped JSON (fixtures, raw answers) and poke at it; production code may not.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module' },
  },
);
