import { and, desc, eq, lte, ne, or } from 'drizzle-orm'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { bookContents, bookEditions, bookFiles } from '#app/server/db/schema/index.server.ts'
import { type EditionContents, readContents, readingMinutes } from './editions/contents.ts'
import { parseManuscript } from './editions/manuscript.ts'

/**
 * Records what the live edition's manuscript holds (table of contents, words) beside its files, unless it is
 * already recorded for this manuscript; an edition older than the recorded one never replaces it (another
 * instance published a newer one meanwhile). Parses the manuscript only when it changed.
 */
export async function saveBookContents(
  db: Db | Transaction,
  options: { bookId: string; edition: number; manuscript: string; sourceHash: string },
): Promise<void> {
  const { bookId, edition, manuscript, sourceHash } = options
  const [recorded] = await db
    .select({ sourceHash: bookContents.sourceHash, edition: bookContents.edition })
    .from(bookContents)
    .where(eq(bookContents.bookId, bookId))
  if (recorded && recorded.sourceHash === sourceHash && recorded.edition === edition) return
  const { chapters, wordCount } = readContents(parseManuscript(manuscript))
  const row = { bookId, edition, sourceHash, wordCount, chapters, updatedAt: new Date() }
  await db
    .insert(bookContents)
    .values(row)
    .onConflictDoUpdate({
      target: bookContents.bookId,
      set: { edition, sourceHash, wordCount, chapters, updatedAt: row.updatedAt },
      setWhere: and(
        lte(bookContents.edition, edition),
        or(ne(bookContents.sourceHash, sourceHash), ne(bookContents.edition, edition)),
      ),
    })
}

export type EditionFormat = { format: 'pdf' | 'epub'; sizeBytes: number; pageCount: number | null }

export type EditionDetails = {
  /** The formats sold, PDF first, with their sizes and the PDF's pages. */
  formats: EditionFormat[]
  sample: { sizeBytes: number; pageCount: number | null } | null
  contents: (EditionContents & { readingMinutes: number }) | null
  /** The live edition: its number and since when (the files' date for a seed book's unrecorded first). */
  edition: { number: number; publishedAt: Date } | null
  /** Every recorded edition, newest first, with what changed. */
  changelog: { number: number; publishedAt: Date; changelog: string }[]
}

/**
 * What the book page tells of a book's live edition: its formats, pages, contents, reading time and the
 * editions before it. Three reads by the book's key (book_files, book_contents and book_editions primary keys).
 */
export async function getEditionDetails(db: Db, bookId: string): Promise<EditionDetails> {
  const [files, [contents], changelog] = await Promise.all([
    db
      .select({
        format: bookFiles.format,
        sizeBytes: bookFiles.sizeBytes,
        pageCount: bookFiles.pageCount,
        edition: bookFiles.edition,
        createdAt: bookFiles.createdAt,
      })
      .from(bookFiles)
      .where(eq(bookFiles.bookId, bookId)),
    db
      .select({ chapters: bookContents.chapters, wordCount: bookContents.wordCount })
      .from(bookContents)
      .where(eq(bookContents.bookId, bookId)),
    db
      .select({
        number: bookEditions.number,
        publishedAt: bookEditions.publishedAt,
        changelog: bookEditions.changelog,
      })
      .from(bookEditions)
      .where(eq(bookEditions.bookId, bookId))
      .orderBy(desc(bookEditions.number)),
  ])
  const byFormat = new Map(files.map((file) => [file.format, file]))
  const formats = (['pdf', 'epub'] as const).flatMap((format) => {
    const file = byFormat.get(format)
    return file ? [{ format, sizeBytes: file.sizeBytes, pageCount: file.pageCount }] : []
  })
  const sample = byFormat.get('sample')
  const pdf = byFormat.get('pdf')
  const live = pdf ? changelog.find((entry) => entry.number === pdf.edition) : undefined
  return {
    formats,
    sample: sample ? { sizeBytes: sample.sizeBytes, pageCount: sample.pageCount } : null,
    contents: contents ? { ...contents, readingMinutes: readingMinutes(contents.wordCount) } : null,
    edition: pdf ? { number: pdf.edition, publishedAt: live?.publishedAt ?? pdf.createdAt } : null,
    changelog,
  }
}
