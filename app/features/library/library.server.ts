import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import { createContext, type RouterContextProvider } from 'react-router'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  bookEditions,
  bookFiles,
  books,
  libraryItems,
  orders,
  type BookStatus,
} from '#app/server/db/schema/index.server.ts'

/** The ids of the books a reader owns (bought and paid for). */
export async function listOwnedBookIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .select({ bookId: libraryItems.bookId })
    .from(libraryItems)
    .where(eq(libraryItems.userId, userId))
  return rows.map((row) => row.bookId)
}

const ownedBooksContext = createContext<Map<string, Promise<string[]>> | null>(null)

/**
 * The reader's owned books, read once per request: the root loader (every card's button) and a route's loader
 * (the book page's review form) share the one query (decision 021). Not for actions: they may change it.
 */
export function readOwnedBookIds(
  context: Readonly<RouterContextProvider>,
  db: Db,
  userId: string,
): Promise<string[]> {
  let reads = context.get(ownedBooksContext)
  if (!reads) (context as RouterContextProvider).set(ownedBooksContext, (reads = new Map()))
  let read = reads.get(userId)
  if (!read) reads.set(userId, (read = listOwnedBookIds(db, userId)))
  return read
}

export type BookFileFormat = (typeof bookFiles.$inferSelect)['format']
/** The formats a buyer downloads, in the order they are offered. */
export const purchasedFormats = ['pdf', 'epub'] as const satisfies readonly BookFileFormat[]
export type PurchasedFormat = (typeof purchasedFormats)[number]

export type BookFile = {
  format: BookFileFormat
  storageKey: string
  sizeBytes: number
  sha256: string
}

export type LibraryBook = {
  bookId: string
  slug: string
  title: string
  author: string
  coverPath: string
  orderId: string
  orderNumber: number
  acquiredAt: Date
  downloadCount: number
  files: { format: PurchasedFormat; sizeBytes: number }[]
  /** The edition the downloads are, and when it was published (null while the book has no files yet). */
  edition: { number: number; publishedAt: Date } | null
}

/** Every book the reader owns, most recently bought first, with the formats they may download. */
export async function listLibrary(db: Db, userId: string): Promise<LibraryBook[]> {
  const rows = await db
    .select({
      bookId: books.id,
      slug: books.slug,
      title: books.title,
      author: books.author,
      coverPath: books.coverPath,
      orderId: orders.id,
      orderNumber: orders.number,
      acquiredAt: libraryItems.acquiredAt,
      downloadCount: libraryItems.downloadCount,
    })
    .from(libraryItems)
    .innerJoin(books, eq(books.id, libraryItems.bookId))
    .innerJoin(orders, eq(orders.id, libraryItems.orderId))
    .where(eq(libraryItems.userId, userId))
    .orderBy(desc(libraryItems.acquiredAt), asc(books.title))
  const files = await listFilesWithEditions(
    db,
    rows.map((row) => row.bookId),
  )
  return rows.map((row) => {
    const formats = files.get(row.bookId) ?? []
    const pdf = formats.find((file) => file.format === 'pdf')
    return {
      ...row,
      edition: pdf ? { number: pdf.edition, publishedAt: pdf.publishedAt } : null,
      files: purchasedFormats.flatMap((format) => {
        const file = formats.find((candidate) => candidate.format === format)
        return file ? [{ format, sizeBytes: file.sizeBytes }] : []
      }),
    }
  })
}

/**
 * The stored files of some books (one query): each with the edition it belongs to and that edition's
 * publication date — the edition's, or for a seed book's edition 1 that was never recorded, when its files were
 * first made. The library shows the PDF's edition.
 */
async function listFilesWithEditions(
  db: Db,
  bookIds: string[],
): Promise<Map<string, { format: BookFileFormat; sizeBytes: number; edition: number; publishedAt: Date }[]>> {
  const byBook = new Map<
    string,
    { format: BookFileFormat; sizeBytes: number; edition: number; publishedAt: Date }[]
  >()
  if (bookIds.length === 0) return byBook
  const rows = await db
    .select({
      bookId: bookFiles.bookId,
      format: bookFiles.format,
      sizeBytes: bookFiles.sizeBytes,
      edition: bookFiles.edition,
      publishedAt: sql<Date>`coalesce(${bookEditions.publishedAt}, ${bookFiles.createdAt})`.mapWith(
        (value: string | Date) => new Date(value),
      ),
    })
    .from(bookFiles)
    .leftJoin(
      bookEditions,
      and(eq(bookEditions.bookId, bookFiles.bookId), eq(bookEditions.number, bookFiles.edition)),
    )
    .where(inArray(bookFiles.bookId, bookIds))
  for (const { bookId, ...file } of rows) {
    if (!byBook.has(bookId)) byBook.set(bookId, [])
    byBook.get(bookId)!.push(file)
  }
  return byBook
}

