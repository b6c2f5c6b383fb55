import { and, desc, eq, sql } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { markErrataFixed } from '#app/features/errata/errata-triage.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { bookEditions, bookFiles, books, libraryItems, user } from '#app/server/db/schema/index.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { saveBookContents } from './book-contents.server.ts'
import {
  bookFileFormatOf,
  buildEditions,
  editionFingerprint,
  publishedEditionKeys,
  publishEditions,
  sha256Of,
  writeEditions,
  type EditionKind,
  type Editions,
} from './editions/build-editions.server.ts'
import { ManuscriptError } from './editions/manuscript.ts'
import { readEpubCover } from './editions/epub-cover.server.ts'
import { countPdfPages } from './editions/page-count.server.ts'
import type { ManuscriptFieldErrors } from './manuscript-form.ts'
import { readSeller } from '#app/features/settings/store-settings.server.ts'
import { describeManuscript, readSeedManuscript, writeDraft } from './manuscript-drafts.server.ts'
import { newEditionEmail } from './new-edition-email.ts'

export type EditionSummary = {
  number: number
  changelog: string
  publishedAt: Date
  publishedBy: string | null
}

/** A book's published editions, newest first, with the email of who published each (null: seed or deleted). */
export async function listEditions(db: Db, bookId: string): Promise<EditionSummary[]> {
  return db
    .select({
      number: bookEditions.number,
      changelog: bookEditions.changelog,
      publishedAt: bookEditions.publishedAt,
      publishedBy: user.email,
    })
    .from(bookEditions)
    .leftJoin(user, eq(user.id, bookEditions.publishedBy))
    .where(eq(bookEditions.bookId, bookId))
    .orderBy(desc(bookEditions.number))
}

/** The newest edition of each book that has one: what its files are rendered from (publishBookFiles). */
export async function listNewestEditions(
  db: Db,
): Promise<Map<string, { number: number; manuscript: string }>> {
  const rows = await db
    .selectDistinctOn([bookEditions.bookId], {
      bookId: bookEditions.bookId,
      number: bookEditions.number,
      manuscript: bookEditions.manuscript,
    })
    .from(bookEditions)
    .orderBy(bookEditions.bookId, desc(bookEditions.number))
  return new Map(rows.map(({ bookId, ...edition }) => [bookId, edition]))
}

/**
 * Renders into this instance's storage the edition `book_files` lists for a book, from its manuscript in
 * `book_editions`, when the files are missing here: with local storage (decision 010) an edition published on
 * another instance exists only there until this one renders it. Deterministic, so the bytes are the ones the
 * database lists. Returns false when the listed files are not a recorded edition (a seed book's edition 1,
 * rendered from content/books at start-up) or the book has none.
 */
export async function renderListedEdition(db: Db, storage: FileStorage, bookId: string): Promise<boolean> {
  const [listed] = await db
    .select({
      slug: books.slug,
      title: books.title,
      author: books.author,
      cover: books.cover,
      coverPath: books.coverPath,
      number: bookEditions.number,
      manuscript: bookEditions.manuscript,
      storageKey: bookFiles.storageKey,
    })
    .from(bookFiles)
    .innerJoin(books, eq(books.id, bookFiles.bookId))
    .innerJoin(
      bookEditions,
      and(eq(bookEditions.bookId, bookFiles.bookId), eq(bookEditions.number, bookFiles.edition)),
    )
    .where(and(eq(bookFiles.bookId, bookId), eq(bookFiles.format, 'pdf')))
  if (!listed) return false
  const keys = publishedEditionKeys(bookId, listed.number)
  if (listed.storageKey !== keys.pdf) return false
  await publishEditions(storage, listed, listed.manuscript, {
    keys,
    cover: await readEpubCover(storage, listed),
  })
  return true
}

export type PublishEditionResult =
  | { ok: true; edition: number; notified: number; fixedErrata: number }
  | { ok: false; status: 400; fieldErrors: ManuscriptFieldErrors }
  | { ok: false; status: 404 }

/**
 * Publishes a manuscript as the book's next edition. It is parsed and rendered first: a manuscript that
 * fails is refused with the renderer's message and nothing changes. The files are then written under keys
 * of their own (`editions/<book id>/<number>/`), never over the live edition's, and one transaction, holding
 * the book's row lock so concurrent publishes take numbers one after the other, records the edition (and, for
 * a seed book's first, its edition 1 from content/books), points `book_files` at the new files, saves the
 * draft, writes the audit entry and queues one email per owner. Kick the outbox after it returns.
 */
