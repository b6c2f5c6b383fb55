import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import { invalidateCatalog } from '#app/features/catalog/catalog-cache.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  books,
  libraryItems,
  reviewReports,
  reviews,
  reviewVotes,
  user,
} from '#app/server/db/schema/index.server.ts'
import type { RateLimitRule } from '#app/server/rate-limit.server.ts'
import type { ReviewInput } from './review-form.server.ts'
import { REVIEWS_PER_PAGE, reviewerName, type ReviewSort } from './review-form.ts'

const HOUR = 60 * 60 * 1000
/** Per account: writing, editing or deleting reviews. */
export const REVIEW_WRITES_PER_ACCOUNT: RateLimitRule = { name: 'review-writes', limit: 10, windowMs: HOUR }
/** Per account: helpful votes and reports together. */
export const REVIEW_REACTIONS_PER_ACCOUNT: RateLimitRule = {
  name: 'review-reactions',
  limit: 60,
  windowMs: HOUR,
}

/** Whether the reader owns the book now (a paid order not refunded: a refund deletes the library item). */
export async function ownsBook(db: Db, userId: string, bookId: string): Promise<boolean> {
  const [row] = await db
    .select({ bookId: libraryItems.bookId })
    .from(libraryItems)
    .where(and(eq(libraryItems.userId, userId), eq(libraryItems.bookId, bookId)))
    .limit(1)
  return Boolean(row)
}

export type OwnReview = {
  id: string
  rating: number
  title: string
  body: string
  visible: boolean
  hiddenByModerator: boolean
}

export async function getOwnReview(db: Db, userId: string, bookId: string): Promise<OwnReview | null> {
  const [row] = await db
    .select({
      id: reviews.id,
      rating: reviews.rating,
      title: reviews.title,
      body: reviews.body,
      visible: reviews.visible,
      hiddenAt: reviews.hiddenAt,
    })
    .from(reviews)
    .where(and(eq(reviews.userId, userId), eq(reviews.bookId, bookId)))
    .limit(1)
  if (!row) return null
  const { hiddenAt, ...rest } = row
  return { ...rest, hiddenByModerator: hiddenAt !== null }
}

/**
 * The reader's review of the book: written, or rewritten if they have one (one per reader and book). The
 * caller has checked ownership; the book's ratings follow by trigger in the same statement, and the
 * catalogue's cards (which show them) are read afresh.
 */
export async function saveReview(
  db: Db,
  { userId, bookId, input }: { userId: string; bookId: string; input: ReviewInput },
): Promise<{ id: string; created: boolean }> {
  const [row] = await db
    .insert(reviews)
    .values({ userId, bookId, rating: input.rating, title: input.title, body: input.body })
    .onConflictDoUpdate({
      target: [reviews.bookId, reviews.userId],
      set: { rating: input.rating, title: input.title, body: input.body, updatedAt: new Date() },
    })
    .returning({ id: reviews.id, created: sql<boolean>`xmax = 0` })
  invalidateCatalog(db)
  return row!
}

/** The reader's review of the book, if they have one, deleted (the book's ratings and cards follow). */
export async function deleteOwnReview(db: Db, userId: string, bookId: string): Promise<boolean> {
  const deleted = await db
    .delete(reviews)
    .where(and(eq(reviews.userId, userId), eq(reviews.bookId, bookId)))
    .returning({ id: reviews.id })
  if (deleted.length === 0) return false
  invalidateCatalog(db)
  return true
}

export type ListedReview = {
  id: string
  rating: number
  title: string
  body: string
  author: string
  isOwn: boolean
  helpfulCount: number
  votedHelpful: boolean
  reported: boolean
  createdAt: string
  updatedAt: string
}

const orderBy: Record<ReviewSort, ReturnType<typeof desc>[]> = {
  newest: [desc(reviews.createdAt), desc(reviews.id)],
  helpful: [desc(reviews.helpfulCount), desc(reviews.createdAt), desc(reviews.id)],
  highest: [desc(reviews.rating), desc(reviews.createdAt), desc(reviews.id)],
  lowest: [asc(reviews.rating), desc(reviews.createdAt), desc(reviews.id)],
}

/**
 * One page of a book's visible reviews: a walk along one of the partial indexes (`where visible`, in the
 * order asked), then the page's own rows only — never a count or an aggregate (the totals are on `books`).
 */
export async function listReviews(
  db: Db,
  { bookId, sort, page, viewerId }: { bookId: string; sort: ReviewSort; page: number; viewerId?: string },
): Promise<ListedReview[]> {
  // A visitor without an account has voted and reported nothing: no per-row lookups for them.
  const viewerHas = (table: typeof reviewVotes | typeof reviewReports) =>
    viewerId
      ? sql<boolean>`exists (select 1 from ${table} where ${table.reviewId} = ${reviews.id} and ${table.userId} = ${viewerId})`
      : sql<boolean>`false`
  const rows = await db
    .select({
      id: reviews.id,
      rating: reviews.rating,
      title: reviews.title,
      body: reviews.body,
      email: user.email,
      userId: reviews.userId,
      helpfulCount: reviews.helpfulCount,
      votedHelpful: viewerHas(reviewVotes),
      reported: viewerHas(reviewReports),
      createdAt: reviews.createdAt,
      updatedAt: reviews.updatedAt,
    })
    .from(reviews)
    .innerJoin(user, eq(user.id, reviews.userId))
    // `visible` as it is written in the indexes' predicate, so that the planner can use them.
    .where(and(eq(reviews.bookId, bookId), sql`${reviews.visible}`))
    .orderBy(...orderBy[sort])
    .limit(REVIEWS_PER_PAGE)
    .offset((page - 1) * REVIEWS_PER_PAGE)
  return rows.map(({ email, userId, createdAt, updatedAt, ...row }) => ({
    ...row,
    author: reviewerName(email),
    isOwn: userId === viewerId,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  }))
}

