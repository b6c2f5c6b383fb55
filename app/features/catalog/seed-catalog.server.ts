import type { Db } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { invalidateCatalog } from './catalog-cache.server.ts'
import { seedBooks } from './seed-books.ts'

/**
 * Loads the seed's catalogue. Idempotent: a book already there (by slug) is left as it is, so a restart
 * never overwrites what the store's owner changed.
 */
export async function seedCatalog(db: Db): Promise<void> {
  // Insert in seed order with increasing timestamps: the all-books list keeps the seed's order.
  const start = Date.now() - seedBooks.length * 1000
  await db
    .insert(books)
    .values(
      seedBooks.map((book, index) => ({
        ...book,
        topics: [...book.topics],
        createdAt: new Date(start + index * 1000),
      })),
    )
    .onConflictDoNothing({ target: books.slug })
  invalidateCatalog(db)
}
