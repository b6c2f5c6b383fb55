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
// Vitest reads which fixtures a fixture needs from its first parameter, which must be a destructuring pattern.
// eslint-disable-next-line no-empty-pattern
export const test = base.extend('database', { scope: 'file' }, async ({}, { onCleanup }) => {
  const database = await createTestDatabase()
  onCleanup(() => database.dispose())
  return database
})
