import { test as base } from 'vitest'
import { createTestDatabase } from '#tests/db.ts'

/**
 * Vitest's `test` with the database of the test file: one fresh copy of the run's template per file (in-memory
 * PGlite, or a new database on PostgreSQL with TEST_DB=postgres: tests/db.ts), made when the file first asks for
 * it and disposed after its last test and `afterAll` hooks. A test takes it from its context:
 *
 *   test('lists the featured books', async ({ database }) => { … database.db … })
 *
 * A file whose helpers need it at module level binds it once, before its other hooks:
 *
 *   let database: TestDatabase
 *   test.beforeAll(({ database: fileDatabase }) => {
 *     database = fileDatabase
 *   })
 */
export const test = base.extend(
  'database',
  { scope: 'file' },
  async (
    // eslint-disable-next-line no-empty-pattern -- Vitest reads the fixtures a fixture needs from this pattern.
    {},
    { onCleanup },
  ) => {
    const database = await createTestDatabase()
    onCleanup(() => database.dispose())
    return database
  },
)
