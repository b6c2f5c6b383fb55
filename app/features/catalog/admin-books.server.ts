import { and, eq, ne, sql } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { retryOnConflict } from '#app/server/db/retry.server.ts'
import {
  bookFiles,
  books,
  bookSlugRedirects,
  bundleBooks,
  bundles,
  orderItems,
  type CoverImage,
} from '#app/server/db/schema/index.server.ts'
import { deleteUnpaidGiftsOfBook } from '#app/features/gifts/gifts.server.ts'
import { readBookPrices, writeBookPrices } from '#app/features/currency/book-prices.server.ts'
import {
  centsToPrice,
  STATUS_ACTIONS,
  type BookFieldErrors,
  type BookFormValues,
  type StatusAction,
} from './book-form.ts'
import type { BookInput } from './book-form.server.ts'
import { invalidateCatalog } from './catalog-cache.server.ts'
import type { Book } from './catalog.server.ts'
import { listBookTopics, setBookTopics } from './topics.server.ts'

/** A new book's cover until one is uploaded. */
export const PLACEHOLDER_COVER_PATH = '/covers/placeholder.svg'

export const adminBookMessages = {
  conflict:
    'Someone else saved this book while you were editing it. Your changes are below, not saved: compare them with the current book (reload in another tab), then save again.',
  sold: 'This book has been sold, so it cannot be deleted: its buyers keep it in their libraries. Archive it instead to take it out of the store.',
  slugTaken: 'Another book already has this slug.',
  slugUsedBefore:
    'Another book had this slug before and its old links still lead to it. Please choose another.',
  featuredTaken: (title: string) => `Another featured book (“${title}”) already has this position.`,
  noFiles:
    'This book has no files to sell yet: publish its first edition on the Manuscript page, then put it on sale.',
} as const

/**
 * A book goes on sale only with its PDF and EPUB in place (published from its manuscript, decision 013):
 * otherwise a buyer would pay for a library entry with nothing to download.
 */
async function hasSellableFiles(tx: Transaction, bookId: string): Promise<boolean> {
  const rows = await tx
    .select({ format: bookFiles.format })
    .from(bookFiles)
    .where(eq(bookFiles.bookId, bookId))
  const formats = new Set(rows.map((row) => row.format))
  return formats.has('pdf') && formats.has('epub')
}

/** A book as the back office edits it: with its prices in other currencies than its own (decision 040). */
export type AdminBook = Book & { prices: Record<string, number> }

/** What the audit log keeps of a book, before and after a change (not timestamps: the log has its own). */
export function auditView(book: AdminBook) {
  return {
    slug: book.slug,
    title: book.title,
    author: book.author,
    description: book.description,
    priceCents: book.priceCents,
    pwywMinCents: book.pwywMinCents,
    currency: book.currency,
    prices: book.prices,
    topics: book.topics,
    level: book.level,
    featured: book.featured,
    featuredPosition: book.featuredPosition,
    bestSeller: book.bestSeller,
    status: book.status,
    cover: book.cover,
    version: book.version,
  }
}

/**
 * A book row with `topics` read from `book_topics` (the names in order), not from the search index's copy, and
 * its prices in other currencies.
 */
async function readBook(tx: Db | Transaction, id: string, lock = false): Promise<AdminBook | undefined> {
  const query = tx.select().from(books).where(eq(books.id, id))
  const [book] = await (lock ? query.for('update') : query.limit(1))
  if (!book) return undefined
  const [topics, prices] = await Promise.all([listBookTopics(tx, id), readBookPrices(tx, id)])
  return { ...book, topics: topics.map((topic) => topic.name), prices }
}

export async function getAdminBook(db: Db, id: string): Promise<AdminBook | undefined> {
  if (!isUuid(id)) return undefined
  return readBook(db, id)
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
}

export type SaveResult =
  | { outcome: 'saved'; book: AdminBook }
  | { outcome: 'invalid'; fieldErrors: BookFieldErrors }
  | { outcome: 'conflict'; current: AdminBook }
  | { outcome: 'not-found' }

/** A slug or featured position another book holds: field errors (checked in the transaction that writes). */
async function clashes(tx: Transaction, input: BookInput, bookId: string | null): Promise<BookFieldErrors> {
  const errors: BookFieldErrors = {}
  const other = bookId ? ne(books.id, bookId) : undefined
  const [sameSlug] = await tx
    .select({ id: books.id })
    .from(books)
    .where(and(eq(books.slug, input.slug), other))
    .limit(1)
  if (sameSlug) errors.slug = adminBookMessages.slugTaken
  else {
    const [oldSlug] = await tx
      .select({ bookId: bookSlugRedirects.bookId })
      .from(bookSlugRedirects)
      .where(eq(bookSlugRedirects.slug, input.slug))
      .limit(1)
    if (oldSlug && oldSlug.bookId !== bookId) errors.slug = adminBookMessages.slugUsedBefore
  }
  if (input.featuredPosition !== null) {
    const [holder] = await tx
      .select({ title: books.title })
      .from(books)
      .where(and(eq(books.featuredPosition, input.featuredPosition), other))
      .limit(1)
    if (holder) errors.featuredPosition = adminBookMessages.featuredTaken(holder.title)
  }
  return errors
}