export type ReactionResult = 'done' | 'undone' | 'not-found' | 'own-review'

/** Why a reader cannot react to a review (it is not shown, or it is theirs), or null when they can. */
async function refusedReaction(
  tx: Transaction,
  userId: string,
  reviewId: string,
): Promise<'not-found' | 'own-review' | null> {
  const [review] = await tx
    .select({ userId: reviews.userId })
    .from(reviews)
    .where(and(eq(reviews.id, reviewId), sql`${reviews.visible}`))
    .limit(1)
  if (!review) return 'not-found'
  return review.userId === userId ? 'own-review' : null
}

/** A helpful vote, or its withdrawal if the reader had voted: one per reader, never on their own review. */
export async function toggleHelpfulVote(db: Db, userId: string, reviewId: string): Promise<ReactionResult> {
  return db.transaction(async (tx) => {
    const refused = await refusedReaction(tx, userId, reviewId)
    if (refused) return refused
    const added = await tx
      .insert(reviewVotes)
      .values({ reviewId, userId })
      .onConflictDoNothing()
      .returning({ reviewId: reviewVotes.reviewId })
    if (added.length > 0) {
      await tx
        .update(reviews)
        .set({ helpfulCount: sql`${reviews.helpfulCount} + 1` })
        .where(eq(reviews.id, reviewId))
      return 'done'
    }
    await tx
      .delete(reviewVotes)
      .where(and(eq(reviewVotes.reviewId, reviewId), eq(reviewVotes.userId, userId)))
    await tx
      .update(reviews)
      .set({ helpfulCount: sql`greatest(${reviews.helpfulCount} - 1, 0)` })
      .where(eq(reviews.id, reviewId))
    return 'undone'
  })
}

/** A reader's report to the moderators: one per reader and review (a second one changes nothing). */
export async function reportReview(
  db: Db,
  { userId, reviewId, reason }: { userId: string; reviewId: string; reason: string },
): Promise<ReactionResult> {
  return db.transaction(async (tx) => {
    const refused = await refusedReaction(tx, userId, reviewId)
    if (refused) return refused
    const added = await tx
      .insert(reviewReports)
      .values({ reviewId, userId, reason })
      .onConflictDoNothing()
      .returning({ reviewId: reviewReports.reviewId })
    if (added.length > 0)
      await tx
        .update(reviews)
        .set({ reportCount: sql`${reviews.reportCount} + 1` })
        .where(eq(reviews.id, reviewId))
    return 'done'
  })
}

/** A book's ratings as the trigger keeps them (tests and the back office read them). */
export async function bookRatingsOf(db: Db, bookId: string) {
  const [row] = await db
    .select({
      rating: books.rating,
      ratingCount: books.ratingCount,
      ratingSum: books.ratingSum,
      ratingHistogram: books.ratingHistogram,
    })
    .from(books)
    .where(eq(books.id, bookId))
    .limit(1)
  return row
}

/**
 * A reader's whole footprint in reviews, for deleting their account: their helpful votes and reports (the
 * counts they added to others' reviews taken back), then their own reviews (the books' ratings follow by
 * trigger).
 */
export async function deleteReaderReviews(tx: Transaction, userId: string): Promise<void> {
  for (const [table, counter] of [
    [reviewVotes, 'helpfulCount'],
    [reviewReports, 'reportCount'],
  ] as const) {
    const touched = tx.select({ id: table.reviewId }).from(table).where(eq(table.userId, userId))
    await tx
      .update(reviews)
      .set({ [counter]: sql`greatest(${reviews[counter]} - 1, 0)` })
      .where(inArray(reviews.id, touched))
    await tx.delete(table).where(eq(table.userId, userId))
  }
  await tx.delete(reviews).where(eq(reviews.userId, userId))
}

/** A reader's reviews, shown or not, oldest first: their part of the account's data export. */
export function exportReviewsOf(db: Db, userId: string) {
  return db
    .select({
      book: books.title,
      rating: reviews.rating,
      title: reviews.title,
      body: reviews.body,
      helpfulVotes: reviews.helpfulCount,
      shown: reviews.visible,
      createdAt: reviews.createdAt,
      updatedAt: reviews.updatedAt,
    })
    .from(reviews)
    .innerJoin(books, eq(books.id, reviews.bookId))
    .where(eq(reviews.userId, userId))
    .orderBy(asc(reviews.createdAt))
}
