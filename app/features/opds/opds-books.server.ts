import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import { findPublishedTopic, listTopics } from '#app/features/catalog/browse.server.ts'
import { readFacetIndex } from '#app/features/catalog/facet-index.server.ts'
import { listTopicsOfBooks } from '#app/features/catalog/topics.server.ts'
import { listLibrary } from '#app/features/library/library.server.ts'
import { isPublished } from '#app/features/catalog/catalog.server.ts'
import { plainText } from '#app/features/catalog/markdown.ts'
import { searchBooks } from '#app/features/search/search.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { authors, bookEditions, books, bookTopics, topics } from '#app/server/db/schema/index.server.ts'
import type { OpdsBook } from './opds-feeds.ts'

/*
 * The books the OPDS catalogue lists (issue 33): published ones only, a page at a time. Pages of the long
 * lists are keyset-paged (the last book's sort key is the next page's cursor), so page 2,000 of 100,000 books
 * costs what page 1 does.
 */

export const OPDS_PAGE_SIZE = 50
/** The best-seller list is a list, not the catalogue: its top books, one page. */
export const BEST_SELLERS = 50

export type BookPage = { books: OpdsBook[]; next: string | null }

/** Thrown for a cursor the store did not make: the route answers 400. */
export class BadCursorError extends Error {
  override name = 'BadCursorError'
}

const newestEdition = sql<Date | null>`(select max(${bookEditions.publishedAt}) from ${bookEditions} where ${bookEditions.bookId} = ${books.id})`

