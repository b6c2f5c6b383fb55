import { asc, eq, sql } from 'drizzle-orm'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { listBookTopics } from '#app/features/catalog/topics.server.ts'
import { books, topics } from '#app/server/db/schema/index.server.ts'
import type { DatabaseHandle } from '#app/server/db/database.server.ts'
import { migrateUpTo, openMigrationDatabase } from '#tests/migration-database.ts'

/**
 * The catalogue's migration `topics` applied to a database whose books list their topics in `books.topics`
 * (as typed: slugs and words with spaces), as a running store's does: on PGlite, and on PostgreSQL under
 * `npm run test:postgres`.
 */

const LAST_BEFORE = '0019_store-settings'

let handle: DatabaseHandle
let dispose: () => Promise<void>
beforeEach(async () => {
  ;({ handle, dispose } = await openMigrationDatabase())
})
afterEach(() => dispose?.())

test("books' topic arrays become named topics, each book keeping its topics in order; the search index's copy follows", async () => {
  await migrateUpTo(handle, LAST_BEFORE)
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
  await migrateUpTo(handle, LAST_BEFORE)
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