/**
 * A unique index refused the write: a concurrent save took the slug or the position between our check and
 * our write. Reported as the same field error the check gives.
 */
function uniqueClash(error: unknown): BookFieldErrors | null {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    const { code, constraint, message } = cause as { code?: string; constraint?: string; message?: string }
    if (code !== '23505') continue
    const name = constraint ?? message ?? ''
    if (name.includes('books_slug_unique') || name.includes('book_slug_redirects'))
      return { slug: adminBookMessages.slugTaken }
    if (name.includes('books_featured_position_unique'))
      return { featuredPosition: 'Another featured book already has this position.' }
  }
  return null
}

/** Runs a change's transaction (again, if PostgreSQL rolled it back for a deadlock); unique clashes as field errors. */
async function guarded<T>(work: () => Promise<T | SaveResult>): Promise<T | SaveResult> {
  try {
    return await retryOnConflict(work)
  } catch (error) {
    const fieldErrors = uniqueClash(error)
    if (fieldErrors) return { outcome: 'invalid', fieldErrors }
    throw error
  }
}

export async function createBook(db: Db, actor: Actor, input: BookInput): Promise<SaveResult> {
  const result = await guarded(() =>
    db.transaction(async (tx): Promise<SaveResult> => {
      const fieldErrors = await clashes(tx, input, null)
      // A new book has no files yet: it starts as a draft (or archived), never on sale.
      if (input.status === 'published') fieldErrors.status = adminBookMessages.noFiles
      if (Object.keys(fieldErrors).length > 0) return { outcome: 'invalid', fieldErrors }
      const { topics, ...fields } = input
      const [inserted] = await tx
        .insert(books)
        .values({
          ...fields,
          featured: input.featuredPosition !== null,
          coverPath: PLACEHOLDER_COVER_PATH,
          coverAlt: `Cover of ${input.title}`,
          rating: 0,
          fileSizeBytes: 0,
        })
        .returning({ id: books.id })
      await setBookTopics(tx, inserted!.id, topics)
      const book = await readBook(tx, inserted!.id)
      await recordAudit(tx, {
        actor,
        action: 'book.create',
        entityType: 'book',
        entityId: book!.id,
        after: auditView(book!),
      })
      return { outcome: 'saved', book: book! }
    }),
  )
  if (result.outcome === 'saved') invalidateCatalog(db)
  return result
}

/**
 * Saves an edit made to `version` of the book. When the book has changed since (another admin saved), nothing
 * is written: a conflict, with the book as it is now. A slug change keeps the old slug as a redirect. `prices`:
 * its prices in other currencies (null: not sold in it), saved and audited with the rest.
 */
export async function updateBook(
  db: Db,
  actor: Actor,
  bookId: string,
  version: number,
  input: BookInput,
  prices: Readonly<Record<string, number | null>> = {},
): Promise<SaveResult> {
  return changeBook(db, actor, bookId, version, 'book.update', async (tx, before) => {
    const fieldErrors = await clashes(tx, input, bookId)
    if (Object.keys(fieldErrors).length > 0) return { fieldErrors }
    if (input.slug !== before.slug) {
      // Back to one of its own old slugs: that URL is the book's again, not a redirect.
      await tx.delete(bookSlugRedirects).where(eq(bookSlugRedirects.slug, input.slug))
      await tx
        .insert(bookSlugRedirects)
        .values({ slug: before.slug, bookId })
        .onConflictDoUpdate({ target: bookSlugRedirects.slug, set: { bookId } })
    }
    const coverAlt = input.title !== before.title ? `Cover of ${input.title}` : before.coverAlt
    const { topics, ...fields } = input
    return {
      set: { ...fields, featured: input.featuredPosition !== null, coverAlt },
      alsoWrite: async (tx) => {
        await setBookTopics(tx, bookId, topics)
        // A price in the book's own currency is its price above: none is kept beside it.
        await writeBookPrices(tx, bookId, { ...prices, [input.currency]: null })
      },
    }
  })
}

/** Archive, unarchive or publish a draft: a status change of `version` (a conflict if the book moved on). */
export async function changeBookStatus(
  db: Db,
  actor: Actor,
  bookId: string,
  version: number,
  intent: StatusAction,
): Promise<SaveResult> {
  const change = STATUS_ACTIONS[intent]
  return changeBook(db, actor, bookId, version, change.action, async (_tx, before) =>
    (change.from as readonly string[]).includes(before.status)
      ? { set: { status: change.to as Book['status'] } }
      : { fieldErrors: { status: `This book is ${before.status}: it cannot be changed that way.` } },
  )
}

