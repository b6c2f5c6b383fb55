import { execFile, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { openDatabase, type DatabaseOptions } from '#app/server/db/database.server.ts'
import { bookFiles, books, libraryItems, orders, user } from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import { createBackup, restoreBackup, type BackupManifest } from '#server/backup.ts'
import { adminQuery } from '#tests/db.ts'
import {
  copyStorage,
  listStorage,
  storageBackEndsForFile,
  type BackEndName,
} from '#tests/storage-back-ends.ts'
import { createBuyer } from '#harness/factories/buyers.ts'

const folders: string[] = []
function tempFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-backup-'))
  folders.push(folder)
  return folder
}
const serverUrl = process.env.TEST_DB === 'postgres' ? process.env.TEST_DATABASE_URL : undefined
const databases: string[] = []
const backEnds = storageBackEndsForFile('codebook-backup')
const silent = createLogger('silent')
const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex')

/** The seed books' files, rendered once for the file (about 5 s) and copied into each test's storage. */
const seedFiles = createLocalStorage(path.join(tempFolder(), 'files'))
beforeAll(async () => {
  const database = await openDatabase({ kind: 'pglite' })
  try {
    await database.migrate()
    await seedCatalog(database.db)
    await publishBookFiles(database.db, seedFiles, silent)
  } finally {
    await database.close()
  }
}, 120_000)

afterAll(async () => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true })
  if (serverUrl)
    for (const name of databases) await adminQuery(serverUrl, `drop database if exists ${name} with (force)`)
})

type StoreEnv = { DATA_DIR: string; DATABASE_URL?: string; options: DatabaseOptions; storage: FileStorage }

/**
 * A store's configuration for this test: PostgreSQL on the test server, else PGlite in the data folder; its
 * files in the folder DATA_DIR/files or in a bucket (STORAGE_URL), which `storage` opens.
 */
async function storeEnv(backEnd: BackEndName): Promise<StoreEnv & Record<string, unknown>> {
  const dataDir = tempFolder()
  const { storage, env: storageEnv } = backEnds.make(backEnd, dataDir)
  if (!serverUrl)
    return {
      DATA_DIR: dataDir,
      ...storageEnv,
      storage,
      options: { kind: 'pglite', dataDir: path.join(dataDir, 'db') },
    }
  const name = `codebook_backup_${crypto.randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}`)
  databases.push(name)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    ...storageEnv,
    storage,
    options: { kind: 'postgres', url: url.toString() },
  }
}

/**
 * A store with what a backup must bring back: the seed catalogue with its books' files listed, a buyer, an
 * uploaded cover a book names, a buyer's stamped copy (a cache: not backed up) and an orphan file.
 */
async function prepareStore(env: StoreEnv) {
  const database = await openDatabase(env.options)
  try {
    await database.migrate()
    await seedCatalog(database.db)
    await copyStorage(seedFiles, env.storage)
    await publishBookFiles(database.db, env.storage, silent)
    const [book] = await database.db.select({ id: books.id }).from(books).limit(1)
    const buyer = await createBuyer(database.db, [book!.id])
    const coverKey = `covers/${book!.id}-0123456789abcdef-200.jpeg`
    await env.storage.put(coverKey, new TextEncoder().encode('cover bytes'))
    await database.db
      .update(books)
      .set({
        cover: {
          keyPrefix: `covers/${book!.id}-0123456789abcdef`,
          widths: [200],
          formats: ['jpeg'],
          width: 200,
          height: 300,
        },
      })
      .where(eq(books.id, book!.id))
    const stampedKey = 'stamped/0123456789abcdef0123456789abcdef/a-book-0123456789abcdef-s1.pdf'
    await env.storage.put(stampedKey, new TextEncoder().encode('a stamped copy'))
    await env.storage.put('editions/orphan/1/book.pdf', new TextEncoder().encode('an old edition'))
    const [pdf] = await database.db
      .select()
      .from(bookFiles)
      .where(and(eq(bookFiles.bookId, book!.id), eq(bookFiles.format, 'pdf')))
    return { book: book!, buyer, coverKey, stampedKey, pdf: pdf!, before: await tally(database) }
  } finally {
    await database.close()
  }
}

