// Lint for the TypeScript: `npm run lint` runs it beside the contract lint and the
// format check (Prettier, .prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['generated/', '**/dist/', '**/node_modules/', 'patches/', 'test-artifacts/', 'data/'] },
  // A disable comment that suppresses nothing is an error: it would hide the next real finding.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused on purpose: leading underscore (an express handler's unused `req`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests and the gate read JSON answers whose shape is exactly what they check.
    files: ['**/*.test.ts', 'gate/**', 'server/testing/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
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
