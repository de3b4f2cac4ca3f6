// ESLint with typescript-eslint's type-aware rules: the compiler's view of each
// value lets the linter see a promise nobody awaits, a promise passed where the
// callback's result is ignored, or a switch that misses a member of its union.
// Run by `npm test` (`npm run lint`); docs/testing.md says how to fix findings.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** node:test's describe/it/test return promises that the runner itself awaits: they do not float. */
const NODE_TEST_CALLS = { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] };

/**
 * Deprecated APIs used on purpose. The MCP SDK's low-level `Server` is its API "for advanced use cases" such as a
 * proxy (the bridge, and the tests' raw servers), and `getClientCapabilities` reads a stdio session's initialize; the
 * SSE transports are the 2024-11-05 HTTP+SSE transport that the bridge and its tests still speak to old peers;
 * `convertLegacyHttpOptions` goes with the hand-built exporter (issue 25 moves tracing to the SDK's exporters).
 */
const DEPRECATED_ON_PURPOSE = [
  { from: 'package', package: '@modelcontextprotocol/server', name: ['Server', 'getClientCapabilities'] },
  { from: 'package', package: '@modelcontextprotocol/sdk', name: ['Server', 'SSEServerTransport'] },
  { from: 'package', package: '@modelcontextprotocol/client', name: ['SSEClientTransport'] },
  { from: 'package', package: '@opentelemetry/otlp-exporter-base', name: ['convertLegacyHttpOptions'] },
];

/** `any`-flow rules: where values are untyped on purpose (below), they would flag every use of one. */
const NO_UNSAFE_ANY_OFF = {
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default defineConfig(
  {
    // Generated (scripts/generate-validators.ts) or written by runs, not by hand.
    // bench/lib/*.mjs: preloads of a benched child, outside tsconfig.json; the default project takes at most 8 files.
    // tasks.mjs: the script docs/translation.md has a reader save in the clone (git-ignored too).
    ignores: ['dist/', 'dist-*/', '.test-js-*/', 'test/artifacts/', 'bench/results/', 'src/**/generated/', 'bench/lib/*.mjs', 'tasks.mjs'],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        // The JavaScript files are outside tsconfig.json: the project service gives them a default program. Its default
        // cap is 8 such files; there are 9 (test/file-durations.mjs the ninth), and a cap met fails the lint.
        projectService: {
          allowDefaultProject: ['*.js', 'scripts/*.mjs', 'test/*.mjs', 'test/helpers/*.mjs', 'assets/console/*.js'],
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [NODE_TEST_CALLS] }],
      // A `default:` is this code's deliberate "every other member" branch; a switch without one must name every member.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-deprecated': ['error', { allow: DEPRECATED_ON_PURPOSE }],
      // `_`-prefixed names and rest siblings are how this code drops a value on purpose (`const { secret: _s, ...rest } = x`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A `let` read by a closure made before its one assignment (wiring that refers to a part built later) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // An aborted wait rejects with the signal's own `reason` (typed any), as AbortSignal.throwIfAborted() throws it.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true }],
      // Off: `async` without `await` is used on purpose, to meet a Promise-returning interface and to turn a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // Off: String(value) of untrusted JSON is this code's deliberate best-effort text for messages; the rule cannot tell it from a mistake.
      '@typescript-eslint/no-base-to-string': 'off',
      // Off: `'known' | string` documents the expected values of a field that admits others.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
    },
  },
  {
    // Tests read peers' JSON answers as `any` and assert on them at once: a wrong shape fails the assertion.
    files: ['test/**', '**/*.test.ts'],
    rules: { ...NO_UNSAFE_ANY_OFF, '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript has no declared types: every parsed value is `any`.
    files: ['**/*.js', '**/*.mjs'],
    rules: NO_UNSAFE_ANY_OFF,
  },
  {
    files: ['assets/console/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
);
