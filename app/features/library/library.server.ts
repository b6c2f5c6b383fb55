import { eq } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { libraryItems } from '#app/server/db/schema.server.ts'

/** The ids of the books a reader owns (bought and paid for). */
export async function listOwnedBookIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .select({ bookId: libraryItems.bookId })
    .from(libraryItems)
    .where(eq(libraryItems.userId, userId))
  return rows.map((row) => row.bookId)
}