const columns = {
  id: books.id,
  slug: books.slug,
  title: books.title,
  author: books.author,
  authorSlug: authors.slug,
  description: books.description,
  priceCents: books.priceCents,
  currency: books.currency,
  coverPath: books.coverPath,
  cover: books.cover,
  createdAt: books.createdAt,
  /** With its microseconds (a Date keeps milliseconds): the newest-first cursor must be exact. */
  createdAtKey: sql<string>`to_char(${books.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
  updatedAt: books.updatedAt,
  newestEdition,
}

async function readBooks(
  db: Db,
  where: SQL | undefined,
  order: SQL[],
  limit: number,
  { publishedOnly = true }: { publishedOnly?: boolean } = {},
): Promise<OpdsBook[]> {
  const rows = await db
    .select(columns)
    .from(books)
    .leftJoin(authors, eq(authors.id, books.authorId))
    .where(and(publishedOnly ? isPublished : undefined, where))
    .orderBy(...order)
    .limit(limit)
  const topicsOf = await listTopicsOfBooks(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => {
    const edition = row.newestEdition ? new Date(row.newestEdition) : null
    return {
      id: row.id,
      slug: row.slug,
      title: row.title,
      author: { name: row.author, slug: row.authorSlug },
      summary: plainText(row.description),
      priceCents: row.priceCents,
      currency: row.currency,
      coverPath: row.coverPath,
      cover: row.cover,
      topics: topicsOf.get(row.id) ?? [],
      published: row.createdAt,
      publishedKey: row.createdAtKey,
      updated: edition && edition > row.updatedAt ? edition : row.updatedAt,
    }
  })
}

/** The newest books first. */
export async function newBooks(db: Db, after: string | null): Promise<BookPage> {
  const cursor = after === null ? null : decodeCursor(after)
  if (cursor && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(cursor.key)) {
    throw new BadCursorError('This page link is not one the catalogue made.')
  }
  // A row comparison, so PostgreSQL reads the (status, created_at, id) index from the cursor on.
  const where = cursor
    ? sql`(${books.createdAt}, ${books.id}) < (${cursor.key}::timestamptz, ${cursor.id}::uuid)`
    : undefined
  const found = await readBooks(db, where, [desc(books.createdAt), desc(books.id)], OPDS_PAGE_SIZE + 1)
  return pageOf(found, (book) => encodeCursor(book.publishedKey, book.id))
}

/** Every published book (or a topic's) by title. */
export async function booksByTitle(db: Db, after: string | null, topicSlug?: string): Promise<BookPage> {
  const cursor = after === null ? null : decodeCursor(after)
  const where = and(
    cursor ? sql`(${books.title}, ${books.id}) > (${cursor.key}, ${cursor.id}::uuid)` : undefined,
    topicSlug === undefined
      ? undefined
      : inArray(
          books.id,
          db
            .select({ id: bookTopics.bookId })
            .from(bookTopics)
            .innerJoin(topics, eq(topics.id, bookTopics.topicId))
            .where(eq(topics.slug, topicSlug)),
        ),
  )
  const found = await readBooks(db, where, [asc(books.title), asc(books.id)], OPDS_PAGE_SIZE + 1)
  return pageOf(found, (book) => encodeCursor(book.title, book.id))
}

/** The best-selling books, as the catalogue's best-selling sort orders them (copies sold in paid orders). */
export async function bestSellers(db: Db): Promise<OpdsBook[]> {
  const index = await readFacetIndex(db)
  const top = index.orders['best-selling'].subarray(0, BEST_SELLERS)
  return readBooksInOrder(
    db,
    Array.from(top, (position) => index.ids[position]!),
  )
}

/**
 * The reader's library (as /account/library lists it, an archived book included: owners keep theirs), each book
 * with the files they download and its editions. A book's `updated` is its newest edition's date, so an app
 * sees the update.
 */
export async function libraryBooks(db: Db, userId: string): Promise<OpdsBook[]> {
  const library = await listLibrary(db, userId)
  if (library.length === 0) return []
  const ids = library.map((item) => item.bookId)
  const details = new Map(
    (await readBooks(db, inArray(books.id, ids), [asc(books.id)], ids.length, { publishedOnly: false })).map(
      (book) => [book.id, book],
    ),
  )
  const editions = await db
    .select({
      bookId: bookEditions.bookId,
      number: bookEditions.number,
      publishedAt: bookEditions.publishedAt,
    })
    .from(bookEditions)
    .where(inArray(bookEditions.bookId, ids))
    .orderBy(desc(bookEditions.number))
  return library.flatMap((item) => {
    const book = details.get(item.bookId)
    if (!book) return []
    const edition = item.edition
    return [
      {
        ...book,
        updated: edition && edition.publishedAt > book.updated ? edition.publishedAt : book.updated,
        owned: {
          files: item.files,
          edition,
          earlierEditions: editions
            .filter((row) => row.bookId === item.bookId && row.number !== edition?.number)
            .map(({ number, publishedAt }) => ({ number, publishedAt })),
        },
      },
    ]
  })
}

/** A search's results, ranked as the store's search page ranks them (at most 100, 20 a page). */
export async function searchResults(
  db: Db,
  q: string,
  page: number,
): Promise<{ books: OpdsBook[]; total: number; page: number; pageCount: number }> {
  const found = await searchBooks(db, q, { page })
  return {
    books: await readBooksInOrder(
      db,
      found.books.map((book) => book.id),
    ),
    total: found.total,
    page: found.page,
    pageCount: found.pageCount,
  }
}

export { findPublishedTopic, listTopics }

/** These books, in this order (a published one each). */
async function readBooksInOrder(db: Db, ids: string[]): Promise<OpdsBook[]> {
  if (ids.length === 0) return []
  const byId = new Map(
    (await readBooks(db, inArray(books.id, ids), [asc(books.id)], ids.length)).map((b) => [b.id, b]),
  )
  return ids.flatMap((id) => byId.get(id) ?? [])
}

function pageOf(found: OpdsBook[], cursorOf: (book: OpdsBook) => string): BookPage {
  const books = found.slice(0, OPDS_PAGE_SIZE)
  return { books, next: found.length > OPDS_PAGE_SIZE ? cursorOf(books.at(-1)!) : null }
}

/** A page's cursor: the last book's sort key and id (exported for bench:catalog's deep pages). */
export function encodeCursor(key: string, id: string): string {
  return Buffer.from(JSON.stringify([key, id])).toString('base64url')
}

function decodeCursor(cursor: string): { key: string; id: string } {
  try {
    if (cursor.length > 1000) throw new Error('too long')
    const [key, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]
    if (typeof key !== 'string' || typeof id !== 'string' || !/^[0-9a-f-]{36}$/.test(id))
      throw new Error('shape')
    return { key, id }
  } catch (error) {
    throw new BadCursorError('This page link is not one the catalogue made.', { cause: error })
  }
}
