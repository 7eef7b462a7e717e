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

// The layers (docs/architecture.md, "Layers"): the doors (the workspace API's handlers, SCIM,
// the admin command) go through the directory, the directory through the store, and no
// layer imports one above it; test support stays out of production. Each rule below says
// itself when an import breaks it. Tests and test support may reach anywhere.
const notTests = ['**/*.test.ts', '**/testing/**'];
const rule = (regex, message) => ({ regex, message });
const NO_TEST_SUPPORT = rule('(^|/)testing/', 'production code never imports test support (testing/): it would ship in server/dist.');
const NO_STORE = rule(
  '(^|/)store/(?!repositories\\.js$)',
  'a door reads and writes through the directory (server/directory/index.js), never the store; only the Store handle it builds the directory on (store/repositories.js) may be named.',
);
const NO_RULES = rule(
  '(^|/)((password|username|attributes|webhooks)/|keys/api-keys)',
  "the rules of users, passwords, attributes, keys and webhooks are the directory's: a door calls server/directory/index.js, which applies them.",
);
const ONLY_DIRECTORY_INDEX = rule(
  '(^|/)directory/(?!index\\.js$)',
  'a door imports the directory by its front, server/directory/index.js.',
);
// (The HTTP layer serves the pages with the handlers' types, handlers/types.js, and nothing else of them.)
const NO_KASM_DOOR = rule(
  '(^|/)handlers/(?!types\\.js$)',
  "the workspace API's handlers are a door: nothing but the app's assembly imports them (SCIM least of all).",
);
const NO_SCIM_DOOR = rule('^(?!.*generated/)(.*/)?scim/', "SCIM is a door: nothing but the app's assembly imports it.");
const NO_ADMIN_DOOR = rule('(^|/)admin/', 'the admin command is a door: nothing imports it but its own main.');
const NO_DOORS = [NO_KASM_DOOR, NO_SCIM_DOOR, NO_ADMIN_DOOR];
const NO_HTTP = rule('(^|/)http/', "below the doors nothing speaks HTTP: a door says the directory's answers in its protocol.");
const NO_DIRECTORY = rule('(^|/)directory/', 'the store is below the directory and never imports it.');
const restricting = (files, patterns, ignores = []) => ({
  files,
  ignores: [...notTests, ...ignores],
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});
const layers = [
  restricting(['server/handlers/**/*.ts'], [NO_TEST_SUPPORT, NO_STORE, NO_RULES, ONLY_DIRECTORY_INDEX, NO_SCIM_DOOR, NO_ADMIN_DOOR]),
  restricting(['server/scim/**/*.ts'], [NO_TEST_SUPPORT, NO_STORE, NO_RULES, ONLY_DIRECTORY_INDEX, NO_KASM_DOOR, NO_ADMIN_DOOR]),
  restricting(
    ['server/admin/**/*.ts'],
    [
      NO_TEST_SUPPORT,
      // The database's own commands (migrate, backup, restore) are the store's, not the directory's.
      rule(
        '(^|/)store/(?!(repositories|open-store|maintenance)\\.js$)',
        'the admin command changes the directory through server/directory/index.js; of the store it uses only the database commands (open-store, maintenance).',
      ),
      NO_RULES,
      ONLY_DIRECTORY_INDEX,
      NO_KASM_DOOR,
      NO_SCIM_DOOR,
    ],
    ['server/admin/main.ts'],
  ),
  restricting(['server/directory/**/*.ts'], [NO_TEST_SUPPORT, ...NO_DOORS, NO_HTTP]),
  restricting(['server/store/**/*.ts'], [NO_TEST_SUPPORT, ...NO_DOORS, NO_HTTP, NO_DIRECTORY]),
  restricting(
    ['server/**/*.ts', 'lib/**/*.ts', 'client/**/*.ts', 'cli/**/*.ts'],
    [NO_TEST_SUPPORT, ...NO_DOORS],
    // The assembly of the service, which puts the doors in front of the directory.
    [
      'server/handlers/**',
      'server/scim/**',
      'server/admin/**',
      'server/directory/**',
      'server/store/**',
      'server/main.ts',
      'server/app.ts',
    ],
  ),
  restricting(['server/main.ts', 'server/app.ts', 'server/admin/main.ts'], [NO_TEST_SUPPORT]),
];

export default tseslint.config(
  { ignores: ['generated/', '**/dist/', '**/node_modules/', 'patches/', 'test-artifacts/', 'data/'] },
  // A disable comment that suppresses nothing is an error: it would hide the next real finding.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [...tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions: { project: ['./tsconfig.json', './console/tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
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
    // What the service makes for each request stays young: V8 allocates an object literal's
    // accessor pair, and a function written straight into a property, in its old generation, and
    // whatever such a function closes over (a request, its response) then survives the young
    // generation's collections until a full one (BENCHMARKS.md, "What outlives a scavenge").
    files: ['server/**/*.ts', 'lib/**/*.ts'],
    ignores: ['**/*.test.ts', 'server/testing/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: ':function Property[kind=/^(get|set)$/]',
          message:
            "An object literal's getter or setter made at run time is kept in V8's old generation with what it closes over: use a value, a method, or a class's accessor.",
        },
        {
          selector:
            ":function AssignmentExpression[left.type='MemberExpression'] > :matches(FunctionExpression, ArrowFunctionExpression).right, :function AssignmentExpression[left.type='MemberExpression'] > TSAsExpression.right > :matches(FunctionExpression, ArrowFunctionExpression)",
          message:
            'V8 allocates a function written straight into a property in its old generation, with what it closes over: name it first (const f = …; object.property = f).',
        },
      ],
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
  ...layers,
);
