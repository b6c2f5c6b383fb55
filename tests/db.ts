import crypto from 'node:crypto'
import pg from 'pg'
import { seedCatalog } from '#app/features/catalog/catalog.server.ts'
import { openDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'

/**
 * A fresh, migrated and seeded database for one test file: in-memory PGlite by default; a new database on
 * the PostgreSQL server at TEST_DATABASE_URL when TEST_DB=postgres (npm run test:postgres), dropped after.
 */
export async function createTestDatabase(): Promise<DatabaseHandle & { dispose(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (process.env.TEST_DB !== 'postgres') {
    const handle = await openDatabase({ kind: 'pglite' })
    await prepare(handle)
    return { ...handle, dispose: () => handle.close() }
  }
  if (!serverUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL')
  const name = `codebook_test_${crypto.randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 4 })
  await prepare(handle)
  return {
    ...handle,
    dispose: async () => {
      await handle.close()
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`)
    },
  }
}

async function prepare(handle: DatabaseHandle) {
  await handle.migrate()
  await seedCatalog(handle.db)
}

/** Runs one statement on a PostgreSQL server as its own connection (creating and dropping databases). */
export async function adminQuery(url: string, text: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}
