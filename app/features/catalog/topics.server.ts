import { and, asc, count, eq, inArray, ne, notInArray, sql } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { books, bookTopics, topics, topicSlugRedirects } from '#app/server/db/schema/index.server.ts'
import { BOOK_FORM_LIMITS } from './book-form.ts'
import { invalidateCatalog } from './catalog-cache.server.ts'
import { topicSlug } from './topic-names.ts'

/**
 * Topics are named things (table `topics`): a name as the owner wrote it and the slug of its page. A book's
 * topics are rows of `book_topics` in the order typed. Renaming a topic moves its slug (the old one redirects);
 * merging moves one topic's books to another.
 */

type Executor = Db | Transaction

/** What a page needs of a topic: its name and the slug of its page. */
export type TopicRef = { slug: string; name: string }

/**
 * A rename or a merge changes what the books under `topicId` are filed as: their version moves on, so a book
 * form opened before is a 409 when saved instead of bringing the old name back as a new topic.
 */
async function bumpBooksUnder(tx: Transaction, topicId: string): Promise<void> {
  await tx
    .update(books)
    .set({ version: sql`${books.version} + 1` })
    .where(
      inArray(
        books.id,
        tx.select({ bookId: bookTopics.bookId }).from(bookTopics).where(eq(bookTopics.topicId, topicId)),
      ),
    )
}

/** Whether `slug` is free for topic `topicId` (null: a new topic): neither another topic's nor its old slug. */
async function slugFree(tx: Executor, slug: string, topicId: string | null): Promise<boolean> {
  const [current] = await tx
    .select({ id: topics.id })
    .from(topics)
    .where(and(eq(topics.slug, slug), topicId ? ne(topics.id, topicId) : undefined))
    .limit(1)
  if (current) return false
  const [old] = await tx
    .select({ topicId: topicSlugRedirects.topicId })
    .from(topicSlugRedirects)
    .where(eq(topicSlugRedirects.slug, slug))
    .limit(1)
  return !old || old.topicId === topicId
}

