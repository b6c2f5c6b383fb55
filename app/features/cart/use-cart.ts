import { useFetchers, useRouteLoaderData } from 'react-router'
import { isKeyOfBundle } from './bundle-book-key.ts'

/** Where the cart's form posts (the /cart route's action). */
export const CART_ACTION = '/cart'

/**
 * What the root loader tells every page about the visitor's cart: its books, and the book just added by a
 * form post without JavaScript, said once (features/cart/added-notice.server.ts).
 */
export type RootCartData = { cartBookIds: string[]; cartAddedBookId: string | null }

/**
 * The books in the cart as the visitor should see them right now: the server's answer, with every add or
 * remove still in flight already applied (optimistic UI). Every button and the header badge read this one
 * hook, so they all change at once.
 */
export function useCartBookIds(): ReadonlySet<string> {
  const root = useRouteLoaderData('root') as RootCartData | undefined
  const ids = new Set(root?.cartBookIds ?? [])
  for (const fetcher of useFetchers()) {
    if (fetcher.formAction !== CART_ACTION || !fetcher.formData) continue
    // A bundle being taken off: its books leave the count at once (added, they wait for the server's answer).
    const bundleId = fetcher.formData.get('bundleId')
    if (typeof bundleId === 'string' && fetcher.formData.get('intent') === 'remove-bundle') {
      for (const id of ids) if (isKeyOfBundle(id, bundleId)) ids.delete(id)
      continue
    }
    const bookId = fetcher.formData.get('bookId')
    if (typeof bookId !== 'string') continue
    if (fetcher.formData.get('intent') === 'add') ids.add(bookId)
    else if (fetcher.formData.get('intent') === 'remove') ids.delete(bookId)
  }
  return ids
}
