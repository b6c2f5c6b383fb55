import type { RouterContextProvider } from 'react-router'
import { z } from 'zod'
import { readOwnedBookIds } from '#app/features/library/library.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { hitRateLimit, tooManyAttemptsMessage, type RateLimitRule } from '#app/server/rate-limit.server.ts'
import type { ReviewActionData, ReviewViewer } from './components/reviews-section.tsx'
import { ReportFormSchema, ReviewFormSchema, ReviewIdSchema } from './review-form.server.ts'
import { reviewMessages } from './review-form.ts'
import {
  REVIEW_REACTIONS_PER_ACCOUNT,
  REVIEW_WRITES_PER_ACCOUNT,
  deleteOwnReview,
  getOwnReview,
  ownsBook,
  reportReview,
  saveReview,
  toggleHelpfulVote,
} from './reviews.server.ts'

/**
 * Who is looking at a book's reviews: someone to send to log in, a reader who does not own the book, or an
 * owner with their own review (if they wrote one).
 */
export async function getReviewViewer(
  context: Readonly<RouterContextProvider>,
  db: Db,
  { userId, bookId, loginTo }: { userId: string | undefined; bookId: string; loginTo: string },
): Promise<ReviewViewer> {
  if (!userId) return { kind: 'signed-out', loginTo }
  // The root loader reads the reader's books for this request too: one query for both. Only an owner has a
  // review to read.
  const owned = await readOwnedBookIds(context, db, userId)
  if (!owned.includes(bookId)) return { kind: 'not-owner' }
  return { kind: 'owner', ownReview: await getOwnReview(db, userId, bookId) }
}

/** What a review form's post comes to: done, or refused with its status and what to show beside the form. */
export type ReviewIntentOutcome =
  { ok: true } | ({ ok: false; status: 400 | 403 | 404 | 429; retryAfterSeconds?: number } & ReviewActionData)

const refused = (
  status: 400 | 403 | 404 | 429,
  body: ReviewActionData,
  retryAfterSeconds?: number,
): ReviewIntentOutcome => ({
  ok: false,
  status,
  ...body,
  ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
})

/**
 * The book page's review forms, posted by a signed-in reader: write or rewrite their review (`review`, the
 * book in their library or a 403 saying why), delete it (`delete-review`), vote a review helpful (`helpful`) or
 * report one (`report`). Each intent is rate limited per account.
 */
export async function handleReviewIntent(
  db: Db,
  { userId, bookId, form }: { userId: string; bookId: string; form: FormData },
): Promise<ReviewIntentOutcome> {
  const field = (name: string) => {
    const value = form.get(name)
    return typeof value === 'string' ? value : ''
  }
  const limited = async (rule: RateLimitRule) => {
    const limit = await hitRateLimit(db, rule, userId)
    if (limit.allowed) return null
    return refused(
      429,
      { formError: tooManyAttemptsMessage(limit.retryAfterSeconds) },
      limit.retryAfterSeconds,
    )
  }
  const intent = field('intent')
  switch (intent) {
    case 'review': {
      if (!(await ownsBook(db, userId, bookId))) return refused(403, { formError: reviewMessages.notOwner })
      const values = { rating: field('rating'), title: field('title'), body: field('body') }
      const parsed = ReviewFormSchema.safeParse(values)
      if (!parsed.success) {
        const { fieldErrors } = z.flattenError(parsed.error)
        return refused(400, {
          // The first problem with each field, shown next to it.
          fieldErrors: Object.fromEntries(
            Object.entries(fieldErrors).map(([name, messages]) => [name, messages?.[0]]),
          ),
          // What was typed comes back with the errors (cut to a little over the limits), so nothing is lost.
          values: {
            rating: values.rating.slice(0, 1),
            title: values.title.slice(0, 1000),
            body: values.body.slice(0, 20_000),
          },
        })
      }
      const refusedWrite = await limited(REVIEW_WRITES_PER_ACCOUNT)
      if (refusedWrite) return refusedWrite
      await saveReview(db, { userId, bookId, input: parsed.data })
      return { ok: true }
    }
    case 'delete-review': {
      const refusedWrite = await limited(REVIEW_WRITES_PER_ACCOUNT)
      if (refusedWrite) return refusedWrite
      await deleteOwnReview(db, userId, bookId)
      return { ok: true }
    }
    case 'helpful':
    case 'report': {
      const target = ReviewIdSchema.safeParse({ reviewId: field('reviewId') })
      if (!target.success) return refused(400, { formError: 'This review could not be found.' })
      const report = ReportFormSchema.safeParse({ reason: field('reason') })
      if (!report.success)
        return refused(400, {
          formError: z.flattenError(report.error).fieldErrors.reason?.[0] ?? 'Please check the reason.',
        })
      const refusedReaction = await limited(REVIEW_REACTIONS_PER_ACCOUNT)
      if (refusedReaction) return refusedReaction
      const { reviewId } = target.data
      const result =
        intent === 'helpful'
          ? await toggleHelpfulVote(db, userId, reviewId)
          : await reportReview(db, { userId, reviewId, reason: report.data.reason })
      if (result === 'not-found') return refused(404, { formError: 'This review is no longer shown.' })
      if (result === 'own-review')
        return refused(400, { formError: 'You cannot vote on or report your own review.' })
      return { ok: true }
    }
    default:
      return refused(400, { formError: 'This form could not be read. Please reload the page.' })
  }
}
