import { and, eq } from 'drizzle-orm'
import { expect } from 'vitest'
import { catalogFingerprint } from '#app/features/catalog/facet-index.server.ts'
import { setBookTopics } from '#app/features/catalog/topics.server.ts'
import { bookFiles, books, topics } from '#app/server/db/schema/index.server.ts'
import { test } from '#tests/fixtures.ts'

test('the facet index’s fingerprint changes with every column it is built from, and only with those', async ({
  database,
}) => {
  const db = database.db
  const [book] = await db.select().from(books).limit(1)
  const changes: [string, () => Promise<unknown>][] = [
    [
      'price',
      () =>
        db
          .update(books)
          .set({ priceCents: book!.priceCents + 1 })
          .where(eq(books.id, book!.id)),
    ],
    ['topics', () => setBookTopics(db, book!.id, ['New Topic'])],
    [
      'a topic renamed',
      () =>
        db
          .update(topics)
          .set({ name: 'Renamed Topic', slug: 'renamed-topic' })
          .where(eq(topics.slug, 'new-topic')),
    ],
    ['level', () => db.update(books).set({ level: 'advanced' }).where(eq(books.id, book!.id))],
    ['sales', () => db.update(books).set({ salesCount: 3 }).where(eq(books.id, book!.id))],
    ['ratings', () => db.update(books).set({ ratingCount: 1, ratingSum: 5 }).where(eq(books.id, book!.id))],
    ['status', () => db.update(books).set({ status: 'archived' }).where(eq(books.id, book!.id))],
    ['published again', () => db.update(books).set({ status: 'published' }).where(eq(books.id, book!.id))],
    [
      'a format added',
      () =>
        db.insert(bookFiles).values({
          bookId: book!.id,
          format: 'epub',
          storageKey: 'test/book.epub',
          sizeBytes: 1,
          sha256: 'x',
          sourceHash: 'x',
        }),
    ],
    [
      'a format gone',
      () => db.delete(bookFiles).where(and(eq(bookFiles.bookId, book!.id), eq(bookFiles.format, 'epub'))),
    ],
  ]
  let before = await catalogFingerprint(db)
  for (const [what, change] of changes) {
    await change()
    const after = await catalogFingerprint(db)
    expect(after, what).not.toBe(before)
    before = after
  }
  // What the index does not hold: no reload for it.
  await db.update(books).set({ description: 'Another description.' }).where(eq(books.id, book!.id))
  expect(await catalogFingerprint(db)).toBe(before)
  // A dozen catalogue changes, each followed by a fingerprint of the whole catalogue.
}, 90_000)
