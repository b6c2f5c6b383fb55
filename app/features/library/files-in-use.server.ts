import { asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { bookFiles, books, libraryItems, orders, user } from '#app/server/db/schema/index.server.ts'
import { fingerprintKeyBeside } from './editions/build-editions.server.ts'
import { stampFormatVersion } from './editions/stamp.server.ts'
import { purchasedFormats, type PurchasedFormat } from './library.server.ts'
import { parseStampedCopyKey, stampedCopyOwner } from './stamped-copies.server.ts'

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

/** Whether a buyer is served the stamped copy under a key, and if so when they last downloaded that book. */
export type StampedCopyUse = { served: false } | { served: true; lastDownloadedAt: number | null }

const MINUTE = 60_000
/** Owned books read a page at a time: the run's memory grows with the owners, not with a query's result. */
const OWNERS_PAGE = 5_000

/**
 * Which stamped copies a buyer would be served now: `use(key)` says whether the copy under a key is one (with
 * when its buyer last downloaded the book; null: never counted — the online reader opens the same copy without
 * counting). A copy not served is of a book its buyer no longer owns (refunded, account deleted), of an earlier
 * edition or stamp format, or stamped with an email the buyer has since changed: nobody is served it again.
 *
 * Read once per run: each book's live PDF and EPUB versions, and every owned book grouped by its buyer's `who`
 * (stamped-copies.server.ts) — about 150 bytes an owned book; the owners are read 5,000 at a time.
 */
export async function loadStampedCopiesInUse(
  db: Db,
  { pageSize = OWNERS_PAGE }: { pageSize?: number } = {},
): Promise<(key: string) => StampedCopyUse> {
  const files = await db
    .select({ bookId: books.id, slug: books.slug, format: bookFiles.format, sha256: bookFiles.sha256 })
    .from(bookFiles)
    .innerJoin(books, eq(books.id, bookFiles.bookId))
    .where(inArray(bookFiles.format, [...purchasedFormats]))
  /** Each book by its slug: its index in the owners' lists and its live files' versions (sha256's first 16). */
  const bySlug = new Map<string, { index: number; pdf?: string; epub?: string }>()
  const indexOf = new Map<string, number>()
  for (const file of files) {
    let index = indexOf.get(file.bookId)
    if (index === undefined) indexOf.set(file.bookId, (index = indexOf.size))
    const book = bySlug.get(file.slug) ?? { index }
    book[file.format as PurchasedFormat] = file.sha256.slice(0, 16)
    bySlug.set(file.slug, book)
  }

  /**
   * `<who>/<book index>` → the last download, in whole minutes (a small integer V8 keeps unboxed), or -1: a
   * Map of short strings and numbers, about 150 bytes an owned book.
   */
  const owned = new Map<string, number>()
  let after: { userId: string; bookId: string } | null = null
  for (;;) {
    const page: {
      userId: string
      bookId: string
      email: string
      orderNumber: number
      lastDownloadedAt: Date | null
    }[] = await db
      .select({
        userId: libraryItems.userId,
        bookId: libraryItems.bookId,
        email: user.email,
        orderNumber: orders.number,
        lastDownloadedAt: libraryItems.lastDownloadedAt,
      })
      .from(libraryItems)
      .innerJoin(user, eq(user.id, libraryItems.userId))
      .innerJoin(orders, eq(orders.id, libraryItems.orderId))
      .where(
        after
          ? sql`(${libraryItems.userId}, ${libraryItems.bookId}) > (${after.userId}, ${after.bookId})`
          : undefined,
      )
      .orderBy(asc(libraryItems.userId), asc(libraryItems.bookId))
      .limit(pageSize)
    for (const row of page) {
      const index = indexOf.get(row.bookId)
      if (index === undefined) continue // No files yet: no copy of it can exist.
      const who = stampedCopyOwner(row.userId, { email: row.email, orderNumber: row.orderNumber })
      owned.set(
        `${who}/${index}`,
        row.lastDownloadedAt ? Math.floor(row.lastDownloadedAt.getTime() / MINUTE) : -1,
      )
    }
    if (page.length < pageSize) break
    const last = page.at(-1)!
    after = { userId: last.userId, bookId: last.bookId }
  }

  return (key) => {
    const copy = parseStampedCopyKey(key)
    const book = copy ? bySlug.get(copy.slug) : undefined
    if (!copy || !book || copy.formatVersion !== stampFormatVersion || book[copy.format] !== copy.sha16)
      return { served: false }
    const downloaded = owned.get(`${copy.who}/${book.index}`)
    if (downloaded === undefined) return { served: false }
    return { served: true, lastDownloadedAt: downloaded < 0 ? null : downloaded * MINUTE }
  }
}