describe.each(['folder', 's3'] as const)('files in %s', (backEnd) => {
  test('backup, then damage, then restore: orders, accounts, books and every file are back as they were', async () => {
    const env = await storeEnv(backEnd)
    const { book, buyer, coverKey, stampedKey, pdf, before } = await prepareStore(env)
    const stored = await listStorage(env.storage)

    const out = path.join(tempFolder(), 'backup')
    // The folder's backup through the configuration alone (DATA_DIR/files), the bucket's through the storage.
    const manifest = await createBackup(env, out, backEnd === 's3' ? { storage: env.storage } : {})
    const kind = env.DATABASE_URL ? 'postgres' : 'pglite'
    expect(manifest).toMatchObject({ format: 2, database: kind })
    expect(Object.keys(manifest.parts).sort()).toEqual(
      [kind === 'pglite' ? 'database.pglite.tar.gz' : 'database.pgdump', 'data-dir.tar.gz'].sort(),
    )
    // Every file but the stamped copy, each with its size and hash; none the database names is missing.
    expect(Object.keys(manifest.files.list).sort()).toEqual(
      [...stored.keys()].filter((key) => key !== stampedKey).sort(),
    )
    expect(manifest.files.list[pdf.storageKey]).toEqual({ bytes: pdf.sizeBytes, sha256: pdf.sha256 })
    expect(manifest.files.list[coverKey]).toEqual({
      bytes: 11,
      sha256: sha256(new TextEncoder().encode('cover bytes')),
    })
    expect(manifest.files.missing).toEqual([])
    expect(manifest.files.count).toBe(stored.size - 1)
    expect(fs.readFileSync(path.join(out, 'files', ...coverKey.split('/')), 'utf8')).toBe('cover bytes')
    // A backup never overwrites another.
    await expect(createBackup(env, out, { storage: env.storage })).rejects.toThrow(/already exists/)

    // Damage: the buyer's order and account gone, a book renamed, the cover deleted, the PDF overwritten.
    await damage(env, buyer.userId, book.id)
    await env.storage.delete(coverKey)
    await env.storage.put(pdf.storageKey, new TextEncoder().encode('not the book'))

    await restoreBackup(env, out, backEnd === 's3' ? { storage: env.storage } : {})
    const database = await openDatabase(env.options)
    try {
      expect(await tally(database)).toEqual(before)
      const [order] = await database.db.select().from(orders).where(eq(orders.userId, buyer.userId))
      expect(order?.status).toBe('paid')
    } finally {
      await database.close()
    }
    expect(new TextDecoder().decode((await env.storage.read(coverKey))!)).toBe('cover bytes')
    expect(sha256((await env.storage.read(pdf.storageKey))!)).toBe(pdf.sha256)
    // The cache was neither backed up nor touched by the restore.
    expect(await env.storage.stat(stampedKey)).not.toBeNull()
    expect(await listStorage(env.storage)).toEqual(stored)
    if (kind === 'pglite')
      // The folder it replaced was moved aside, not deleted.
      expect(fs.readdirSync(env.DATA_DIR).some((name) => name.startsWith('db.before-restore-'))).toBe(true)
  }, 180_000)

  test('a backup whose file or database no longer matches its manifest restores nothing', async () => {
    const env = await storeEnv(backEnd)
    const { book, buyer, coverKey, pdf } = await prepareStore(env)
    const out = path.join(tempFolder(), 'backup')
    await createBackup(env, out, { storage: env.storage })
    await damage(env, buyer.userId, book.id)
    const damaged = await tallyOf(env)
    await env.storage.delete(coverKey)
    const storedBefore = await listStorage(env.storage)

    // One byte of the PDF's copy changed, its size the same.
    const copy = path.join(out, 'files', ...pdf.storageKey.split('/'))
    const bytes = fs.readFileSync(copy)
    bytes[100] = bytes[100]! ^ 0xff
    fs.writeFileSync(copy, bytes)
    await expect(restoreBackup(env, out, { storage: env.storage })).rejects.toThrow(
      new RegExp(`files are damaged.*${pdf.storageKey}.*SHA-256`),
    )
    bytes[100] = bytes[100]! ^ 0xff
    fs.writeFileSync(copy, bytes)
    // The database's part cut short.
    const part = env.DATABASE_URL ? 'database.pgdump' : 'database.pglite.tar.gz'
    fs.truncateSync(path.join(out, part), 100)
    await expect(restoreBackup(env, out, { storage: env.storage })).rejects.toThrow(
      `the backup's ${part} does not match its manifest`,
    )

    // Nothing changed: the database as damaged, no file put back, the embedded database not moved aside.
    expect(await tallyOf(env)).toEqual(damaged)
    expect(await listStorage(env.storage)).toEqual(storedBefore)
    expect(fs.readdirSync(env.DATA_DIR).some((name) => name.startsWith('db.before-restore-'))).toBe(false)
  }, 180_000)
})

