import type { ReactNode } from 'react'
import { Link, useFetcher, useLocation } from 'react-router'
import { BookCover } from '#app/features/catalog/components/book-cover.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { WishlistLine } from '../wishlist-line.ts'
import { WISHLIST_ACTION } from '../use-wishlist.ts'

/** A wishlist's books as a list: cover, title (linked), today's price, and what the page lets one do. */
export function WishlistBooks({
  lines,
  actions,
}: {
  lines: WishlistLine[]
  /** The buttons beside each book (the owner's page: add to cart, remove). */
  actions?: (line: WishlistLine) => ReactNode
}) {
  return (
    <ul className="divide-y divide-slate-200 dark:divide-slate-700">
      {lines.map((line) => (
        <li
          key={line.bookId}
          id={`book-${line.bookId}`}
          className="flex scroll-mt-4 flex-wrap items-center gap-4 py-4"
        >
          <Link to={`/books/${line.slug}`} tabIndex={-1} aria-hidden="true" className="shrink-0">
            <BookCover
              cover={line.cover}
              coverPath={line.coverPath}
              alt=""
              sizes="64px"
              className="h-24 w-16 rounded object-cover"
            />
          </Link>
          <div className="min-w-0 flex-1 basis-48">
            <h2 className="text-lg font-semibold break-words">
              <Link to={`/books/${line.slug}`} className="hover:underline">
                {line.title}
              </Link>
            </h2>
            <p className="text-lg">
              <span className="sr-only">Price: </span>
              {formatPrice(line.priceCents, line.currency)}
              {line.available ? null : (
                <span className="ml-2 text-sm text-slate-600 dark:text-slate-300">
                  (not for sale right now)
                </span>
              )}
            </p>
          </div>
          {actions ? <div className="ml-auto flex flex-wrap items-start gap-3">{actions(line)}</div> : null}
        </li>
      ))}
    </ul>
  )
}

/**
 * 'Remove' on the wishlist's own page: the heart's form with a word for a label, on the same fetcher, so the
 * book leaves the list (and its hearts empty) at once.
 */
export function RemoveFromWishlistButton({ bookId, title }: { bookId: string; title: string }) {
  const fetcher = useFetcher<{ error?: string }>({ key: `wishlist:${bookId}` })
  const location = useLocation()
  const error = fetcher.state === 'idle' ? fetcher.data?.error : undefined
  return (
    <fetcher.Form method="post" action={WISHLIST_ACTION} className="flex flex-col items-end gap-1">
      <input type="hidden" name="bookId" value={bookId} />
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <button
        type="submit"
        name="intent"
        value="remove"
        aria-label={`Remove ${title} from your wishlist`}
        className="inline-flex items-center justify-center rounded-lg border border-slate-300 px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-500 dark:text-slate-100 dark:hover:bg-slate-700"
      >
        Remove
      </button>
      {error ? (
        <p role="alert" className="max-w-56 text-right text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </fetcher.Form>
  )
}
