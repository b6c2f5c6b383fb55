import { and, eq } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { Db } from '#app/server/db/database.server.ts'
import { bookEditions } from '#app/server/db/schema/index.server.ts'
import { readManuscript } from '#app/features/library/editions/build-editions.server.ts'
import { parseManuscript, type Manuscript } from '#app/features/library/editions/manuscript.ts'
import { findOpening, firstPageOf, type FirstPage } from './first-page.ts'
import { getPosition } from './positions.server.ts'
import type { ReaderBook } from './reader-books.server.ts'

/**
 * Editions' manuscripts parsed this process's lifetime, by their text's hash (`book_editions.source_hash`, or
 * the seed file's slug for a book never published through the back office): a 300-page book parses in tens of
 * milliseconds, and every opening of the reader wants its first page. Only a miss reads the text itself.
 */
const parsed = new LRUCache<string, Manuscript>({
  // About twice the text's size in memory: at most ~32 MB of parsed books held.
  maxSize: 32 * 1024 * 1024,
})

/** The edition's manuscript, parsed: the text its EPUB (and the owner's stamped copy) was made from. */
async function editionManuscript(db: Db, book: ReaderBook): Promise<Manuscript> {
  const ofEdition = and(eq(bookEditions.bookId, book.id), eq(bookEditions.number, book.edition))
  const [edition] = await db
    .select({ sourceHash: bookEditions.sourceHash })
    .from(bookEditions)
    .where(ofEdition)
    .limit(1)
  const key = edition ? edition.sourceHash : `seed:${book.slug}`
  const kept = parsed.get(key)
  if (kept) return kept
  const text = edition
    ? (
        await db.select({ manuscript: bookEditions.manuscript }).from(bookEditions).where(ofEdition).limit(1)
      )[0]?.manuscript
    : await readManuscript(book.slug)
  if (text === undefined) throw new Error(`edition ${book.edition} of ${book.slug} is gone`)
  const manuscript = parseManuscript(text, `${book.slug} (edition ${book.edition})`)
  parsed.set(key, manuscript, { size: Math.max(1, text.length * 2) })
  return manuscript
}

/**
 * The text of the reader's first screen (decision 041): where the book opens for this reader — the owner's
 * saved place (found by its quote, in this edition or the one it was saved in), else the first chapter; the
 * sample's first chapter. Null when the place cannot be found (the reader opens it in the browser as before).
 * The words are the book's chapters' own, the same in the source EPUB and in the owner's stamped copy (whose
 * stamp is a page of its own).
 */
export async function readerFirstPage(
  db: Db,
  book: ReaderBook,
  reader: { mode: 'sample' } | { mode: 'owner'; userId: string },
): Promise<FirstPage | null> {
  const [manuscript, position] = await Promise.all([
    editionManuscript(db, book),
    reader.mode === 'owner' ? getPosition(db, { userId: reader.userId, bookId: book.id }) : null,
  ])
  // A place without words (the cover) is not found in the chapters: the browser opens it as before.
  const quote = position ? position.quote : null
  if (position && !quote) return null
  const opening = findOpening(manuscript, quote)
  return opening ? firstPageOf(manuscript, opening) : null
}
