import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

const layers = (message, patterns) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
})

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
  // Imports flow one way: app/server (infrastructure) → app/features (rules) → app/routes (HTTP adapters).
  {
    files: ['app/server/**'],
    rules: layers('app/server is infrastructure: it must not depend on features or routes.', [
      '#app/features/**',
      '#app/routes/**',
      '**/features/**',
      '**/routes/**',
    ]),
  },
  {
    files: ['app/features/**', 'app/components/**'],
    rules: layers('Features and components must not depend on routes: routes compose them.', [
      '#app/routes/**',
      '**/routes/**',
    ]),
  },
  {
    files: ['app/components/ui/**'],
    rules: layers('UI primitives know nothing of the store’s domains.', [
      '#app/features/**',
      '**/features/**',
    ]),
  },
)