test('a store on its folder moves to a bucket by a backup restored with STORAGE_URL set', async () => {
  const from = await storeEnv('folder')
  const { before } = await prepareStore(from)
  const out = path.join(tempFolder(), 'backup')
  const manifest = await createBackup(from, out)
  expect(manifest.files.from).toBe('DATA_DIR/files')

  // A new store configured for a bucket: an empty one, and a fresh database of the same kind.
  const to = await storeEnv('s3')
  expect(to.STORAGE_URL).toMatch(/^s3:\/\//)
  await restoreBackup(to, out)
  await expectRestored(to, manifest, before)
  expect(fs.existsSync(path.join(to.DATA_DIR, 'files'))).toBe(false)

  // And back from the bucket to a folder.
  const backOut = path.join(tempFolder(), 'backup')
  const fromBucket = await createBackup(to, backOut)
  expect(fromBucket.files.from).toBe(to.STORAGE_URL)
  expect(fromBucket.files.list).toEqual(manifest.files.list)
  const folderAgain = await storeEnv('folder')
  await restoreBackup(folderAgain, backOut)
  await expectRestored(folderAgain, manifest, before)
}, 240_000)

test('a format-1 backup (the files inside the data-folder archive) still restores, its files through the storage', async () => {
  const from = await storeEnv('folder')
  const { before, stampedKey } = await prepareStore(from)
  const out = path.join(tempFolder(), 'backup')
  const manifest = await createBackup(from, out)
  const v1 = await asFormat1(out)

  const to = await storeEnv('s3')
  await restoreBackup(to, v1, { storage: to.storage })
  await expectRestored(to, manifest, before)
  expect(await to.storage.stat(stampedKey)).toBeNull()
  // The archive's other files (the generated secret) are in the data folder; no staging left behind.
  expect(fs.readFileSync(path.join(to.DATA_DIR, 'auth-secret'), 'utf8')).toBe('a secret\n')
  expect(fs.readdirSync(to.DATA_DIR).filter((name) => name.startsWith('restore-staging-'))).toEqual([])
}, 240_000)

test('a backup of the other database kind, or a folder that is no backup, is refused', async () => {
  const env = await storeEnv('folder')
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
  const env = await storeEnv('folder')
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

/** The database and every file of the backup are in the store `env` names. */
async function expectRestored(
  env: StoreEnv,
  manifest: BackupManifest,
  before: Awaited<ReturnType<typeof tally>>,
) {
  expect(await tallyOf(env)).toEqual(before)
  const stored = await listStorage(env.storage)
  for (const [key, file] of Object.entries(manifest.files.list)) {
    expect(stored.get(key), key).toBe(file.bytes)
    expect(sha256((await env.storage.read(key))!), key).toBe(file.sha256)
  }
}

/** The backup made as format 1 was: its files in data-dir.tar.gz under ./files, the manifest giving sizes only. */
async function asFormat1(backup: string): Promise<string> {
  const v1 = path.join(tempFolder(), 'backup-v1')
  const archived = path.join(tempFolder(), 'data')
  fs.cpSync(path.join(backup, 'files'), path.join(archived, 'files'), { recursive: true })
  fs.writeFileSync(path.join(archived, 'auth-secret'), 'a secret\n')
  fs.mkdirSync(v1)
  const database = fs.readdirSync(backup).find((name) => name.startsWith('database.'))!
  fs.copyFileSync(path.join(backup, database), path.join(v1, database))
  await promisify(execFile)('tar', [
    '--create',
    '--gzip',
    `--file=${path.join(v1, 'data-dir.tar.gz')}`,
    `--directory=${archived}`,
    '.',
  ])
  const parts = Object.fromEntries(
    fs.readdirSync(v1).map((name) => [name, fs.statSync(path.join(v1, name)).size]),
  )
  fs.writeFileSync(
    path.join(v1, 'manifest.json'),
    JSON.stringify({
      format: 1,
      database: database.includes('pglite') ? 'pglite' : 'postgres',
      createdAt: '',
      parts,
    }),
  )
  return v1
}

async function damage(env: StoreEnv, userId: string, bookId: string) {
  const database = await openDatabase(env.options)
  try {
    await database.db.delete(libraryItems).where(eq(libraryItems.userId, userId))
    await database.db.delete(orders).where(eq(orders.userId, userId))
    await database.db.delete(user).where(eq(user.id, userId))
    await database.db.update(books).set({ title: 'Damaged' }).where(eq(books.id, bookId))
  } finally {
    await database.close()
  }
}

async function tallyOf(env: StoreEnv) {
  const database = await openDatabase(env.options)
  try {
    return await tally(database)
  } finally {
    await database.close()
  }
}

async function tally(database: Awaited<ReturnType<typeof openDatabase>>) {
  const [[orderCount], [userCount], [libraryCount], titles, files] = await Promise.all([
    database.db.select({ n: count() }).from(orders),
    database.db.select({ n: count() }).from(user),
    database.db.select({ n: count() }).from(libraryItems),
    database.db
      .select({ id: books.id, title: books.title, cover: books.cover })
      .from(books)
      .orderBy(books.id),
    database.db
      .select({ key: bookFiles.storageKey, sha256: bookFiles.sha256 })
      .from(bookFiles)
      .orderBy(bookFiles.storageKey),
  ])
  return { orders: orderCount!.n, users: userCount!.n, library: libraryCount!.n, titles, files }
}
