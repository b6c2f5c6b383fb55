import { Link, useFetcher, useLocation, useRouteLoaderData } from 'react-router'
import { dangerButton, primaryButton } from '#app/components/ui/button-styles.ts'
import { CART_ACTION, useCartBookIds, type RootCartData } from '../use-cart.ts'

const noticeLink = 'font-medium text-blue-700 underline underline-offset-2 dark:text-sky-300'

/**
 * 'Add To Cart' (blue) ↔ 'Remove Item' (red). A plain form post without JavaScript (the action redirects
 * back here); with it, a fetcher shared by every button for this book, updated optimistically. Once the
 * server has added the book, a polite status below the button says so, with the way on: 'View cart',
 * 'Checkout' (the fetcher's answer, or without JavaScript the notice the redirected page reads once).
 */
export function CartButton({ bookId, size = 'normal' }: { bookId: string; size?: 'normal' | 'large' }) {
  const fetcher = useFetcher<{ error?: string; added?: string | null }>({ key: `cart:${bookId}` })
  const location = useLocation()
  const root = useRouteLoaderData('root') as RootCartData | undefined
  const inCart = useCartBookIds().has(bookId)
  const pending = fetcher.state !== 'idle'
  const error = fetcher.state === 'idle' ? fetcher.data?.error : undefined
  const added =
    !pending && inCart && (fetcher.data ? fetcher.data.added === bookId : root?.cartAddedBookId === bookId)
  const sizing = size === 'large' ? 'px-5 py-3 text-base' : ''
  // A card's button sits at its right edge, the book page's at the start of its row: the notice aligns with it.
  const align = size === 'large' ? 'items-start text-left' : 'items-end text-right'
  return (
    <div className={`flex flex-col gap-1 ${align}`}>
      <fetcher.Form method="post" action={CART_ACTION} className="flex flex-col items-end gap-1">
        <input type="hidden" name="bookId" value={bookId} />
        <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
        <button
          type="submit"
          name="intent"
          value={inCart ? 'remove' : 'add'}
          aria-busy={pending}
          // While the server confirms, only the cursor says so: fading the button would fail text contrast.
          className={`${inCart ? dangerButton : primaryButton} ${sizing} ${pending ? 'cursor-progress' : ''}`}
        >
          {inCart ? 'Remove Item' : 'Add To Cart'}
        </button>
        {error ? (
          <p role="alert" className="max-w-56 text-right text-sm text-red-700 dark:text-red-300">
            {error}
          </p>
        ) : null}
      </fetcher.Form>
      {/* Always in the page, so that a screen reader announces what is put in it. */}
      <p role="status" className="max-w-56 text-sm text-slate-700 dark:text-slate-200">
        {added ? (
          <>
            Added to your cart.{' '}
            <span className="whitespace-nowrap">
              <Link to="/cart" className={noticeLink}>
                View cart
              </Link>{' '}
              ·{' '}
              <Link to="/checkout" className={noticeLink}>
                Checkout
              </Link>
            </span>
          </>
        ) : null}
      </p>
    </div>
  )
}
