import { StarIcon } from '#app/components/ui/icons.tsx'
import { formatRatingCount, formatRatingValue, type ShownRating } from '../rating.ts'

/**
 * Stars, then '4.3 · 128 ratings' once readers have rated the book. The stars are one image whose name says
 * it all ('Rated 4.3 out of 5 from 128 ratings'); the seed's prior reads 'Rated 4 out of 5'.
 */
export function StarRating({ rating, max = 5 }: { rating: ShownRating; max?: number }) {
  const value = formatRatingValue(rating.value)
  const label = `Rated ${value} out of ${max}${rating.count > 0 ? ` from ${formatRatingCount(rating.count)}` : ''}`
  return (
    <div className="flex items-center gap-2">
      <div role="img" aria-label={label} className="flex text-yellow-500">
        {Array.from({ length: max }, (_, index) => (
          <StarIcon key={index} filled={index < Math.round(rating.value)} />
        ))}
      </div>
      {rating.count > 0 ? (
        <span aria-hidden="true" className="text-sm text-slate-700 dark:text-slate-300">
          {value} · {formatRatingCount(rating.count)}
        </span>
      ) : null}
    </div>
  )
}
