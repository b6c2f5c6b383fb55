import type { Db } from '#app/server/db/database.server.ts'
import type { ReviewSort } from './review-form.ts'
import { listReviews, type ListedReview } from './reviews.server.ts'

/** How many review pages one instance keeps (a page is about 10 × 1 KB). */
const MAX_PAGES = 2_000

type Entry = { version: number; reviews: Promise<ListedReview[]> }
const pages = new Map<string, Entry>()

/**
 * One page of a book's reviews as a visitor with no account sees it (no votes or reports of their own), kept
 * in memory under the book's `reviews_version`, which a trigger bumps on every change to its reviews (migration
 * `reviews-version-triggers`). The caller has just read the book row, so a change made on any instance is
 * seen on the next page view: the cache never serves an older page than the database, it only spares the
 * query (most of a reviewed book page's cost on the embedded database; docs/decisions/016).
 */
export function listPublicReviews(
  db: Db,
  book: { id: string; reviewsVersion: number },
  { sort, page }: { sort: ReviewSort; page: number },
): Promise<ListedReview[]> {
  const key = `${book.id}:${sort}:${page}`
  const cached = pages.get(key)
  if (cached && cached.version === book.reviewsVersion) return cached.reviews
  const reviews = listReviews(db, { bookId: book.id, sort, page })
  // Least recently stored first out; a failed query is not kept.
  pages.delete(key)
  pages.set(key, { version: book.reviewsVersion, reviews })
  if (pages.size > MAX_PAGES) pages.delete(pages.keys().next().value!)
  reviews.catch(() => {
    if (pages.get(key)?.reviews === reviews) pages.delete(key)
  })
  return reviews
}
