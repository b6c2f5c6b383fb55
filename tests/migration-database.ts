import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { openDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'
import { adminQuery } from '#tests/db.ts'

/*
 * For tests of a data migration: a database of its own (PGlite, or a fresh database on the PostgreSQL server
 * under `npm run test:postgres`), brought to the schema as it was before the migration, so the test can write
 * rows in the old shape and then run the rest (`handle.migrate()`).
 */

const drizzleFolder = path.resolve(import.meta.dirname, '../drizzle')

export type MigrationDatabase = { handle: DatabaseHandle; dispose: () => Promise<void> }

/** An empty database of its own; `dispose` closes it (and drops it on PostgreSQL). */
export async function openMigrationDatabase(): Promise<MigrationDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (process.env.TEST_DB !== 'postgres') {
    const handle = await openDatabase({ kind: 'pglite' })
    return { handle, dispose: () => handle.close() }
  }
  if (!serverUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL')
  const name = `codebook_migration_${crypto.randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 })
  return {
    handle,
    dispose: async () => {
      await handle.close()
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`)
    },
  }
}

/** The migrations folder as it was up to `lastTag`, copied to a temporary folder. */
function migrationsUpTo(lastTag: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-migrations-'))
  fs.mkdirSync(path.join(folder, 'meta'))
  const journal = JSON.parse(fs.readFileSync(path.join(drizzleFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[]
  }
  const last = journal.entries.findIndex((entry) => entry.tag === lastTag)
  if (last < 0) throw new Error(`no migration ${lastTag}`)
  journal.entries = journal.entries.slice(0, last + 1)
  fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify(journal))
  for (const { tag } of journal.entries)
    fs.copyFileSync(path.join(drizzleFolder, `${tag}.sql`), path.join(folder, `${tag}.sql`))
  return folder
}

/** Runs the migrations up to and including `lastTag`, no further. */
export async function migrateUpTo(handle: DatabaseHandle, lastTag: string): Promise<void> {
  const migrationsFolder = migrationsUpTo(lastTag)
  if (handle.kind === 'pglite')
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder })
  else await migratePostgres(handle.db as unknown as NodePgDatabase, { migrationsFolder })
}
