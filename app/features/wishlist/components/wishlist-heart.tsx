import { useFetcher, useLocation } from 'react-router'
import { HeartIcon } from '#app/components/ui/icons.tsx'
import { useWishlistBookIds, WISHLIST_ACTION } from '../use-wishlist.ts'

/**
 * The heart: puts a book on the visitor's wishlist or takes it off. A plain form post without JavaScript
 * (the action redirects back here); with it, a fetcher shared by every heart for this book, updated
 * optimistically. A toggle button (`aria-pressed`) whose name says what it does with which book.
 */
export function WishlistHeart({
  bookId,
  title,
  size = 'normal',
}: {
  bookId: string
  title: string
  size?: 'normal' | 'large'
}) {
  const fetcher = useFetcher<{ error?: string }>({ key: `wishlist:${bookId}` })
  const location = useLocation()
  const wished = useWishlistBookIds().has(bookId)
  const pending = fetcher.state !== 'idle'
  const error = fetcher.state === 'idle' ? fetcher.data?.error : undefined
  const label = wished ? `Remove ${title} from your wishlist` : `Add ${title} to your wishlist`
  const box = size === 'large' ? 'size-12' : 'size-10'
  return (
    <fetcher.Form method="post" action={WISHLIST_ACTION} className="relative flex flex-col items-center">
      <input type="hidden" name="bookId" value={bookId} />
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <button
        type="submit"
        name="intent"
        value={wished ? 'remove' : 'add'}
        aria-pressed={wished}
        aria-label={label}
        title={wished ? 'On your wishlist' : 'Add to your wishlist'}
        aria-busy={pending}
        className={`inline-flex ${box} items-center justify-center rounded-full border transition-colors ${
          wished
            ? 'border-rose-300 bg-rose-50 text-rose-700 hover:bg-rose-100 dark:border-rose-400/60 dark:bg-rose-950 dark:text-rose-300 dark:hover:bg-rose-900'
            : 'border-slate-300 bg-white text-slate-600 hover:border-rose-300 hover:text-rose-700 dark:border-slate-500 dark:bg-slate-800 dark:text-slate-200 dark:hover:text-rose-300'
        } ${pending ? 'cursor-progress' : ''}`}
      >
        <HeartIcon filled={wished} className={size === 'large' ? 'size-7' : 'size-6'} />
      </button>
      {error ? (
        <p
          role="alert"
          className="absolute top-full right-0 z-10 mt-1 w-56 rounded border border-red-300 bg-white p-2 text-right text-sm text-red-700 shadow dark:border-red-400/60 dark:bg-slate-900 dark:text-red-300"
        >
          {error}
        </p>
      ) : null}
    </fetcher.Form>
  )
}
