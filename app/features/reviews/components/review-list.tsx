import { Form, Link } from 'react-router'
import { REPORT_REASON_MAX, paragraphsOf } from '../review-form.ts'
import type { ListedReview } from '../reviews.server.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { formatCount } from '#app/features/locale/number-format.ts'

export type ReviewItem = Omit<ListedReview, 'updatedAt'>

const smallButton =
  'rounded-md border border-slate-400 px-3 py-1 text-sm font-medium text-slate-800 hover:bg-slate-100 aria-pressed:border-blue-700 aria-pressed:bg-blue-50 dark:border-gray-500 dark:text-slate-100 dark:hover:bg-gray-800 dark:aria-pressed:border-sky-300 dark:aria-pressed:bg-slate-700'

/**
 * One page of reviews. The text is plain: paragraphs split on blank lines, each a <p> whose text React
 * escapes, so whatever a reader typed (a <script> tag, Markdown) shows as the characters it is.
 */
export function ReviewList({ reviews, canReact }: { reviews: ReviewItem[]; canReact: boolean }) {
  return (
    <ol className="flex flex-col gap-6">
      {reviews.map((review) => (
        <li key={review.id}>
          <article aria-labelledby={`review-${review.id}-title`} className="review">
            <div className="review-head">
              {/* One element, not five icons: a page of reviews stays a small page (docs/decisions/016). */}
              <span role="img" aria-label={`Rated ${review.rating} out of 5`} className="review-stars">
                {'★'.repeat(review.rating) + '☆'.repeat(5 - review.rating)}
              </span>
              <h3 id={`review-${review.id}-title`}>
                {review.title || `${review.rating} ${review.rating === 1 ? 'star' : 'stars'}`}
              </h3>
            </div>
            <p className="review-meta">
              {/* The author's name says 'verified buyer' already ('A. (verified buyer)'): not twice. */}
              {review.isOwn ? (
                <>
                  {'Your review · '}
                  <span className="review-verified">Verified purchase</span>
                </>
              ) : (
                review.author
              )}
              {' · '}
              <FormattedDate value={review.createdAt} />
            </p>
            {paragraphsOf(review.body).map((paragraph, index) => (
              <p key={index} className="review-text">
                {paragraph}
              </p>
            ))}
            <div className="review-actions">
              <span className="review-meta">
                {review.helpfulCount === 1
                  ? '1 reader found this helpful'
                  : `${formatCount(review.helpfulCount)} readers found this helpful`}
              </span>
              {canReact && !review.isOwn ? (
                <>
                  <Form method="post" preventScrollReset>
                    <input type="hidden" name="intent" value="helpful" />
                    <input type="hidden" name="reviewId" value={review.id} />
                    <button type="submit" className={smallButton} aria-pressed={review.votedHelpful}>
                      Helpful
                    </button>
                  </Form>
                  {review.reported ? (
                    <span className="text-slate-700 dark:text-slate-300">Reported, thank you</span>
                  ) : (
                    <details>
                      <summary className="cursor-pointer text-blue-700 underline dark:text-sky-300">
                        Report
                      </summary>
                      <Form method="post" preventScrollReset className="mt-2 flex flex-wrap items-end gap-2">
                        <input type="hidden" name="intent" value="report" />
                        <input type="hidden" name="reviewId" value={review.id} />
                        <div className="flex flex-col gap-1">
                          <label htmlFor={`report-${review.id}`} className="text-sm font-medium">
                            Why? (optional)
                          </label>
                          <input
                            id={`report-${review.id}`}
                            name="reason"
                            maxLength={REPORT_REASON_MAX}
                            className="rounded-lg border border-slate-400 bg-white px-3 py-1 text-slate-900 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100"
                          />
                        </div>
                        <button type="submit" className={smallButton}>
                          Report review
                        </button>
                      </Form>
                    </details>
                  )}
                </>
              ) : null}
            </div>
          </article>
        </li>
      ))}
    </ol>
  )
}

export function ReviewPages({
  page,
  pages,
  linkTo,
}: {
  page: number
  pages: number
  linkTo: (page: number) => string
}) {
  if (pages <= 1) return null
  return (
    <nav aria-label="Review pages" className="flex flex-wrap items-center gap-4">
      {page > 1 ? (
        <Link to={linkTo(page - 1)} preventScrollReset className="text-blue-700 underline dark:text-sky-300">
          Previous reviews
        </Link>
      ) : null}
      <span>
        Page {page} of {formatCount(pages)}
      </span>
      {page < pages ? (
        <Link to={linkTo(page + 1)} preventScrollReset className="text-blue-700 underline dark:text-sky-300">
          More reviews
        </Link>
      ) : null}
    </nav>
  )
}