/** The stored files of some books, by book id and format. */
export async function listFilesOf(
  db: Db,
  bookIds: string[],
): Promise<Map<string, Map<BookFileFormat, BookFile>>> {
  const byBook = new Map<string, Map<BookFileFormat, BookFile>>()
  if (bookIds.length === 0) return byBook
  const rows = await db
    .select({
      bookId: bookFiles.bookId,
      format: bookFiles.format,
      storageKey: bookFiles.storageKey,
      sizeBytes: bookFiles.sizeBytes,
      sha256: bookFiles.sha256,
    })
    .from(bookFiles)
    .where(inArray(bookFiles.bookId, bookIds))
  for (const { bookId, ...file } of rows) {
    if (!byBook.has(bookId)) byBook.set(bookId, new Map())
    byBook.get(bookId)!.set(file.format, file)
  }
  return byBook
}

/** A book's file in one format, looked up by the book's slug; null when either is unknown. */
export async function getBookFile(
  db: Db,
  slug: string,
  format: BookFileFormat,
): Promise<(BookFile & { bookId: string; slug: string; title: string; status: BookStatus }) | null> {
  const [row] = await db
    .select({
      bookId: books.id,
      slug: books.slug,
      title: books.title,
      status: books.status,
      format: bookFiles.format,
      storageKey: bookFiles.storageKey,
      sizeBytes: bookFiles.sizeBytes,
      sha256: bookFiles.sha256,
    })
    .from(books)
    .innerJoin(bookFiles, and(eq(bookFiles.bookId, books.id), eq(bookFiles.format, format)))
    .where(eq(books.slug, slug))
    .limit(1)
  return row ?? null
}

/** The order that put `bookId` in the reader's library, or null when they do not own it. */
export async function getOwnership(
  db: Db,
  userId: string,
  bookId: string,
): Promise<{ orderNumber: number } | null> {
  const [row] = await db
    .select({ orderNumber: orders.number })
    .from(libraryItems)
    .innerJoin(orders, eq(orders.id, libraryItems.orderId))
    .where(and(eq(libraryItems.userId, userId), eq(libraryItems.bookId, bookId)))
    .limit(1)
  return row ?? null
}

/**
 * Puts the books of a paid order in the buyer's library, inside the payment's transaction. A book the buyer
 * owns already (through another order) stays theirs through that order. Returns the ids of the books granted
 * now.
 */
export async function grantBooks(
  tx: Transaction,
  grant: { userId: string; orderId: string; bookIds: string[] },
): Promise<string[]> {
  if (grant.bookIds.length === 0) return []
  const granted = await tx
    .insert(libraryItems)
    .values(grant.bookIds.map((bookId) => ({ userId: grant.userId, bookId, orderId: grant.orderId })))
    .onConflictDoNothing()
    .returning({ bookId: libraryItems.bookId })
  return granted.map((row) => row.bookId)
}

/**
 * Takes the books of some lines of an order back from whoever holds them through it (its buyer, or a gift's
 * recipient), inside the refund's transaction: a partial refund that gave a line back in full. A book that reader
 * also has through another paid order stays theirs, through that order. The same SQL function does it for a whole
 * order when its status becomes 'refunded' (the trigger of migrations 0007, 0030 and 0035), so the rule is one.
 */
export async function revokeBooks(
  tx: Transaction,
  revoke: { orderId: string; bookIds: readonly string[] },
): Promise<void> {
  if (revoke.bookIds.length === 0) return
  const bookIds = sql.join(
    revoke.bookIds.map((bookId) => sql`${bookId}::uuid`),
    sql`, `,
  )
  await tx.execute(sql`select revoke_order_books(${revoke.orderId}::uuid, array[${bookIds}])`)
}

/**
 * Empties a reader's library, inside the account deletion's transaction (their orders stay, for accounting).
 */
export async function deleteLibraryOf(tx: Transaction, userId: string): Promise<void> {
  await tx.delete(libraryItems).where(eq(libraryItems.userId, userId))
}

/** Counts one download of an owned book ('downloaded N times'). */
export async function recordDownload(db: Db, userId: string, bookId: string): Promise<void> {
  await db
    .update(libraryItems)
    .set({ downloadCount: sql`${libraryItems.downloadCount} + 1`, lastDownloadedAt: new Date() })
    .where(and(eq(libraryItems.userId, userId), eq(libraryItems.bookId, bookId)))
}

/** A reader's library, oldest first, with download counts: their part of the account's data export. */
export function exportLibraryOf(db: Db, userId: string) {
  return db
    .select({
      title: books.title,
      slug: books.slug,
      acquiredAt: libraryItems.acquiredAt,
      downloadCount: libraryItems.downloadCount,
      lastDownloadedAt: libraryItems.lastDownloadedAt,
    })
    .from(libraryItems)
    .innerJoin(books, eq(books.id, libraryItems.bookId))
    .where(eq(libraryItems.userId, userId))
    .orderBy(asc(libraryItems.acquiredAt))
}
