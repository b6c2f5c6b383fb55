/**
 * The rating a book shows (docs/decisions/016): the average of its visible reviews once it has one; until
 * then the seed's (or the back office's) whole-star `rating`, a starting prior shown without a count.
 */
export type ShownRating = { value: number; count: number }

export function shownRating(book: { rating: number; ratingCount: number; ratingSum: number }): ShownRating {
  if (book.ratingCount <= 0) return { value: book.rating, count: 0 }
  return { value: Math.round((book.ratingSum / book.ratingCount) * 10) / 10, count: book.ratingCount }
}

/** '4.3' (one decimal only when there is one: '4', not '4.0'). */
export function formatRatingValue(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1)
}

/** '1 rating', '128 ratings'. */
export function formatRatingCount(count: number): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? 'rating' : 'ratings'}`
}