/** The slug of `name` for topic `topicId`, with -2, -3… when another topic holds it ('C' and 'C++'). */
async function freeSlug(tx: Executor, name: string, topicId: string | null): Promise<string> {
  const base = topicSlug(name)
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`
    if (await slugFree(tx, slug, topicId)) return slug
  }
}

/** The topic named `name` in any case, created (with `slug` if given and free) when there is none. */
async function ensureTopic(tx: Executor, name: string, slug?: string): Promise<string> {
  const named = () =>
    tx
      .select({ id: topics.id })
      .from(topics)
      .where(eq(sql`lower(${topics.name})`, name.toLowerCase()))
      .limit(1)
  for (let attempt = 1; ; attempt++) {
    const [existing] = await named()
    if (existing) return existing.id
    const chosen =
      attempt === 1 && slug && (await slugFree(tx, slug, null)) ? slug : await freeSlug(tx, name, null)
    const [created] = await tx
      .insert(topics)
      .values({ name, slug: chosen })
      .onConflictDoNothing()
      .returning({ id: topics.id })
    if (created) return created.id
    // A concurrent save created this name (found on the next turn) or took the slug ('C' and 'C++' at once:
    // the next turn picks another); a few turns are plenty.
    if (attempt === 3) throw new Error(`Topic “${name}” could not be created`)
  }
}

/**
 * Files a book under `names`, in that order (a name no topic has yet creates the topic; names match in any
 * case). `slugs`: the seed's slugs for the new topics, by name.
 */
export async function setBookTopics(
  tx: Executor,
  bookId: string,
  names: readonly string[],
  slugs: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  const ids: string[] = []
  for (const name of names) {
    const id = await ensureTopic(tx, name, slugs.get(name))
    if (!ids.includes(id)) ids.push(id)
  }
  const current = await tx
    .select({ topicId: bookTopics.topicId, position: bookTopics.position })
    .from(bookTopics)
    .where(eq(bookTopics.bookId, bookId))
    .orderBy(asc(bookTopics.position))
  if (current.map((row) => row.topicId).join() === ids.join()) return
  await tx.delete(bookTopics).where(eq(bookTopics.bookId, bookId))
  if (ids.length > 0)
    await tx.insert(bookTopics).values(ids.map((topicId, position) => ({ bookId, topicId, position })))
}

/** A book's topics in their order. */
export async function listBookTopics(db: Executor, bookId: string): Promise<TopicRef[]> {
  return db
    .select({ slug: topics.slug, name: topics.name })
    .from(bookTopics)
    .innerJoin(topics, eq(topics.id, bookTopics.topicId))
    .where(eq(bookTopics.bookId, bookId))
    .orderBy(asc(bookTopics.position))
}

/** The current slug of the topic that had `slug` before (its old URL answers 301 to the new one). */
/** The topics of several books in one query, each book's in its order. */
export async function listTopicsOfBooks(db: Executor, bookIds: string[]): Promise<Map<string, TopicRef[]>> {
  const byBook = new Map<string, TopicRef[]>(bookIds.map((id) => [id, []]))
  if (bookIds.length === 0) return byBook
  const rows = await db
    .select({ bookId: bookTopics.bookId, slug: topics.slug, name: topics.name })
    .from(bookTopics)
    .innerJoin(topics, eq(topics.id, bookTopics.topicId))
    .where(inArray(bookTopics.bookId, bookIds))
    .orderBy(asc(bookTopics.position))
  for (const { bookId, slug, name } of rows) byBook.get(bookId)?.push({ slug, name })
  return byBook
}

export async function findRenamedTopicSlug(db: Db, slug: string): Promise<string | undefined> {
  const [row] = await db
    .select({ slug: topics.slug })
    .from(topicSlugRedirects)
    .innerJoin(topics, eq(topics.id, topicSlugRedirects.topicId))
    .where(eq(topicSlugRedirects.slug, slug))
    .limit(1)
  return row?.slug
}

export type AdminTopic = { id: string; slug: string; name: string; bookCount: number }

/** Every topic with how many books (of any status) are filed under it, by name. */
export async function listAdminTopics(db: Db): Promise<AdminTopic[]> {
  const rows = await db
    .select({ id: topics.id, slug: topics.slug, name: topics.name, bookCount: count(bookTopics.bookId) })
    .from(topics)
    .leftJoin(bookTopics, eq(bookTopics.topicId, topics.id))
    .groupBy(topics.id)
    .orderBy(asc(sql`lower(${topics.name})`))
  return rows
}

export const TOPIC_NAME_MAX = BOOK_FORM_LIMITS.topicMax

export const topicMessages = {
  empty: 'Please enter a name.',
  tooLong: `A topic's name has at most ${TOPIC_NAME_MAX} characters.`,
  comma: 'A topic\u2019s name has no commas: commas separate topics in the book form.',
  taken: (name: string) => `Another topic is already called \u201c${name}\u201d: merge into it instead.`,
  sameTopic: 'Choose another topic to merge into.',
  notFound: 'This topic no longer exists. The list below is up to date.',
} as const

/** A topic's name as typed: trimmed, inner spaces collapsed; or what is wrong with it. */
export function parseTopicName(raw: unknown): { ok: true; name: string } | { ok: false; error: string } {
  const name = typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : ''
  if (!name) return { ok: false, error: topicMessages.empty }
  if (name.includes(',')) return { ok: false, error: topicMessages.comma }
  if (name.length > TOPIC_NAME_MAX) return { ok: false, error: topicMessages.tooLong }
  return { ok: true, name }
}

export type TopicChange = { outcome: 'saved'; slug: string } | { outcome: 'invalid'; error: string }

