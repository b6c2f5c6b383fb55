import { and, asc, count, desc, eq, gt, ilike, ne, sql } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { invalidateCatalog } from '#app/features/catalog/catalog-cache.server.ts'
import { asCard, cardColumns, isPublished, type BookCard } from '#app/features/catalog/catalog.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { authors, authorSlugRedirects, books, type AuthorPhoto } from '#app/server/db/schema/index.server.ts'
import { authorMessages, type AuthorFieldErrors } from './author-form.ts'
import type { AuthorInput } from './author-form.server.ts'

/**
 * Authors are named things (table `authors`): a name, unique in any case, the slug of their page, a Markdown
 * bio and a photo. A book points to its author (`books.author_id`); `books.author` is the name's copy that the
 * database keeps (migration `authors`), so a rename here reaches every book, its search and its lists.
 */

export type Author = typeof authors.$inferSelect

/** How many of an author's books their page lists (newest first); the rest are a search away. */
export const AUTHOR_PAGE_BOOKS = 48

/** Gives the author called `name` (any case) this bio if they have none yet (the seed's, at start-up). */
export async function setBlankAuthorBio(tx: Db | Transaction, name: string, bio: string): Promise<void> {
  await tx
    .update(authors)
    .set({ bio })
    .where(and(eq(sql`lower(${authors.name})`, name.toLowerCase()), eq(authors.bio, '')))
}

/** An author whose page the store shows: one with at least one published book. */
export type AuthorPage = { author: Author; books: BookCard[]; bookCount: number }

export async function getAuthorPage(db: Db, slug: string): Promise<AuthorPage | undefined> {
  const [author] = await db.select().from(authors).where(eq(authors.slug, slug)).limit(1)
  if (!author) return undefined
  const published = and(eq(books.authorId, author.id), isPublished)
  const [rows, [total]] = await Promise.all([
    db
      .select(cardColumns)
      .from(books)
      .where(published)
      .orderBy(desc(books.createdAt), asc(books.id))
      .limit(AUTHOR_PAGE_BOOKS),
    db.select({ count: count() }).from(books).where(published),
  ])
  if (rows.length === 0) return undefined
  return { author, books: rows.map(asCard), bookCount: total?.count ?? rows.length }
}

/** The current slug of the author who had `slug` before (their old URL answers 301 to the new one). */
export async function findRenamedAuthorSlug(db: Db, slug: string): Promise<string | undefined> {
  const [row] = await db
    .select({ slug: authors.slug })
    .from(authorSlugRedirects)
    .innerJoin(authors, eq(authors.id, authorSlugRedirects.authorId))
    .where(eq(authorSlugRedirects.slug, slug))
    .limit(1)
  return row?.slug
}

/** What a book's page shows of its author. */
export type BookAuthor = Pick<Author, 'slug' | 'name' | 'bio' | 'photo'>

export async function getBookAuthor(db: Db, authorId: string): Promise<BookAuthor | undefined> {
  const [row] = await db
    .select({ slug: authors.slug, name: authors.name, bio: authors.bio, photo: authors.photo })
    .from(authors)
    .where(eq(authors.id, authorId))
    .limit(1)
  return row
}

/** Authors with a published book, by slug, for the sitemap: `limit` after `offset`. */
export async function listPublishedAuthorSlugs(db: Db, offset: number, limit: number): Promise<string[]> {
  const rows = await db
    .select({ slug: authors.slug })
    .from(authors)
    .where(sql`exists (select 1 from ${books} where ${books.authorId} = ${authors.id} and ${isPublished})`)
    .orderBy(asc(authors.slug))
    .offset(offset)
    .limit(limit)
  return rows.map((row) => row.slug)
}

export async function countPublishedAuthors(db: Db): Promise<number> {
  const [row] = await db
    .select({ count: count() })
    .from(authors)
    .where(sql`exists (select 1 from ${books} where ${books.authorId} = ${authors.id} and ${isPublished})`)
  return row?.count ?? 0
}

export const ADMIN_AUTHORS_PAGE_SIZE = 50

/** `%` and `_` typed by the admin are looked for as such, not as wildcards. */
function containing(text: string) {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
}

export type AdminAuthorRow = { id: string; slug: string; name: string; bookCount: number; hasPhoto: boolean }

/**
 * Authors whose name contains `query` (any case), by name, a page after the cursor (the last name of the
 * previous page, in lower case: names are unique in any case, so the keyset is too).
 */
export async function listAdminAuthors(
  db: Db,
  options: { query?: string; after?: string; limit?: number } = {},
): Promise<{ rows: AdminAuthorRow[]; nextAfter: string | null }> {
  const limit = options.limit ?? ADMIN_AUTHORS_PAGE_SIZE
  const lowerName = sql<string>`lower(${authors.name})`
  const rows = await db
    .select({
      id: authors.id,
      slug: authors.slug,
      name: authors.name,
      hasPhoto: sql<boolean>`${authors.photo} is not null`,
      // Spelled out: in a select list Drizzle leaves columns unqualified, which a subquery would misread.
      bookCount:
        sql<number>`(select count(*) from "books" where "books"."author_id" = "authors"."id")`.mapWith(
          Number,
        ),
    })
    .from(authors)
    .where(
      and(
        options.query ? ilike(authors.name, containing(options.query)) : undefined,
        options.after === undefined ? undefined : gt(lowerName, options.after),
      ),
    )
    .orderBy(asc(lowerName))
    .limit(limit + 1)
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  return { rows: page, nextAfter: more ? page[page.length - 1]!.name.toLowerCase() : null }
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
}

export async function getAdminAuthor(db: Db, id: string): Promise<Author | undefined> {
  if (!isUuid(id)) return undefined
  const [author] = await db.select().from(authors).where(eq(authors.id, id)).limit(1)
  return author
}

