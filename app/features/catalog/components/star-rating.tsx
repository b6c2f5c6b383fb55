import { StarIcon } from '#app/components/ui/icons.tsx'
import { ratingCaption, ratingLabel, type ShownRating } from '../rating.ts'

/**
 * Stars that say whose they are (docs/decisions/016): '4.3 · 128 ratings' once readers have rated the book,
 * otherwise 'Editors' rating'. The stars are one image whose name says the same in words ('Rated 4.3 out of 5
 * from 128 ratings', 'Editors' rating: 4 out of 5'); the caption beside them is for the eye.
 */
export function StarRating({ rating, max = 5 }: { rating: ShownRating; max?: number }) {
  return (
    <div className="flex items-center gap-2">
      <div role="img" aria-label={ratingLabel(rating, max)} className="flex text-yellow-500">
        {Array.from({ length: max }, (_, index) => (
          <StarIcon key={index} filled={index < Math.round(rating.value)} />
        ))}
      </div>
      <span aria-hidden="true" className="text-sm text-slate-700 dark:text-slate-300">
        {ratingCaption(rating)}
      </span>
    </div>
  )
}