/** Sets the uploaded cover (its variants are already stored); the previous cover, to delete, is returned. */
export async function setBookCover(
  db: Db,
  actor: Actor,
  bookId: string,
  version: number,
  cover: CoverImage,
): Promise<SaveResult & { previous?: CoverImage | null }> {
  let previous: CoverImage | null = null
  const result = await changeBook(db, actor, bookId, version, 'book.cover', async (_tx, before) => {
    previous = before.cover
    return { set: { cover } }
  })
  return { ...result, previous }
}

/** `alsoWrite`: what else the change writes once the book's row is (the book's topics). */
type Change =
  | {
      set: Partial<Omit<typeof books.$inferInsert, 'topics'>>
      alsoWrite?: (tx: Transaction) => Promise<void>
    }
  | { fieldErrors: BookFieldErrors }

/**
 * The one way a book is changed: locks the row, checks the version the admin saw, writes the change with the
 * next version and its audit entry in one transaction, then clears the store's catalogue cache.
 */
async function changeBook(
  db: Db,
  actor: Actor,
  bookId: string,
  version: number,
  action: string,
  decide: (tx: Transaction, before: Book) => Promise<Change>,
): Promise<SaveResult> {
  if (!isUuid(bookId)) return { outcome: 'not-found' }
  const result = await guarded(() =>
    db.transaction(async (tx): Promise<SaveResult> => {
      const before = await readBook(tx, bookId, true)
      if (!before) return { outcome: 'not-found' }
      if (before.version !== version) return { outcome: 'conflict', current: before }
      const change = await decide(tx, before)
      if ('fieldErrors' in change) return { outcome: 'invalid', fieldErrors: change.fieldErrors }
      if (
        change.set.status === 'published' &&
        before.status !== 'published' &&
        !(await hasSellableFiles(tx, bookId))
      )
        return { outcome: 'invalid', fieldErrors: { status: adminBookMessages.noFiles } }
      await tx
        .update(books)
        .set({ ...change.set, version: sql`${books.version} + 1` })
        .where(and(eq(books.id, bookId), eq(books.version, version)))
      await change.alsoWrite?.(tx)
      const after = await readBook(tx, bookId)
      await recordAudit(tx, {
        actor,
        action,
        entityType: 'book',
        entityId: bookId,
        before: auditView(before),
        after: auditView(after!),
      })
      return { outcome: 'saved', book: after! }
    }),
  )
  if (result.outcome === 'saved') invalidateCatalog(db)
  return result
}

export type DeleteResult =
  | { outcome: 'deleted'; book: Book }
  | { outcome: 'sold' }
  /** In a bundle (issue 30): it leaves the bundle first, or the bundle's buyers would get less than it says. */
  | { outcome: 'in-bundle'; bundles: string[] }
  | { outcome: 'conflict'; current: Book }
  | { outcome: 'not-found' }

/** Deletes a book nobody ever bought (its cart lines, files' rows and old slugs go with it). */
export async function deleteBook(
  db: Db,
  actor: Actor,
  bookId: string,
  version: number,
): Promise<DeleteResult> {
  if (!isUuid(bookId)) return { outcome: 'not-found' }
  const result = await db.transaction(async (tx): Promise<DeleteResult> => {
    const before = await readBook(tx, bookId, true)
    if (!before) return { outcome: 'not-found' }
    if (before.version !== version) return { outcome: 'conflict', current: before }
    const [sold] = await tx
      .select({ one: sql`1` })
      .from(orderItems)
      .where(eq(orderItems.bookId, bookId))
      .limit(1)
    if (sold) return { outcome: 'sold' }
    const bundled = await tx
      .select({ title: bundles.title })
      .from(bundleBooks)
      .innerJoin(bundles, eq(bundles.id, bundleBooks.bundleId))
      .where(eq(bundleBooks.bookId, bookId))
    if (bundled.length) return { outcome: 'in-bundle', bundles: bundled.map((row) => row.title) }
    // Gift forms filled in for it and never paid go with it (a paid one made an order line: 'sold').
    await deleteUnpaidGiftsOfBook(tx, bookId)
    await tx.delete(books).where(eq(books.id, bookId))
    await recordAudit(tx, {
      actor,
      action: 'book.delete',
      entityType: 'book',
      entityId: bookId,
      before: auditView(before),
    })
    return { outcome: 'deleted', book: before }
  })
  if (result.outcome === 'deleted') invalidateCatalog(db)
  return result
}

/** A stored book as the form shows it. */
export function bookToFormValues(book: Book): BookFormValues {
  return {
    title: book.title,
    slug: book.slug,
    author: book.author,
    description: book.description,
    price: centsToPrice(book.priceCents),
    pwywMin: book.pwywMinCents === null ? '' : centsToPrice(book.pwywMinCents),
    currency: book.currency,
    topics: book.topics.join(', '),
    level: book.level ?? 'none',
    featured: book.featured ? 'on' : '',
    featuredPosition: book.featuredPosition === null ? '' : String(book.featuredPosition),
    bestSeller: book.bestSeller ? 'on' : '',
    status: book.status,
  }
}
