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
    // A call takes a spread array's elements as arguments, on the stack: past about 100 000 of them
    // (fewer deep in a run) it throws RangeError. The product's arrays are sized by what a target
    // answers or a user's files hold, so none is spread into a call: loop, or reduce.
    files: ['src/**/*.ts', 'suites/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'CallExpression > SpreadElement', message: 'no spread into a call (its length may overflow the stack): loop or reduce' },
        { selector: 'NewExpression > SpreadElement', message: 'no spread into a call (its length may overflow the stack): loop or reduce' },
      ],
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
