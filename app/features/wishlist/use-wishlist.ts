import { useFetchers, useRouteLoaderData } from 'react-router'

/**
 * Where the heart's form posts (the /wishlist route's action). Here, not beside the form's zod schema: the
 * browser's bundle would take zod along, whose probe for `new Function` the page's CSP reports.
 */
export const WISHLIST_ACTION = '/wishlist'

/** What the root loader tells every page about the visitor's wishlist: its books. */
export type RootWishlistData = { wishlistBookIds: string[] }

/**
 * The books on the wishlist as the visitor should see them right now: the server's answer with every heart
 * still in flight already applied (optimistic UI), so that every heart for a book changes at once.
 */
export function useWishlistBookIds(): ReadonlySet<string> {
  const root = useRouteLoaderData('root') as RootWishlistData | undefined
  const ids = new Set(root?.wishlistBookIds ?? [])
  for (const fetcher of useFetchers()) {
    if (fetcher.formAction !== WISHLIST_ACTION || !fetcher.formData) continue
    const bookId = fetcher.formData.get('bookId')
    if (typeof bookId !== 'string') continue
    if (fetcher.formData.get('intent') === 'add') ids.add(bookId)
    else if (fetcher.formData.get('intent') === 'remove') ids.delete(bookId)
  }
  return ids
}
