import { formatCount } from '#app/features/locale/number-format.ts'

/**
 * How many readers gave each number of stars, as bars. The bars are drawn for the eye only; every row says its
 * numbers in text ('5 stars: 12 ratings, 40%'), which is what a screen reader reads.
 */
export function RatingHistogram({ histogram, total }: { histogram: number[]; total: number }) {
  return (
    <ul aria-label="Ratings by number of stars" className="flex w-full max-w-sm flex-col gap-1 text-sm">
      {[5, 4, 3, 2, 1].map((stars) => {
        const count = histogram[stars - 1] ?? 0
        const percent = total > 0 ? Math.round((count / total) * 100) : 0
        return (
          <li key={stars} className="grid grid-cols-[4.5rem_1fr_5.5rem] items-center gap-2">
            <span>
              {stars} {stars === 1 ? 'star' : 'stars'}
              <span className="sr-only">:</span>
            </span>
            {/* A native bar (no inline style: the CSP refuses style attributes); its numbers are the text beside it. */}
            <progress aria-hidden="true" value={count} max={Math.max(total, 1)} className="histogram-bar" />
            <span className="text-right tabular-nums text-slate-700 dark:text-slate-300">
              {formatCount(count)}
              <span className="sr-only"> {count === 1 ? 'rating' : 'ratings'},</span> ({percent}%)
            </span>
          </li>
        )
      })}
    </ul>
  )
}
