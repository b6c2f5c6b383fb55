import js from '@eslint/js'
import boundaries from 'eslint-plugin-boundaries'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

/**
 * The layers of the house and which may import which (docs/architecture.md). Imports are resolved to files
 * (the `#app/…` aliases and relative paths alike), so a wrong-way import fails `npm run lint` whatever it is
 * spelled like. Colocated `*.test.ts` files are tests: they may import anything.
 *
 * Folders are elements; the files directly in app/ are told apart by file category (boundaries/files), as the
 * plugin matches element patterns against folders only: an element pattern naming files classified nothing,
 * so imports of app/routes.ts or app/root.tsx went unchecked.
 */
const layers = [
  { type: 'infrastructure', pattern: 'app/server/**' },
  { type: 'ui', pattern: 'app/components/**' },
  { type: 'feature', pattern: 'app/features/**' },
  { type: 'composition', pattern: 'app/compositions/**' },
  { type: 'route', pattern: 'app/routes/**' },
  { type: 'host', pattern: 'server/**' },
  { type: 'harness', pattern: 'harness/**' },
  { type: 'script', pattern: 'scripts/**' },
  { type: 'test', pattern: 'tests/**' },
]
/** The files directly in app/, the first matching category each. */
const appFiles = [
  { category: 'url-map', pattern: 'app/routes.ts' },
  // The store as the HTTP host sees it: services, start-up and sweeps, the page cache's visitor key.
  { category: 'store-entry', pattern: 'app/{services,startup,visitor-key}.server.ts' },
  // root.tsx, entry.server.tsx, sign-in.server.ts: where the pages are wired.
  { category: 'app-entry', pattern: 'app/*.{ts,tsx}' },
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
  'store-entry': ['infrastructure', 'feature', 'store-entry'],
  'app-entry': ['infrastructure', 'ui', 'feature', 'composition', 'store-entry', 'app-entry'],
  // The HTTP host knows no domain: infrastructure and the store's entry (services, start-up, visitor key).
  host: ['infrastructure', 'store-entry', 'host'],
  // Processes and data for tests, benchmarks and drills (the store, a cluster, PostgreSQL, buyers).
  harness: ['infrastructure', 'feature', 'store-entry', 'app-entry', 'host', 'harness'],
  script: ['infrastructure', 'feature', 'url-map', 'store-entry', 'app-entry', 'host', 'harness', 'script'],
  test: [...layers.map((layer) => layer.type), ...appFiles.map((file) => file.category)],
}
const appFileCategories = new Set(appFiles.map((file) => file.category))
/** How a policy selects a layer: a folder by its element type, a file in app/ by its category. */
const selectorOf = (layer) =>
  appFileCategories.has(layer) ? { file: { categories: layer } } : { element: { type: layer } }

export default tseslint.config(
  { ignores: ['build/', 'scripts/lighthouse-baseline/build/', 'data/', 'drizzle/', '.react-router/', 'node_modules/', 'coverage/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // A route's import of only types from a .server module must be `import type`: an inline `{ type A }` import
      // stays in the client bundle, and the build refuses a server module there.
      '@typescript-eslint/no-import-type-side-effects': 'error',
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
      'boundaries/files': appFiles,
      'boundaries/files-single-match': true,
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          message:
            'The {{from.type}}{{from.file.categories}} layer must not import the {{to.type}}{{to.file.categories}} layer (docs/architecture.md).',
          policies: Object.entries(mayImport)
            .filter(([, to]) => to.length > 0)
            .map(([from, to]) => ({ from: selectorOf(from), allow: { to: to.map(selectorOf) } })),
        },
      ],
    },
  },
)
