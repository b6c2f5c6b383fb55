import { asc, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { authors, books } from '#app/server/db/schema/index.server.ts'
import type { DatabaseHandle } from '#app/server/db/database.server.ts'
import { migrateUpTo, openMigrationDatabase } from '#tests/migration-database.ts'

/**
 * The catalogue's migration `authors` applied to a database whose books name their author in `books.author`,
 * as a running store's does: on PGlite, and on PostgreSQL under `npm run test:postgres`.
 */

const LAST_BEFORE = '0020_topics'

let handle: DatabaseHandle
let dispose: () => Promise<void>
beforeAll(async () => {
  ;({ handle, dispose } = await openMigrationDatabase())
})
afterAll(() => dispose?.())

test("books' author names become authors, one per name in any case; the books keep their bylines and follow a rename", async () => {
  await migrateUpTo(handle, LAST_BEFORE)
  const { db } = handle
  await db.execute(sql`
    insert into books (slug, title, author, description, price_cents, cover_path, cover_alt, rating, file_size_bytes, created_at)
    values
      ('one', 'One', 'Ada Lovelace', 'A description.', 1900, '/covers/one.svg', 'Cover', 4, 1000, now() - interval '5 days'),
      ('two', 'Two', 'ada lovelace', 'A description.', 1900, '/covers/two.svg', 'Cover', 4, 1000, now() - interval '4 days'),
      ('three', 'Three', 'Lucía Ferreira', 'A description.', 1900, '/covers/three.svg', 'Cover', 4, 1000, now() - interval '3 days'),
      ('four', 'Four', 'C. Smith', 'A description.', 1900, '/covers/four.svg', 'Cover', 4, 1000, now() - interval '2 days'),
      ('five', 'Five', 'C Smith', 'A description.', 1900, '/covers/five.svg', 'Cover', 4, 1000, now() - interval '1 day')`)

  await handle.migrate()

  expect(
    await db.select({ slug: authors.slug, name: authors.name }).from(authors).orderBy(asc(authors.slug)),
  ).toEqual([
    { slug: 'ada-lovelace', name: 'Ada Lovelace' },
    { slug: 'c-smith', name: 'C. Smith' },
    { slug: 'c-smith-2', name: 'C Smith' },
    { slug: 'lucia-ferreira', name: 'Lucía Ferreira' },
  ])
  const bylines = async () =>
    db
      .select({ slug: books.slug, author: books.author, authorSlug: authors.slug })
      .from(books)
      .innerJoin(authors, eq(authors.id, books.authorId))
      .orderBy(asc(books.createdAt))
  expect(await bylines()).toEqual([
    { slug: 'one', author: 'Ada Lovelace', authorSlug: 'ada-lovelace' },
    { slug: 'two', author: 'Ada Lovelace', authorSlug: 'ada-lovelace' },
    { slug: 'three', author: 'Lucía Ferreira', authorSlug: 'lucia-ferreira' },
    { slug: 'four', author: 'C. Smith', authorSlug: 'c-smith' },
    { slug: 'five', author: 'C Smith', authorSlug: 'c-smith-2' },
  ])
  // A rename reaches every book (and so the search index, which reads books.author).
  await db.update(authors).set({ name: 'Augusta Ada King' }).where(eq(authors.slug, 'ada-lovelace'))
  expect((await bylines()).slice(0, 2).map((row) => row.author)).toEqual([
    'Augusta Ada King',
    'Augusta Ada King',
  ])
  // A book inserted with only a name is filed under that author, or a new one.
  await db.execute(sql`
    insert into books (slug, title, author, description, price_cents, cover_path, cover_alt, rating, file_size_bytes)
    values
      ('six', 'Six', 'augusta ada king', 'A description.', 1900, '/covers/six.svg', 'Cover', 4, 1000),
      ('seven', 'Seven', 'Grace Hopper', 'A description.', 1900, '/covers/seven.svg', 'Cover', 4, 1000)`)
  const rows = await bylines()
  expect(rows.slice(5)).toEqual([
    { slug: 'six', author: 'Augusta Ada King', authorSlug: 'ada-lovelace' },
    { slug: 'seven', author: 'Grace Hopper', authorSlug: 'grace-hopper' },
  ])
})
