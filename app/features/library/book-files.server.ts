import { and, eq, lte, ne, sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { bookFiles, books } from '#app/server/db/schema/index.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { saveBookContents } from './book-contents.server.ts'
import { listNewestEditions } from './editions.server.ts'
import {
  bookFileFormatOf,
  editionKeys,
  publishedEditionKeys,
  publishEditions,
  readManuscript,
  type EditionKind,
  sha256Of,
} from './editions/build-editions.server.ts'
import { readEpubCover } from './editions/epub-cover.server.ts'
import { countPdfPages } from './editions/page-count.server.ts'

export type PublishSummary = { books: number; rendered: number; missingManuscripts: string[]; ms: number }

/**
 * Makes sure every book in the catalogue has its PDF, EPUB and sample in storage and listed in `book_files`
 * with their sizes and versions, rendering a book only when its manuscript (or the renderer) changed since
 * it was last rendered. Run at start-up; the renderer is deterministic, so instances that each render into
 * their own storage serve identical files. The PDF's size becomes the book's `file_size_bytes`.
 *
 * A book with editions published in the back office (decision 013) is rendered from its newest edition's
 * manuscript in the database, into that edition's keys, so a restart never reverts an admin's edition. Other
 * books are rendered from `readSource` (content/books) as edition 1; a book with no manuscript anywhere (made
 * in the back office, no edition yet) has no files, which the library shows as 'being prepared'.
 */
export async function publishBookFiles(
  db: Db,
  storage: FileStorage,
  logger: Logger,
  /** The manuscript of a book: content/books/<slug>.md (tests give a new edition their own text). */
  readSource: (slug: string) => Promise<string> = readManuscript,
): Promise<PublishSummary> {
  const started = performance.now()
  const catalogue = await db
    .select({
      id: books.id,
      slug: books.slug,
      title: books.title,
      author: books.author,
      cover: books.cover,
      coverPath: books.coverPath,
    })
    .from(books)
  const newestEditions = await listNewestEditions(db)
  const missingManuscripts: string[] = []
  let rendered = 0
  for (const book of catalogue) {
    const published = newestEditions.get(book.id)
    let manuscript: string
    if (published) {
      manuscript = published.manuscript
    } else {
      try {
        manuscript = await readSource(book.slug)
      } catch (error) {
        logger.warn({ slug: book.slug, err: error }, 'no manuscript: the book has no files to download')
        missingManuscripts.push(book.slug)
        continue
      }
    }
    const edition = published?.number ?? 1
    const keys = published ? publishedEditionKeys(book.id, edition) : editionKeys(book.slug)
    const cover = await readEpubCover(storage, book)
    const result = await publishEditions(storage, book, manuscript, { keys, cover })
    if (result.rendered) rendered++
    const sourceHash = sha256Of(manuscript)
    // Pages are counted once per file: a row listed before (same bytes, pages known) keeps its count.
    const listed = await db
      .select({ format: bookFiles.format, sha256: bookFiles.sha256, pageCount: bookFiles.pageCount })
      .from(bookFiles)
      .where(eq(bookFiles.bookId, book.id))
    for (const kind of Object.keys(keys) as EditionKind[]) {
      const bytes = await storage.read(keys[kind])
      if (!bytes) throw new Error(`${keys[kind]} is missing right after it was published`)
      const sha256 = sha256Of(bytes)
      const before = listed.find((file) => file.format === bookFileFormatOf[kind] && file.sha256 === sha256)
      const row = {
        bookId: book.id,
        format: bookFileFormatOf[kind],
        storageKey: keys[kind],
        sizeBytes: bytes.length,
        sha256,
        sourceHash,
        edition,
        pageCount: kind === 'epub' ? null : (before?.pageCount ?? (await countPdfPages(bytes))),
      }
      const written = await db
        .insert(bookFiles)
        .values(row)
        .onConflictDoUpdate({
          target: [bookFiles.bookId, bookFiles.format],
          set: {
            storageKey: row.storageKey,
            sizeBytes: row.sizeBytes,
            sha256: row.sha256,
            sourceHash: row.sourceHash,
            edition: row.edition,
            pageCount: row.pageCount,
            updatedAt: sql`case when ${bookFiles.sha256} = ${row.sha256} then ${bookFiles.updatedAt} else now() end`,
          },
          // An edition published elsewhere while this instance started is newer than what it read: keep it.
          setWhere: lte(bookFiles.edition, row.edition),
        })
        .returning({ edition: bookFiles.edition })
      if (kind === 'pdf' && written.length > 0)
        await db
          .update(books)
          .set({ fileSizeBytes: bytes.length })
          .where(and(eq(books.id, book.id), ne(books.fileSizeBytes, bytes.length)))
    }
    await saveBookContents(db, { bookId: book.id, edition, manuscript, sourceHash })
  }
  const summary = {
    books: catalogue.length,
    rendered,
    missingManuscripts,
    ms: Math.round(performance.now() - started),
  }
  logger.info(summary, 'book files published')
  return summary
}
