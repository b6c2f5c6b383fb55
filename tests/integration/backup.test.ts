import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { count, eq } from 'drizzle-orm'
import { afterAll, expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { openDatabase, type DatabaseOptions } from '#app/server/db/database.server.ts'
import { books, libraryItems, orders, user } from '#app/server/db/schema/index.server.ts'
import { createBackup, restoreBackup } from '#server/backup.ts'
import { adminQuery } from '#tests/db.ts'
import { createBuyer } from '#harness/factories/buyers.ts'

const folders: string[] = []
function tempFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-backup-'))
  folders.push(folder)
  return folder
}
const serverUrl = process.env.TEST_DB === 'postgres' ? process.env.TEST_DATABASE_URL : undefined
const databases: string[] = []
afterAll(async () => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true })
  if (serverUrl)
    for (const name of databases) await adminQuery(serverUrl, `drop database if exists ${name} with (force)`)
})

/** The store's configuration for this test: PostgreSQL on the test server, else PGlite in the data folder. */
async function storeEnv(): Promise<{ DATA_DIR: string; DATABASE_URL?: string; options: DatabaseOptions }> {
  const dataDir = tempFolder()
  if (!serverUrl) return { DATA_DIR: dataDir, options: { kind: 'pglite', dataDir: path.join(dataDir, 'db') } }
  const name = `codebook_backup_${crypto.randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}`)
  databases.push(name)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    options: { kind: 'postgres', url: url.toString() },
  }
}

test('backup, then damage, then restore: orders, accounts, books and uploaded files are back as they were', async () => {
  const env = await storeEnv()
  let database = await openDatabase(env.options)
  await database.migrate()
  await seedCatalog(database.db)
  const [book] = await database.db.select({ id: books.id }).from(books).limit(1)
  const buyer = await createBuyer(database.db, [book!.id])
  const cover = path.join(env.DATA_DIR, 'files', 'covers', 'uploaded.avif')
  fs.mkdirSync(path.dirname(cover), { recursive: true })
  fs.writeFileSync(cover, 'cover bytes')
  const before = await tally(database)
  await database.close()

  const out = path.join(tempFolder(), 'backup')
  const manifest = await createBackup(env, out)
  expect(manifest.database).toBe(database.kind)
  expect(Object.keys(manifest.parts).sort()).toEqual(
    [database.kind === 'pglite' ? 'database.pglite.tar.gz' : 'database.pgdump', 'data-dir.tar.gz'].sort(),
  )
  // A backup never overwrites another.
  await expect(createBackup(env, out)).rejects.toThrow(/already exists/)

  // Damage: the buyer's order and account gone, a book renamed, the cover deleted.
  database = await openDatabase(env.options)
  await database.db.delete(libraryItems).where(eq(libraryItems.userId, buyer.userId))
  await database.db.delete(orders).where(eq(orders.userId, buyer.userId))
  await database.db.delete(user).where(eq(user.id, buyer.userId))
  await database.db.update(books).set({ title: 'Damaged' }).where(eq(books.id, book!.id))
  expect(await tally(database)).not.toEqual(before)
  await database.close()
  fs.rmSync(cover)

  await restoreBackup(env, out)
  database = await openDatabase(env.options)
  try {
    expect(await tally(database)).toEqual(before)
    const [order] = await database.db.select().from(orders).where(eq(orders.userId, buyer.userId))
    expect(order?.status).toBe('paid')
  } finally {
    await database.close()
  }
  expect(fs.readFileSync(cover, 'utf8')).toBe('cover bytes')
  if (database.kind === 'pglite')
    // The folder it replaced was moved aside, not deleted.
    expect(fs.readdirSync(env.DATA_DIR).some((name) => name.startsWith('db.before-restore-'))).toBe(true)
  // A whole store's round trip, every seed book's files rendered (a few seconds alone, more on a busy machine).
}, 120_000)

test('a backup of the other database kind, or a folder that is no backup, is refused', async () => {
  const env = await storeEnv()
  const notBackup = tempFolder()
  await expect(restoreBackup(env, notBackup)).rejects.toThrow(/is not a backup/)
  fs.writeFileSync(
    path.join(notBackup, 'manifest.json'),
    JSON.stringify({
      format: 1,
      database: env.DATABASE_URL ? 'pglite' : 'postgres',
      createdAt: '',
      parts: {},
    }),
  )
  await expect(restoreBackup(env, notBackup)).rejects.toThrow(/configured for/)
})

test.runIf(!serverUrl)('the embedded database is not backed up while a store holds its folder', async () => {
  const env = await storeEnv()
  // A live process other than this one holds the data folder's lock, as a running store does.
  const holder = spawn('sleep', ['30'])
  try {
    fs.writeFileSync(path.join(env.DATA_DIR, 'codebook.lock'), `${holder.pid}\n`)
    await expect(createBackup(env, path.join(tempFolder(), 'backup'))).rejects.toThrow(/in use by process/)
    await expect(restoreBackup(env, tempFolder())).rejects.toThrow(/not a backup|in use/)
  } finally {
    holder.kill()
  }
})

async function tally(database: Awaited<ReturnType<typeof openDatabase>>) {
  const [[orderCount], [userCount], [libraryCount], titles] = await Promise.all([
    database.db.select({ n: count() }).from(orders),
    database.db.select({ n: count() }).from(user),
    database.db.select({ n: count() }).from(libraryItems),
    database.db.select({ id: books.id, title: books.title }).from(books).orderBy(books.id),
  ])
  return { orders: orderCount!.n, users: userCount!.n, library: libraryCount!.n, titles }
}