export async function publishEdition(
  db: Db,
  storage: FileStorage,
  options: {
    bookId: string
    manuscript: string
    changelog: string
    actor: Actor
    /** The library's address in the mail, e.g. https://codebook.example/account/library. */
    libraryUrl: string
    logger: Logger
  },
): Promise<PublishEditionResult> {
  const { bookId, manuscript, changelog, actor, logger } = options
  const [book] = await db
    .select({
      id: books.id,
      slug: books.slug,
      title: books.title,
      author: books.author,
      cover: books.cover,
      coverPath: books.coverPath,
    })
    .from(books)
    .where(eq(books.id, bookId))
  if (!book) return { ok: false, status: 404 }
  const cover = await readEpubCover(storage, book)

  let editions: Editions
  try {
    editions = await buildEditions(book, manuscript, { source: 'manuscript', cover })
  } catch (error) {
    if (!(error instanceof ManuscriptError))
      logger.error({ err: error, bookId }, 'rendering a manuscript failed outside the parser')
    const message = error instanceof Error ? error.message : String(error)
    return {
      ok: false,
      status: 400,
      fieldErrors: { manuscript: `This manuscript cannot be published: ${message}` },
    }
  }
  const seedManuscript = await readSeedManuscript(book.slug)
  const sourceHash = sha256Of(manuscript)
  const files = await Promise.all(
    (Object.keys(bookFileFormatOf) as EditionKind[]).map(async (kind) => ({
      kind,
      bytes: editions[kind],
      sha256: sha256Of(editions[kind]),
      pageCount: kind === 'epub' ? null : await countPdfPages(editions[kind]),
    })),
  )

  const outcome = await db.transaction(async (tx) => {
    // Concurrent publishes of one book wait here, so each sees the edition the one before it made.
    await tx.select({ id: books.id }).from(books).where(eq(books.id, bookId)).for('update')
    const previous = await previousEdition(tx, bookId)
    const number = previous.number + 1
    if (previous.number === 1 && !previous.recorded && seedManuscript !== null) {
      // A seed book's first edition in the back office: its content/books text becomes edition 1, so the
      // list of editions is complete.
      await tx.insert(bookEditions).values({
        bookId,
        number: 1,
        changelog: 'First edition.',
        manuscript: seedManuscript,
        sourceHash: sha256Of(seedManuscript),
        publishedBy: null,
        publishedAt: previous.filesSince ?? new Date(),
      })
    }
    // Written while the row is locked, so no other publish can be writing the same edition's keys; the
    // live edition's files (other keys) are untouched, and a rollback leaves only unlisted files.
    const keys = publishedEditionKeys(bookId, number)
    await writeEditions(storage, keys, editions, editionFingerprint(book, manuscript, cover))

    await tx.insert(bookEditions).values({
      bookId,
      number,
      changelog,
      manuscript,
      sourceHash,
      publishedBy: actor.id,
      publishedAt: new Date(),
    })
    for (const file of files) {
      const row = {
        bookId,
        format: bookFileFormatOf[file.kind],
        storageKey: keys[file.kind],
        sizeBytes: file.bytes.length,
        sha256: file.sha256,
        sourceHash,
        edition: number,
        pageCount: file.pageCount,
      }
      await tx
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
            updatedAt: new Date(),
          },
        })
    }
    await saveBookContents(tx, { bookId, edition: number, manuscript, sourceHash })
    await tx.update(books).set({ fileSizeBytes: editions.pdf.length }).where(eq(books.id, bookId))
    await writeDraft(tx, bookId, manuscript, actor)
    await recordAudit(tx, {
      actor,
      action: 'book.publish-edition',
      entityType: 'book',
      entityId: bookId,
      before: { edition: previous.number || null },
      after: {
        edition: number,
        changelog,
        manuscript: describeManuscript(manuscript),
        files: Object.fromEntries(
          files.map((file) => [
            bookFileFormatOf[file.kind],
            { bytes: file.bytes.length, sha256: file.sha256 },
          ]),
        ),
      },
    })
    const owners = await tx
      .select({ userId: libraryItems.userId, email: user.email })
      .from(libraryItems)
      .innerJoin(user, eq(user.id, libraryItems.userId))
      .where(eq(libraryItems.bookId, bookId))
    const { storeName } = owners.length > 0 ? await readSeller(tx) : { storeName: '' }
    for (const owner of owners) {
      await enqueueEmail(tx, {
        kind: 'new-edition',
        subjectKey: `${bookId}:${number}:${owner.userId}`,
        to: owner.email,
        ...newEditionEmail({
          title: book.title,
          edition: number,
          changelog,
          libraryUrl: options.libraryUrl,
          store: storeName,
        }),
      })
    }
    // The confirmed errata are fixed in this edition; their reporters hear so (issue 29).
    const fixedErrata = await markErrataFixed(tx, book, number, {
      bookUrl: new URL(`/books/${book.slug}`, options.libraryUrl).toString(),
      store: owners.length > 0 ? storeName : (await readSeller(tx)).storeName,
    })
    return { edition: number, notified: owners.length, fixedErrata }
  })
  logger.info({ bookId, slug: book.slug, ...outcome }, 'new edition published')
  return { ok: true, ...outcome }
}

/**
 * The edition a book is at: the newest recorded in `book_editions`, or 1 when it has files but no recorded
 * edition (a seed book, published at start-up), or 0 when it has neither (a new book).
 */
async function previousEdition(
  tx: Transaction,
  bookId: string,
): Promise<{ number: number; recorded: boolean; filesSince: Date | null }> {
  const [recorded] = await tx
    .select({ number: sql<number>`max(${bookEditions.number})::int` })
    .from(bookEditions)
    .where(eq(bookEditions.bookId, bookId))
  const [listed] = await tx
    .select({
      edition: sql<number>`max(${bookFiles.edition})::int`,
      since: sql<string | null>`min(${bookFiles.createdAt})`,
    })
    .from(bookFiles)
    .where(eq(bookFiles.bookId, bookId))
  const recordedNumber = recorded?.number ?? 0
  const listedNumber = listed?.edition ?? 0
  return {
    number: Math.max(recordedNumber, listedNumber),
    recorded: recordedNumber > 0,
    filesSince: listed?.since ? new Date(listed.since) : null,
  }
}
