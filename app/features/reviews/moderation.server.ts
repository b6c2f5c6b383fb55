import { and, count, desc, eq, gt, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import { z } from 'zod'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { invalidateCatalog } from '#app/features/catalog/catalog-cache.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { books, reviewReports, reviews, user } from '#app/server/db/schema/index.server.ts'
import type { ModerationFilter } from './moderation.ts'

const PAGE_SIZE = 50

/** A moderator's form: hide or restore one review. */
export const ModerationSchema = z.object({
  intent: z.enum(['hide', 'restore']),
  reviewId: z.uuid(),
})

export type ModeratedReview = {
  id: string
  bookTitle: string
  bookSlug: string
  authorEmail: string
  rating: number
  title: string
  body: string
  reportCount: number
  reasons: string[]
  unowned: boolean
  hiddenAt: string | null
  createdAt: string
  cursorTime: string
}

/** A reported review still shown: a moderator has not hidden it yet (a hidden one is under 'Hidden'). */
const awaitingModeration = and(gt(reviews.reportCount, 0), isNull(reviews.hiddenAt))!

/** How many reviews the 'Reported' list shows: the back office's front page says it waits. */
export async function countReviewsAwaitingModeration(db: Db): Promise<number> {
  const [row] = await db.select({ count: count() }).from(reviews).where(awaitingModeration)
  return row?.count ?? 0
}

/**
 * The moderation list, most reported first then newest, 50 a page by keyset (`after` is the last row's
 * `reportCount:createdAt:id`), along the `reviews_moderation_idx` index.
 */
export async function listReviewsForModeration(
  db: Db,
  { filter, after }: { filter: ModerationFilter; after: string | null },
): Promise<{ rows: ModeratedReview[]; next: string | null }> {
  const conditions: SQL[] = []
  if (filter === 'reported') conditions.push(awaitingModeration)
  if (filter === 'hidden') conditions.push(isNotNull(reviews.hiddenAt))
  const cursor = parseCursor(after)
  if (cursor)
    conditions.push(
      or(
        lt(reviews.reportCount, cursor.reportCount),
        and(
          eq(reviews.reportCount, cursor.reportCount),
          sql`(${reviews.createdAt}, ${reviews.id}) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`,
        ),
      )!,
    )
  const rows = await db
    .select({
      id: reviews.id,
      bookTitle: books.title,
      bookSlug: books.slug,
      authorEmail: user.email,
      rating: reviews.rating,
      title: reviews.title,
      body: reviews.body,
      reportCount: reviews.reportCount,
      reasons: sql<
        string[]
      >`coalesce((select array_agg(${reviewReports.reason} order by ${reviewReports.createdAt}) from ${reviewReports} where ${reviewReports.reviewId} = ${reviews.id} and ${reviewReports.reason} <> ''), '{}')`,
      unowned: reviews.unowned,
      hiddenAt: reviews.hiddenAt,
      createdAt: reviews.createdAt,
      // The cursor keeps the microseconds a JavaScript Date would drop (rows in the same millisecond).
      cursorTime: sql<string>`to_char(${reviews.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    })
    .from(reviews)
    .innerJoin(books, eq(books.id, reviews.bookId))
    .innerJoin(user, eq(user.id, reviews.userId))
    .where(and(...conditions))
    .orderBy(desc(reviews.reportCount), desc(reviews.createdAt), desc(reviews.id))
    .limit(PAGE_SIZE + 1)
  const page = rows.slice(0, PAGE_SIZE).map(({ cursorTime, ...row }) => ({
    ...row,
    cursorTime,
    hiddenAt: row.hiddenAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }))
  const last = page.at(-1)
  return {
    rows: page,
    next: rows.length > PAGE_SIZE && last ? `${last.reportCount}:${last.cursorTime}:${last.id}` : null,
  }
}

function parseCursor(after: string | null) {
  const match = /^(\d{1,9}):(\d{4}-\d{2}-\d{2}T[\d:.]+Z):([0-9a-f-]{36})$/.exec(after ?? '')
  if (!match || Number.isNaN(Date.parse(match[2]!))) return null
  return { reportCount: Number(match[1]), createdAt: match[2]!, id: match[3]! }
}

/**
 * Hides a review from the store (or shows it again), with its audit entry, in one transaction; the book's
 * ratings follow by trigger, and the catalogue's cards once it commits. Returns false for an unknown review or
 * one already in that state.
 */
export async function setReviewHidden(
  db: Db,
  { reviewId, hidden, actor }: { reviewId: string; hidden: boolean; actor: Actor },
): Promise<boolean> {
  const changed = await db.transaction(async (tx) => {
    const [before] = await tx
      .select({
        id: reviews.id,
        bookId: reviews.bookId,
        rating: reviews.rating,
        hiddenAt: reviews.hiddenAt,
        visible: reviews.visible,
      })
      .from(reviews)
      .where(and(eq(reviews.id, reviewId), hidden ? isNull(reviews.hiddenAt) : isNotNull(reviews.hiddenAt)))
      .for('update')
    if (!before) return false
    const [after] = await tx
      .update(reviews)
      .set(hidden ? { hiddenAt: new Date(), hiddenBy: actor.id } : { hiddenAt: null, hiddenBy: null })
      .where(eq(reviews.id, reviewId))
      .returning({
        id: reviews.id,
        bookId: reviews.bookId,
        rating: reviews.rating,
        hiddenAt: reviews.hiddenAt,
        visible: reviews.visible,
      })
    await recordAudit(tx, {
      actor,
      action: hidden ? 'review.hide' : 'review.restore',
      entityType: 'review',
      entityId: reviewId,
      before,
      after,
    })
    return true
  })
  if (changed) invalidateCatalog(db)
  return changed
}
