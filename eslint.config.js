import js from '@eslint/js'
import boundaries from 'eslint-plugin-boundaries'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

/**
 * The layers of the house and which may import which (docs/architecture.md). Imports are resolved to files
 * (the `#app/…` aliases and relative paths alike), so a wrong-way import fails `npm run lint` whatever it is
 * spelled like. Colocated `*.test.ts` files are tests: they may import anything.
 */
const layers = [
  { type: 'infrastructure', pattern: 'app/server/**' },
  { type: 'ui', pattern: 'app/components/**' },
  { type: 'feature', pattern: 'app/features/**' },
  { type: 'composition', pattern: 'app/compositions/**' },
  { type: 'url-map', pattern: 'app/routes.*' },
  { type: 'route', pattern: 'app/routes/**' },
  { type: 'app-entry', pattern: 'app/*' },
  { type: 'host', pattern: 'server/**' },
  { type: 'harness', pattern: 'harness/**' },
  { type: 'script', pattern: 'scripts/**' },
  { type: 'test', pattern: 'tests/**' },
]
export const mayImport = {
  // Database, auth, env, mail, storage: nothing of the store's domains.
  infrastructure: ['infrastructure'],
  // Generic UI: buttons, fields, icons, the error boundary.
  ui: ['ui'],
  // The store's rules, one folder per domain; a feature calls another's public functions.
  feature: ['infrastructure', 'ui', 'feature'],
  // Store-specific UI made of several features (the header, a book grid with cart buttons, the catalogue browser).
  composition: ['infrastructure', 'ui', 'feature', 'composition'],
  'url-map': [],
  // Thin HTTP adapters.
  route: ['infrastructure', 'ui', 'feature', 'composition', 'route', 'app-entry'],
  // root.tsx, entry.server.tsx, services.server.ts, startup.server.ts: where everything is wired.
  'app-entry': ['infrastructure', 'ui', 'feature', 'composition', 'app-entry'],
  // The HTTP host knows no domain: infrastructure and the one services/start-up entry.
  host: ['infrastructure', 'app-entry', 'host'],
  // Processes and data for tests, benchmarks and drills (the store, a cluster, PostgreSQL, buyers).
  harness: ['infrastructure', 'feature', 'app-entry', 'host', 'harness'],
  script: ['infrastructure', 'feature', 'url-map', 'app-entry', 'host', 'harness', 'script'],
  test: layers.map((layer) => layer.type),
}

export default tseslint.config(
  { ignores: ['build/', 'data/', 'drizzle/', '.react-router/', 'node_modules/', 'coverage/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['app/**', 'server/**', 'harness/**', 'scripts/**', 'tests/**'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { alwaysTryTypes: true } },
      'boundaries/elements': layers.map((layer) => ({ ...layer, partialMatch: false })),
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          message: 'A {{from.type}} must not import a {{to.type}} (the layers: docs/architecture.md).',
          policies: Object.entries(mayImport).map(([from, to]) => ({
            from: { element: { type: from } },
            allow: { to: { element: { types: { anyOf: to } } } },
          })),
        },
      ],
    },
  },
)
