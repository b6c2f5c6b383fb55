import { useFetcher, useLocation } from 'react-router'
import { dangerButton, primaryButton } from '#app/components/ui/button-styles.ts'
import { CART_ACTION, useCartBookIds } from '../use-cart.ts'

/**
 * 'Add To Cart' (blue) ↔ 'Remove Item' (red). A plain form post without JavaScript (the action redirects
 * back here); with it, a fetcher shared by every button for this book, updated optimistically.
 */
export function CartButton({ bookId, size = 'normal' }: { bookId: string; size?: 'normal' | 'large' }) {
  const fetcher = useFetcher<{ error?: string }>({ key: `cart:${bookId}` })
  const location = useLocation()
  const inCart = useCartBookIds().has(bookId)
  const pending = fetcher.state !== 'idle'
  const error = fetcher.state === 'idle' ? fetcher.data?.error : undefined
  const sizing = size === 'large' ? 'px-5 py-3 text-base' : ''
  return (
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
  )
}
