// @ts-check
// ESLint over the sources (tests/src/eslint.test.ts runs it in `npm test`; it must find nothing).
// Type-aware: typescript-eslint's project service finds each file's tsconfig.json.
// A rule that is wrong for this codebase as a whole is off below with its reason; a deliberate
// exception is one `// eslint-disable-next-line <rule> -- <reason>` line where it is.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/scratch/**'],
  },
  {
    files: ['libs/*/src/**/*.ts', 'services/*/src/**/*.ts', 'apps/*/src/**/*.ts', 'tests/src/**/*.ts', 'bench/src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // node:test's describe/it return promises the runner itself awaits and reports.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // An async method without await is how a Promise-returning interface is implemented here (fakes, close()):
      // a throw inside it becomes a rejection, as its callers expect.
      '@typescript-eslint/require-await': 'off',
      // Control characters in a pattern are always deliberate here (refusing NUL and control bytes, ANSI escapes).
      'no-control-regex': 'off',
      // `_name` is a value left out on purpose (a dropped field of a rest destructuring, an unused parameter), as for tsc.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // `VectorColumn | string` names the known values of an open string (a store a test adds is a string too).
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // A caught value is passed on as it was caught (catch (error) { reject(error) }).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // A let read by a closure made before its one assignment (a server's handler and the object it serves) cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests and test helpers read untyped JSON replies (JSON.parse, res.json()) and assert on their shape; typing each
    // reply only to read it would be noise, and an assertion failing says what was there.
    files: ['tests/src/**/*.ts', '**/*.spec.ts', 'libs/testing/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // Plain Node scripts (not in any tsconfig): the untyped rules only.
    files: ['scripts/**/*.mjs', 'deploy/**/*.mjs', 'apps/*/bin/**/*.mjs', 'eslint.config.mjs'],
    extends: [js.configs.recommended],
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
);
