import { desc, eq, sql } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { bookEditions, bookFiles, bookManuscripts, books } from '#app/server/db/schema/index.server.ts'
import { readManuscript, sha256Of } from './editions/build-editions.server.ts'

/*
 * The manuscript a book's next edition is written in, as the back office works on it: read (draft, newest
 * edition, seed file), saved as a draft, audited. Publishing it is editions.server.ts's.
 */

export type WorkingManuscript = {
  text: string
  /** Where the text comes from: a saved draft, the newest edition, the seed's file, or nothing yet. */
  source: 'draft' | 'edition' | 'seed' | 'none'
  updatedAt: Date | null
}

/**
 * The manuscript the back office edits: the saved draft, else the newest edition's, else the seed's
 * `content/books/<slug>.md`, else nothing (a book made in the back office before its first edition).
 */
export async function getWorkingManuscript(
  db: Db,
  book: { id: string; slug: string },
): Promise<WorkingManuscript> {
  const [draft] = await db
    .select({ source: bookManuscripts.source, updatedAt: bookManuscripts.updatedAt })
    .from(bookManuscripts)
    .where(eq(bookManuscripts.bookId, book.id))
  if (draft) return { text: draft.source, source: 'draft', updatedAt: draft.updatedAt }
  const [edition] = await db
    .select({ manuscript: bookEditions.manuscript, publishedAt: bookEditions.publishedAt })
    .from(bookEditions)
    .where(eq(bookEditions.bookId, book.id))
    .orderBy(desc(bookEditions.number))
    .limit(1)
  if (edition) return { text: edition.manuscript, source: 'edition', updatedAt: edition.publishedAt }
  const seed = await readSeedManuscript(book.slug)
  if (seed !== null) return { text: seed, source: 'seed', updatedAt: null }
  return { text: '', source: 'none', updatedAt: null }
}

/** content/books/<slug>.md, or null when the book has none (a book made in the back office). */
export async function readSeedManuscript(slug: string): Promise<string | null> {
  try {
    return await readManuscript(slug)
  } catch {
    return null
  }
}

/**
 * Saves the working draft (nothing is published); recorded in the audit log by its size and hash. Saving the
 * same text again changes and records nothing.
 */
export async function saveManuscriptDraft(
  db: Db,
  options: { bookId: string; manuscript: string; actor: Actor; via: 'editor' | 'upload' },
): Promise<void> {
  const { bookId, manuscript, actor, via } = options
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ source: bookManuscripts.source })
      .from(bookManuscripts)
      .where(eq(bookManuscripts.bookId, bookId))
      .for('update')
    if (before?.source === manuscript) return
    await writeDraft(tx, bookId, manuscript, actor)
    await recordAudit(tx, {
      actor,
      action: via === 'upload' ? 'book.upload-manuscript' : 'book.save-manuscript',
      entityType: 'book',
      entityId: bookId,
      before: before ? describeManuscript(before.source) : null,
      after: describeManuscript(manuscript),
    })
  })
}

/** What the audit log keeps of a manuscript: not the text (up to 2 MB), but enough to tell versions apart. */
export function describeManuscript(text: string) {
  return { bytes: new TextEncoder().encode(text).length, sha256: sha256Of(text) }
}

/** The book the manuscript page is about, with the edition its files are (0: none yet). */
export async function getManuscriptBook(
  db: Db,
  bookId: string,
): Promise<{ id: string; slug: string; title: string; liveEdition: number } | null> {
  const [book] = await db
    .select({
      id: books.id,
      slug: books.slug,
      title: books.title,
      liveEdition: sql<number>`coalesce((select max(${bookFiles.edition}) from ${bookFiles} where ${bookFiles.bookId} = ${books.id}), 0)::int`,
    })
    .from(books)
    .where(eq(books.id, bookId))
  return book ?? null
}

/** The book's working manuscript becomes `manuscript`, as `actor` left it. */
export async function writeDraft(
  tx: Transaction,
  bookId: string,
  manuscript: string,
  actor: Actor,
): Promise<void> {
  await tx
    .insert(bookManuscripts)
    .values({ bookId, source: manuscript, updatedBy: actor.id, updatedAt: new Date() })
    .onConflictDoUpdate({
      target: bookManuscripts.bookId,
      set: { source: manuscript, updatedBy: actor.id, updatedAt: new Date() },
    })
}
