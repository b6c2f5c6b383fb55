import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { asc, eq, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { listBookTopics } from '#app/features/catalog/topics.server.ts'
import { openDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'
import { books, topics } from '#app/server/db/schema/index.server.ts'
import { adminQuery } from '#tests/db.ts'

/**
 * The catalogue's migration `topics` applied to a database whose books list their topics in `books.topics`
 * (as typed: slugs and words with spaces), as a running store's does: on PGlite, and on PostgreSQL under
 * `npm run test:postgres`.
 */

const drizzleFolder = path.resolve(import.meta.dirname, '../../drizzle')
const LAST_BEFORE = '0019_store-settings'

let handle: DatabaseHandle
let dispose: () => Promise<void>
beforeEach(async () => {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (process.env.TEST_DB !== 'postgres') {
    handle = await openDatabase({ kind: 'pglite' })
    dispose = () => handle.close()
    return
  }
  if (!serverUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL')
  const name = `codebook_migration_${crypto.randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 })
  dispose = async () => {
    await handle.close()
    await adminQuery(serverUrl, `drop database if exists ${name} with (force)`)
  }
})
afterEach(() => dispose?.())

/** The migrations folder as it was up to `lastTag`, copied to a temporary folder. */
function migrationsUpTo(lastTag: string) {
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

test("books' topic arrays become named topics, each book keeping its topics in order; the search index's copy follows", async () => {
  const migrationsFolder = migrationsUpTo(LAST_BEFORE)
  if (handle.kind === 'pglite')
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder })
  else await migratePostgres(handle.db as unknown as NodePgDatabase, { migrationsFolder })
  const { db } = handle
  await db.execute(sql`
    insert into books (slug, title, author, description, price_cents, cover_path, cover_alt, rating, file_size_bytes, topics)
    values
      ('one', 'One', 'An Author', 'A description.', 1900, '/covers/one.svg', 'Cover', 4, 1000,
        array['systems programming', 'node', 'machine-learning']),
      ('two', 'Two', 'An Author', 'A description.', 1900, '/covers/two.svg', 'Cover', 4, 1000,
        array['Machine-Learning', 'systems-programming', 'rust', 'rust']),
      ('three', 'Three', 'An Author', 'A description.', 1900, '/covers/three.svg', 'Cover', 4, 1000, '{}')`)

  await handle.migrate()

  expect(
    await db.select({ slug: topics.slug, name: topics.name }).from(topics).orderBy(asc(topics.slug)),
  ).toEqual([
    { slug: 'machine-learning', name: 'Machine Learning' },
    { slug: 'node', name: 'Node.js' },
    { slug: 'rust', name: 'Rust' },
    { slug: 'systems-programming', name: 'Systems Programming' },
  ])
  const idOf = async (slug: string) =>
    (await db.select({ id: books.id }).from(books).where(eq(books.slug, slug)))[0]!.id
  expect((await listBookTopics(db, await idOf('one'))).map((topic) => topic.slug)).toEqual([
    'systems-programming',
    'node',
    'machine-learning',
  ])
  expect((await listBookTopics(db, await idOf('two'))).map((topic) => topic.slug)).toEqual([
    'machine-learning',
    'systems-programming',
    'rust',
  ])
  expect(await listBookTopics(db, await idOf('three'))).toEqual([])
  // The search index's copy now holds the names, and follows a rename.
  const [one] = await db.select({ topics: books.topics }).from(books).where(eq(books.slug, 'one'))
  expect(one!.topics).toEqual(['Systems Programming', 'Node.js', 'Machine Learning'])
  await db.update(topics).set({ name: 'Rust Language', slug: 'rust-language' }).where(eq(topics.slug, 'rust'))
  const [two] = await db.select({ topics: books.topics }).from(books).where(eq(books.slug, 'two'))
  expect(two!.topics).toEqual(['Machine Learning', 'Systems Programming', 'Rust Language'])
})

test('topics whose names meet once named (api and apis, node and node.js) become one topic; c and c++ stay two: no book loses a topic', async () => {
  const migrationsFolder = migrationsUpTo(LAST_BEFORE)
  if (handle.kind === 'pglite')
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder })
  else await migratePostgres(handle.db as unknown as NodePgDatabase, { migrationsFolder })
  const { db } = handle
  await db.execute(sql`
    insert into books (slug, title, author, description, price_cents, cover_path, cover_alt, rating, file_size_bytes, topics)
    values
      ('four', 'Four', 'An Author', 'A description.', 1900, '/covers/four.svg', 'Cover', 4, 1000,
        array['apis', 'node.js', 'c++']),
      ('five', 'Five', 'An Author', 'A description.', 1900, '/covers/five.svg', 'Cover', 4, 1000,
        array['api', 'node', 'c'])`)

  await handle.migrate()

  expect(
    await db.select({ slug: topics.slug, name: topics.name }).from(topics).orderBy(asc(topics.slug)),
  ).toEqual([
    { slug: 'api', name: 'APIs' },
    { slug: 'c', name: 'C' },
    { slug: 'c-2', name: 'C++' },
    { slug: 'node', name: 'Node.js' },
  ])
  const idOf = async (slug: string) =>
    (await db.select({ id: books.id }).from(books).where(eq(books.slug, slug)))[0]!.id
  expect((await listBookTopics(db, await idOf('four'))).map((topic) => topic.name)).toEqual([
    'APIs',
    'Node.js',
    'C++',
  ])
  expect((await listBookTopics(db, await idOf('five'))).map((topic) => topic.name)).toEqual([
    'APIs',
    'Node.js',
    'C',
  ])
})
