import crypto from 'node:crypto'
import fs from 'node:fs'
import pg from 'pg'
import { inject } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { openDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'

/** A test file's database (tests/fixtures.ts gives each file one): Drizzle, the pool's handle, and `dispose`. */
export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>

/**
 * A fresh, migrated and seeded database for one test file: in-memory PGlite by default; a new database on
 * the PostgreSQL server at TEST_DATABASE_URL when TEST_DB=postgres (npm run test:postgres), dropped after.
 * Both are copies of the run's template (tests/template-database.ts) when the unit project's global setup made
 * one, else migrated and seeded here.
 */
export async function createTestDatabase(): Promise<DatabaseHandle & { dispose(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL
  const template = inject('templateDatabase')
  if (process.env.TEST_DB !== 'postgres') {
    const from = template?.kind === 'pglite' ? new Blob([fs.readFileSync(template.dumpFile)]) : undefined
    const handle = await openDatabase({ kind: 'pglite', from })
    if (!from) await prepare(handle)
    return { ...handle, dispose: () => handle.close() }
  }
  if (!serverUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL')
  const fromTemplate = template?.kind === 'postgres' ? template.name : undefined
  const server = await createServerDatabase(serverUrl, 'codebook_test', fromTemplate)
  const handle = await openDatabase({ kind: 'postgres', url: server.url, poolSize: 4 })
  if (!fromTemplate) await prepare(handle)
  return {
    ...handle,
    dispose: async () => {
      await handle.close()
      await server.drop()
    },
  }
}

/** A new database on the PostgreSQL server at `serverUrl` (a copy of `template` when given): its URL, and drop. */
export async function createServerDatabase(serverUrl: string, prefix: string, template?: string) {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}${template ? ` template ${template}` : ''}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`),
  }
}

/** Migrates and seeds a new database. */
export async function prepare(handle: DatabaseHandle) {
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
