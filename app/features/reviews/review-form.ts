import { formatCount } from '#app/features/locale/number-format.ts'

/**
 * The review form's rules, as the form's HTML constraints; review-form.server.ts checks the same in the action
 * (zod stays out of the browser bundle: it probes for `eval`, which the CSP refuses).
 */
export const REVIEW_TITLE_MAX = 120
export const REVIEW_BODY_MAX = 5000
export const REPORT_REASON_MAX = 500

export const reviewMessages = {
  ratingMissing: 'Please choose from 1 to 5 stars.',
  titleTooLong: `A title has at most ${REVIEW_TITLE_MAX} characters.`,
  bodyTooLong: `A review has at most ${formatCount(REVIEW_BODY_MAX)} characters.`,
  notOwner:
    'Only readers who bought this book can review it. Buy it, and your review will show as a verified purchase.',
  reasonTooLong: `A reason has at most ${REPORT_REASON_MAX} characters.`,
} as const

export type ReviewFieldErrors = Partial<Record<'rating' | 'title' | 'body', string>>

/** The orders the book page lists reviews in; anything else in the URL is the default. */
export const REVIEW_SORTS = ['newest', 'helpful', 'highest', 'lowest'] as const
export type ReviewSort = (typeof REVIEW_SORTS)[number]
export const reviewSortLabels: Record<ReviewSort, string> = {
  newest: 'Newest',
  helpful: 'Most helpful',
  highest: 'Highest rated',
  lowest: 'Lowest rated',
}
export const REVIEWS_PER_PAGE = 10
/** Pages beyond this are not offered: the deepest page a link reaches stays one short index walk. */
export const REVIEW_PAGES_MAX = 500

export function parseReviewListParams(search: URLSearchParams): { sort: ReviewSort; page: number } {
  const rawSort = search.get('sort')
  const sort = REVIEW_SORTS.find((known) => known === rawSort) ?? 'newest'
  const rawPage = search.get('page') ?? ''
  const page = /^[1-9][0-9]{0,5}$/.test(rawPage) ? Math.min(Number(rawPage), REVIEW_PAGES_MAX) : 1
  return { sort, page }
}

/** Paragraphs of a plain-text review: split on blank lines; React escapes the text, no markup is read. */
export function paragraphsOf(body: string): string[] {
  return body
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
}

/**
 * How an author is named in public: never their email. 'a…' from the part before the @ (the first letter),
 * so that two reviews can be told apart without naming anyone.
 */
export function reviewerName(email: string): string {
  const first = email.split('@')[0]?.slice(0, 1).toUpperCase()
  return first ? `${first}. (verified buyer)` : 'Verified buyer'
}
