import { useFetcher, useLocation } from 'react-router'
import { dangerButton, primaryButton } from '#app/components/ui/button-styles.ts'
import type { LineBundle } from '#app/features/cart/book-line.ts'
import { CART_ACTION } from '#app/features/cart/use-cart.ts'

/**
 * A bundle's cart line ends with this: 'Remove Bundle'. A plain form post without JavaScript (back to the
 * cart); with it, a fetcher, and the line leaves at once (useCartBookIds).
 */
export function RemoveBundleButton({ bundle }: { bundle: Pick<LineBundle, 'id' | 'title'> }) {
  const fetcher = useFetcher<{ error?: string }>({ key: `cart-bundle:${bundle.id}` })
  const location = useLocation()
  const error = fetcher.state === 'idle' ? fetcher.data?.error : undefined
  return (
    <fetcher.Form method="post" action={CART_ACTION} className="flex flex-col items-end gap-1">
      <input type="hidden" name="bundleId" value={bundle.id} />
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <button
        type="submit"
        name="intent"
        value="remove-bundle"
        aria-label={`Remove the bundle ${bundle.title}`}
        className={dangerButton}
      >
        Remove Bundle
      </button>
      {error ? (
        <p role="alert" className="max-w-56 text-right text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </fetcher.Form>
  )
}

/**
 * The bundle page's button: 'Add Bundle To Cart', or, once it is there, a way to the cart. A plain form post
 * (the cart, at the bundle, is where it lands); the server refuses what cannot be bought and says why.
 */
export function AddBundleButton({
  bundle,
  inCart,
  error,
}: {
  bundle: Pick<LineBundle, 'id' | 'title'>
  inCart: boolean
  error?: string
}) {
  if (inCart)
    return (
      <p className="flex flex-wrap items-center gap-3">
        <span className="font-medium">This bundle is in your cart.</span>
        <a href={`/cart#bundle-${bundle.id}`} className={primaryButton}>
          View cart
        </a>
      </p>
    )
  return (
    <form method="post" action={CART_ACTION} className="flex flex-col items-start gap-2">
      <input type="hidden" name="bundleId" value={bundle.id} />
      <button
        type="submit"
        name="intent"
        value="add-bundle"
        className={`${primaryButton} px-5 py-3 text-base`}
      >
        Add Bundle To Cart
      </button>
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </form>
  )
}