/** What the audit log keeps of an author, before and after a change. */
function auditView(author: Author) {
  return {
    slug: author.slug,
    name: author.name,
    bio: author.bio,
    photo: author.photo,
    version: author.version,
  }
}

export type SaveAuthorResult =
  | { outcome: 'saved'; author: Author }
  | { outcome: 'invalid'; fieldErrors: AuthorFieldErrors }
  | { outcome: 'conflict'; current: Author }
  | { outcome: 'not-found' }

/** Whether `slug` is free for author `authorId`: neither another author's nor another's old slug. */
async function slugFree(tx: Transaction, slug: string, authorId: string): Promise<boolean> {
  const [current] = await tx
    .select({ id: authors.id })
    .from(authors)
    .where(and(eq(authors.slug, slug), ne(authors.id, authorId)))
    .limit(1)
  if (current) return false
  const [old] = await tx
    .select({ authorId: authorSlugRedirects.authorId })
    .from(authorSlugRedirects)
    .where(eq(authorSlugRedirects.slug, slug))
    .limit(1)
  return !old || old.authorId === authorId
}

/** The slug of `name` for the author (the database's rule, `author_slug_base`), with -2, -3… when taken. */
async function freeSlug(tx: Transaction, name: string, authorId: string): Promise<string> {
  const result = (await tx.execute(sql`select author_slug_base(${name}) as base`)) as unknown as {
    rows: { base: string }[]
  }
  const base = result.rows[0]!.base
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`
    if (await slugFree(tx, slug, authorId)) return slug
  }
}

/**
 * The one way an author is changed: locks the row, checks the version the admin saw, writes the change with
 * the next version and its audit entry in one transaction, then clears the store's catalogue cache (the books
 * show the name).
 */
async function changeAuthor(
  db: Db,
  actor: Actor,
  authorId: string,
  version: number,
  action: string,
  decide: (
    tx: Transaction,
    before: Author,
  ) => Promise<{ set: Partial<typeof authors.$inferInsert> } | { fieldErrors: AuthorFieldErrors }>,
): Promise<SaveAuthorResult> {
  if (!isUuid(authorId)) return { outcome: 'not-found' }
  const result = await db.transaction(async (tx): Promise<SaveAuthorResult> => {
    const [before] = await tx.select().from(authors).where(eq(authors.id, authorId)).for('update')
    if (!before) return { outcome: 'not-found' }
    if (before.version !== version) return { outcome: 'conflict', current: before }
    const change = await decide(tx, before)
    if ('fieldErrors' in change) return { outcome: 'invalid', fieldErrors: change.fieldErrors }
    const [after] = await tx
      .update(authors)
      .set({ ...change.set, version: sql`${authors.version} + 1` })
      .where(eq(authors.id, authorId))
      .returning()
    await recordAudit(tx, {
      actor,
      action,
      entityType: 'author',
      entityId: authorId,
      before: auditView(before),
      after: auditView(after!),
    })
    return { outcome: 'saved', author: after! }
  })
  if (result.outcome === 'saved') invalidateCatalog(db)
  return result
}

/**
 * Saves an edit of the name and bio made to `version`. A new name moves the page to the name's slug, and the
 * old slug redirects; every book of the author shows the new name (the database copies it).
 */
export async function updateAuthor(
  db: Db,
  actor: Actor,
  authorId: string,
  version: number,
  input: AuthorInput,
): Promise<SaveAuthorResult> {
  try {
    return await changeAuthor(db, actor, authorId, version, 'author.update', async (tx, before) => {
      const [namesake] = await tx
        .select({ name: authors.name })
        .from(authors)
        .where(and(eq(sql`lower(${authors.name})`, input.name.toLowerCase()), ne(authors.id, authorId)))
        .limit(1)
      if (namesake) return { fieldErrors: { name: authorMessages.nameTaken(namesake.name) } }
      if (input.name === before.name) return { set: { bio: input.bio } }
      const slug = await freeSlug(tx, input.name, authorId)
      if (slug !== before.slug) {
        // Back to one of their own old slugs: that URL is the author's page again, not a redirect.
        await tx.delete(authorSlugRedirects).where(eq(authorSlugRedirects.slug, slug))
        await tx
          .insert(authorSlugRedirects)
          .values({ slug: before.slug, authorId })
          .onConflictDoUpdate({ target: authorSlugRedirects.slug, set: { authorId } })
      }
      return { set: { name: input.name, slug, bio: input.bio } }
    })
  } catch (error) {
    // A concurrent save took the name between our check and our write.
    if (isUniqueViolation(error, 'authors_name_lower_unique'))
      return { outcome: 'invalid', fieldErrors: { name: authorMessages.nameTaken(input.name) } }
    throw error
  }
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    const { code, message } = cause as { code?: string; message?: string }
    if (code === '23505' && (cause as { constraint?: string }).constraint === constraint) return true
    if (code === '23505' && message?.includes(constraint)) return true
  }
  return false
}

/** Sets the uploaded photo (its variants are already stored); the previous one, to delete, is returned. */
export async function setAuthorPhoto(
  db: Db,
  actor: Actor,
  authorId: string,
  version: number,
  photo: AuthorPhoto | null,
): Promise<SaveAuthorResult & { previous?: AuthorPhoto | null }> {
  let previous: AuthorPhoto | null = null
  const result = await changeAuthor(
    db,
    actor,
    authorId,
    version,
    photo ? 'author.photo' : 'author.photo-remove',
    async (_tx, before) => {
      previous = before.photo
      return { set: { photo } }
    },
  )
  return { ...result, previous }
}
