import { formatCount } from '#app/features/locale/number-format.ts'

/**
 * The rating a book shows (docs/decisions/016): the readers' average of its visible reviews once it has one;
 * until then the editors' whole-star `rating` (the seed's data, editable in the back office), shown as such.
 */
export type ShownRating = { value: number; count: number }

export function shownRating(book: { rating: number; ratingCount: number; ratingSum: number }): ShownRating {
  if (book.ratingCount <= 0) return { value: book.rating, count: 0 }
  return { value: Math.round((book.ratingSum / book.ratingCount) * 10) / 10, count: book.ratingCount }
}

/** Whose stars these are: readers' once one has rated the book, otherwise the editors'. */
export function isReadersRating(rating: ShownRating): boolean {
  return rating.count > 0
}

/** '4.3' (one decimal only when there is one: '4', not '4.0'). */
export function formatRatingValue(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1)
}

/** '1 rating', '128 ratings'. */
export function formatRatingCount(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'rating' : 'ratings'}`
}

/** What the stars say beside them: '4.3 · 128 ratings' (readers'), or 'Editors' rating'. */
export function ratingCaption(rating: ShownRating): string {
  return isReadersRating(rating)
    ? `${formatRatingValue(rating.value)} · ${formatRatingCount(rating.count)}`
    : "Editors' rating"
}

/**
 * The stars' accessible name, the caption in words: 'Rated 4.3 out of 5 from 128 ratings' (readers'), or
 * 'Editors' rating: 4 out of 5'.
 */
export function ratingLabel(rating: ShownRating, max = 5): string {
  const value = formatRatingValue(rating.value)
  return isReadersRating(rating)
    ? `Rated ${value} out of ${max} from ${formatRatingCount(rating.count)}`
    : `Editors' rating: ${value} out of ${max}`
}
