import { setBlankAuthorBio } from '#app/features/authors/authors.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { invalidateCatalog } from './catalog-cache.server.ts'
import { seedAuthorBios, seedBooks, seedTopicName } from './seed-books.ts'
import { setBookTopics } from './topics.server.ts'

/**
 * Loads the seed's catalogue. Idempotent: a book already there (by slug) is left as it is, so a restart
 * never overwrites what the store's owner changed.
 */
export async function seedCatalog(db: Db): Promise<void> {
  // Insert in seed order with increasing timestamps: the all-books list keeps the seed's order.
  const start = Date.now() - seedBooks.length * 1000
  await db.transaction(async (tx) => {
    const inserted = await tx
      .insert(books)
      .values(
        seedBooks.map(({ topics: _topics, ...book }, index) => ({
          ...book,
          createdAt: new Date(start + index * 1000),
        })),
      )
      .onConflictDoNothing({ target: books.slug })
      .returning({ id: books.id, slug: books.slug })
    for (const { id, slug } of inserted) {
      const seed = seedBooks.find((book) => book.slug === slug)!
      const names = seed.topics.map(seedTopicName)
      await setBookTopics(tx, id, names, new Map(seed.topics.map((topic) => [seedTopicName(topic), topic])))
      // The book was filed under its author by name (the database's trigger): a new author gets the seed's bio.
      const bio = seedAuthorBios.get(seed.author)
      if (bio) await setBlankAuthorBio(tx, seed.author, bio)
    }
  })
  invalidateCatalog(db)
}
