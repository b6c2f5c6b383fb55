import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { Db } from '#app/server/db/database.server.ts'
import { bookEditions, bookFiles, books } from '#app/server/db/schema/index.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { readManuscript } from '#app/features/library/editions/build-editions.server.ts'
import { readEpubCover } from '#app/features/library/editions/epub-cover.server.ts'
import { parseManuscript } from '#app/features/library/editions/manuscript.ts'
import { renderBookEpub } from '#app/features/library/editions/render-epub.server.ts'
import { getOwnership } from '#app/features/library/library.server.ts'

/** Slugs as the catalogue makes them; anything else is not a book (and never reaches a query). */
export const readerSlugPattern = /^[a-z0-9][a-z0-9-]{0,99}$/

export type ReaderBook = {
  id: string
  slug: string
  title: string
  author: string
  status: 'draft' | 'published' | 'archived'
  /** The edition owners read: the one `book_files` lists. */
  edition: number
}

/** A book the reader can open (one with an EPUB listed), by slug; null for anything else. */
export async function findReaderBook(db: Db, slug: string): Promise<ReaderBook | null> {
  if (!readerSlugPattern.test(slug)) return null
  const [row] = await db
    .select({
      id: books.id,
      slug: books.slug,
      title: books.title,
      author: books.author,
      status: books.status,
      edition: bookFiles.edition,
    })
    .from(books)
    .innerJoin(bookFiles, and(eq(bookFiles.bookId, books.id), eq(bookFiles.format, 'epub')))
    .where(eq(books.slug, slug))
    .limit(1)
  return row ?? null
}

/**
 * Opening a book in the reader is not a download (decision 030), but it hands over the same stamped file: a
 * limit of its own, far above any reading (each opening fetches it once), so the reader's address cannot serve
 * as an unlimited download. Parts (Range) are not counted.
 */
export const READER_OPENS_PER_DAY = { name: 'reader-opens', limit: 300, windowMs: 24 * 3600_000 }

/**
 * What `userId` may read of `book`: the whole book while they own it (a refund takes it back at once: the
 * library item goes), the sample while the book is in the store, or nothing.
 */
export async function readerAccess(
  db: Db,
  book: ReaderBook,
  userId: string | null,
): Promise<{ whole: boolean; sample: boolean }> {
  const whole = userId ? (await getOwnership(db, userId, book.id)) !== null : false
  return { whole, sample: book.status === 'published' }
}

/** Sample EPUBs made this process's lifetime, by book and manuscript: one chapter renders in milliseconds. */
const samples = new LRUCache<string, { bytes: Uint8Array; sha256: string }>({
  // A sample is tens of KB: at most 8 MB held, whichever books are read.
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (sample) => sample.bytes.length,
})

/**
 * The free sample as an EPUB, for the online reader: the live edition's sample (cover, title page, first
 * chapter, closing page, paginated like the sample PDF), made from the same manuscript as the PDF sample (the
 * newest published edition's, or the seed's file in content/books for a book without one). Unstamped; the
 * same for everyone.
 */
export async function sampleEpub(
  db: Db,
  storage: FileStorage,
  book: ReaderBook,
): Promise<{ bytes: Uint8Array; sha256: string }> {
  const [[edition], [coverRow]] = await Promise.all([
    db
      .select({ manuscript: bookEditions.manuscript })
      .from(bookEditions)
      .where(and(eq(bookEditions.bookId, book.id), eq(bookEditions.number, book.edition)))
      .limit(1),
    db
      .select({ slug: books.slug, cover: books.cover, coverPath: books.coverPath })
      .from(books)
      .where(eq(books.id, book.id)),
  ])
  const text = edition?.manuscript ?? (await readManuscript(book.slug))
  // The cover is in the sample too: a new one makes a new sample.
  const key = createHash('sha256')
    .update(JSON.stringify([book.id, book.title, book.author, text, coverRow?.cover, coverRow?.coverPath]))
    .digest('hex')
  const kept = samples.get(key)
  if (kept) return kept
  const bytes = await renderBookEpub(
    { slug: book.slug, title: book.title, author: book.author },
    parseManuscript(text, `${book.slug} (edition ${book.edition})`),
    { cover: coverRow ? await readEpubCover(storage, coverRow) : undefined, sampleOnly: true },
  )
  const sample = { bytes, sha256: createHash('sha256').update(bytes).digest('hex') }
  samples.set(key, sample)
  return sample
}
