import { StarIcon } from '#app/components/ui/icons.tsx'

export function StarRating({ rating, max = 5 }: { rating: number; max?: number }) {
  return (
    <div role="img" aria-label={`Rated ${rating} out of ${max}`} className="flex text-yellow-500">
      {Array.from({ length: max }, (_, index) => (
        <StarIcon key={index} filled={index < rating} />
      ))}
    </div>
  )
}