/** Renames a topic; its slug follows the name and the old slug redirects to the new one. */
export async function renameTopic(db: Db, actor: Actor, topicId: string, name: string): Promise<TopicChange> {
  const result = await db.transaction(async (tx): Promise<TopicChange> => {
    const [before] = await tx.select().from(topics).where(eq(topics.id, topicId)).for('update')
    if (!before) return { outcome: 'invalid', error: topicMessages.notFound }
    const [clash] = await tx
      .select({ name: topics.name })
      .from(topics)
      .where(and(eq(sql`lower(${topics.name})`, name.toLowerCase()), ne(topics.id, topicId)))
      .limit(1)
    if (clash) return { outcome: 'invalid', error: topicMessages.taken(clash.name) }
    const slug = topicSlug(name) === before.slug ? before.slug : await freeSlug(tx, name, topicId)
    if (slug !== before.slug) {
      // Back to one of its own old slugs: that URL is the topic's again, not a redirect.
      await tx.delete(topicSlugRedirects).where(eq(topicSlugRedirects.slug, slug))
      await tx
        .insert(topicSlugRedirects)
        .values({ slug: before.slug, topicId })
        .onConflictDoUpdate({ target: topicSlugRedirects.slug, set: { topicId } })
    }
    await tx.update(topics).set({ name, slug }).where(eq(topics.id, topicId))
    await bumpBooksUnder(tx, topicId)
    await recordAudit(tx, {
      actor,
      action: 'topic.rename',
      entityType: 'topic',
      entityId: topicId,
      before: { name: before.name, slug: before.slug },
      after: { name, slug },
    })
    return { outcome: 'saved', slug }
  })
  if (result.outcome === 'saved') invalidateCatalog(db)
  return result
}

/**
 * Merges topic `fromId` into `intoId`: its books are filed under `intoId` instead (where it stood in each
 * book's order), it is deleted, and its slug and old slugs redirect to `intoId`'s page.
 */
export async function mergeTopics(
  db: Db,
  actor: Actor,
  fromId: string,
  intoId: string,
): Promise<TopicChange> {
  if (fromId === intoId) return { outcome: 'invalid', error: topicMessages.sameTopic }
  const result = await db.transaction(async (tx): Promise<TopicChange> => {
    const pair = await tx
      .select()
      .from(topics)
      .where(inArray(topics.id, [fromId, intoId]))
      .orderBy(asc(topics.id))
      .for('update')
    const from = pair.find((topic) => topic.id === fromId)
    const into = pair.find((topic) => topic.id === intoId)
    if (!from || !into) return { outcome: 'invalid', error: topicMessages.notFound }
    await bumpBooksUnder(tx, fromId)
    const both = tx
      .select({ bookId: bookTopics.bookId })
      .from(bookTopics)
      .where(eq(bookTopics.topicId, intoId))
    const moved = await tx
      .update(bookTopics)
      .set({ topicId: intoId })
      .where(and(eq(bookTopics.topicId, fromId), notInArray(bookTopics.bookId, both)))
      .returning({ bookId: bookTopics.bookId })
    // Books that had both keep `into` where it was.
    await tx.delete(bookTopics).where(eq(bookTopics.topicId, fromId))
    await tx.update(topicSlugRedirects).set({ topicId: intoId }).where(eq(topicSlugRedirects.topicId, fromId))
    await tx.delete(topics).where(eq(topics.id, fromId))
    await tx.insert(topicSlugRedirects).values({ slug: from.slug, topicId: intoId })
    await recordAudit(tx, {
      actor,
      action: 'topic.merge',
      entityType: 'topic',
      entityId: intoId,
      before: { merged: { id: from.id, name: from.name, slug: from.slug }, into: { name: into.name } },
      after: { name: into.name, slug: into.slug, booksMoved: moved.length },
    })
    return { outcome: 'saved', slug: into.slug }
  })
  if (result.outcome === 'saved') invalidateCatalog(db)
  return result
}
