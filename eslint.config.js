// Lint for the TypeScript: `npm run lint` runs it beside the contract lint and the
// format check (Prettier, .prettierrc.json).
//
// typescript-eslint's strictTypeChecked, with the type information of tsconfig.json,
// and these reasoned departures (docs/development.md, "Lint"):
// - numbers and booleans may appear in template strings (messages and logs print them);
// - an arrow may return a call whose value is void, and `void` may mark a promise or
//   value dropped on purpose (express handlers, `return void write(…)`);
// - node:test's describe/it/before/after return promises the runner awaits itself;
// - an `async` function need not await: it still turns a throw into a rejection, and
//   many implement an interface that returns a promise (handlers, stand-ins);
// - spreading a string is how we split it into code points (`split('')` would cut a
//   surrogate pair in two);
// - tests, the gate, the test support, the development scripts and lib/contract (which
//   reads the contract's JSON) read JSON documents whose shape is what they check:
//   `any`, the unsafe-* rules, deleting a computed key and `+` on a stream's chunks are
//   allowed there; their `!` after a lookup is an assertion that fails loudly, as a test
//   should, and their `?.` on a typed value keeps a failing check a failed assertion
//   rather than a TypeError.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const readsJsonDocuments = [
  '**/*.test.ts',
  'gate/**/*.ts',
  'server/testing/**/*.ts',
  'server/store/testing/**/*.ts',
  'cli/testing/**/*.ts',
  'lib/testing/**/*.ts',
  'lib/contract/**/*.ts',
  'scripts/**/*.ts',
];

export default tseslint.config(
  { ignores: ['generated/', '**/dist/', '**/node_modules/', 'patches/', 'test-artifacts/', 'data/'] },
  // A disable comment that suppresses nothing is an error: it would hide the next real finding.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Unused on purpose: leading underscore (an express handler's unused `req`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidOperator: true }],
      '@typescript-eslint/no-meaningless-void-operator': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach', 'suite'],
            },
          ],
        },
      ],
    },
  },
  {
    files: readsJsonDocuments,
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-dynamic-delete': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/restrict-plus-operands': ['error', { allowAny: true }],
    },
  },
  {
    // Plain JavaScript run by node before anything is built (scripts/build-in-development.mjs).
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    // Dredd loads its hook files with require().
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', globalThis: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
