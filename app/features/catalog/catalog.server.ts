import { asc, eq } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema.server.ts'
import { invalidateCatalog } from './catalog-cache.server.ts'
import { seedBooks } from './seed-books.ts'

export type Book = typeof books.$inferSelect

/** What a card needs; keeps the long text and flags of the detail page out of list payloads. */
export const cardColumns = {
  id: books.id,
  slug: books.slug,
  title: books.title,
  description: books.description,
  priceCents: books.priceCents,
  currency: books.currency,
  coverPath: books.coverPath,
  coverAlt: books.coverAlt,
  rating: books.rating,
  available: books.available,
}

export type BookCard = { [K in keyof typeof cardColumns]: Book[K] }

export function listBooks(db: Db): Promise<BookCard[]> {
  return db.select(cardColumns).from(books).orderBy(asc(books.createdAt), asc(books.title))
}

export function listFeaturedBooks(db: Db): Promise<BookCard[]> {
  return db
    .select(cardColumns)
    .from(books)
    .where(eq(books.featured, true))
    .orderBy(asc(books.featuredPosition))
}

export async function getBookBySlug(db: Db, slug: string): Promise<Book | undefined> {
  const [book] = await db.select().from(books).where(eq(books.slug, slug)).limit(1)
  return book
}

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
