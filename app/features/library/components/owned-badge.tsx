/** Shown instead of 'Add To Cart' for a book the reader owns. */
export function OwnedBadge({ size = 'normal' }: { size?: 'normal' | 'large' }) {
  return (
    <p
      className={`inline-flex items-center gap-1 rounded-lg border border-emerald-700 font-medium text-emerald-800 dark:border-emerald-400 dark:text-emerald-300 ${size === 'large' ? 'px-5 py-3 text-base' : 'px-4 py-2 text-sm'}`}
    >
      <span aria-hidden="true">✓</span> In your library
    </p>
  )
}
