import os from 'node:os'
import { defineConfig } from 'vitest/config'

// Two projects: `unit` (rules and database-backed integration tests, in-process) and `e2e` (the production
// build as a real process, driven by Chromium). React Router's Vite plugin is left out: tests import modules
// directly.
export default defineConfig({
  test: {
    // Vitest's default leaves a core for itself (one worker on a 2-core machine); the database-backed test files
    // wait on PGlite, PostgreSQL and the password hasher's threads often enough that two workers there took the
    // unit run from 232 s to 141 s (with the template database below).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'app/**/*.test.{ts,tsx}',
            'server/**/*.test.ts',
            'scripts/**/*.test.ts',
            'harness/**/*.test.ts',
            'tests/integration/**/*.test.ts',
          ],
          environment: 'node',
          // One migrated, seeded database for the run, copied by each test file (tests/db.ts).
          globalSetup: ['tests/template-database.ts'],
          // A test file that uses file storage must be in the S3 suite too (harness/storage-suite.ts).
          setupFiles: ['tests/storage-suite-guard.ts'],
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
