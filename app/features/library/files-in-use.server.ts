import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { bookFiles, books, libraryItems, orders, user } from '#app/server/db/schema/index.server.ts'
import { stampedCopyKey } from './downloads.server.ts'
import { fingerprintKeyBeside } from './editions/build-editions.server.ts'
import { purchasedFormats } from './library.server.ts'

/**
 * The book files the database names (what a backup must hold and the sweep of old files keeps): each file
 * `book_files` lists (the live edition's PDF, EPUB and sample of every book) and the fingerprint beside them,
 * which tells start-up they need no rendering again. An earlier edition's files are not named: the library and
 * the OPDS feed offer only the newest edition, and every edition's manuscript stays in `book_editions`.
 */
export async function listBookFilesInUse(db: Db): Promise<string[]> {
  const rows = await db.select({ storageKey: bookFiles.storageKey }).from(bookFiles)
  const keys = new Set<string>()
  for (const { storageKey } of rows) keys.add(storageKey).add(fingerprintKeyBeside(storageKey))
  return [...keys]
}

/**
 * Every stamped copy a buyer would be served now, by its storage key, with when they last downloaded that book
 * (null: never counted — the online reader opens the same copy without counting). A copy not in this map is of
 * a book its buyer no longer owns (refunded, account deleted), of an earlier edition or stamp format, or stamped
 * with an email the buyer has since changed: nobody is served it again. One row per owned book and format.
 */
export async function listStampedCopiesInUse(db: Db): Promise<Map<string, Date | null>> {
  const rows = await db
    .select({
      userId: libraryItems.userId,
      email: user.email,
      orderNumber: orders.number,
      lastDownloadedAt: libraryItems.lastDownloadedAt,
      slug: books.slug,
      format: bookFiles.format,
      sha256: bookFiles.sha256,
    })
    .from(libraryItems)
    .innerJoin(user, eq(user.id, libraryItems.userId))
    .innerJoin(orders, eq(orders.id, libraryItems.orderId))
    .innerJoin(books, eq(books.id, libraryItems.bookId))
    .innerJoin(
      bookFiles,
      and(eq(bookFiles.bookId, libraryItems.bookId), inArray(bookFiles.format, [...purchasedFormats])),
    )
  return new Map(
    rows.map((row) => [
      stampedCopyKey(row.userId, { email: row.email, orderNumber: row.orderNumber }, row),
      row.lastDownloadedAt,
    ]),
  )
}
