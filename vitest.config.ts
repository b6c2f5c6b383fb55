import { defineConfig } from 'vitest/config'

// Two projects: `unit` (rules and database-backed integration tests, in-process) and `e2e` (the production
// build as a real process, driven by Chromium). React Router's Vite plugin is left out: tests import modules
// directly.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['app/**/*.test.{ts,tsx}', 'server/**/*.test.ts', 'tests/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // One store and one browser are shared; files run one after another to keep timings honest on 2 cores.
          fileParallelism: false,
        },
      },
    ],
  },
})
