import { eq } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import type { PwywBook } from './pay-what-you-want.ts'

/** A book's pay-what-you-want terms (null minimum: a fixed price), or null for an unknown book. */
export async function readPwywBook(
  db: Db,
  bookId: string,
): Promise<(PwywBook & { title: string; slug: string }) | null> {
  const [book] = await db
    .select({
      title: books.title,
      slug: books.slug,
      pwywMinCents: books.pwywMinCents,
      priceCents: books.priceCents,
      currency: books.currency,
    })
    .from(books)
    .where(eq(books.id, bookId))
  return book ?? null
}
