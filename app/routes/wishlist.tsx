import { data, Link, redirect } from 'react-router'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { listOwnedBookIds } from '#app/features/library/library.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import {
  findExistingVisitorWishlist,
  requireVisitorWishlist,
} from '#app/features/wishlist/visitor-wishlist.server.ts'
import { WishlistFormSchema } from '#app/features/wishlist/wishlist-form.ts'
import {
  addToWishlist,
  assertWishable,
  removeFromWishlist,
  WishlistError,
} from '#app/features/wishlist/wishlist.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { isDataRequest } from '#app/server/data-request.ts'
import { readForm } from '#app/server/form.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import type { Route } from './+types/wishlist'

/**
 * The heart's action (issue 30): puts a book on the visitor's wishlist or takes it off. A fetcher (JavaScript
 * on) is answered with JSON, a refusal with its status (400 a request that cannot be, 409 one the wishlist's
 * state refuses) and its message; a plain form is sent back to its page, or shown the refusal here. A refused
 * change writes nothing, not even a visitor's first wishlist.
 */
export async function action({ request, url, context }: Route.ActionArgs) {
  const app = getAppContext(context)
  const fromScript = isDataRequest(request, url)
  const form = await readForm(request)
  const parsed = WishlistFormSchema.safeParse(Object.fromEntries(form))
  if (!parsed.success)
    return data({ error: parsed.error.issues[0]?.message ?? 'Invalid request.' }, { status: 400 })
  const { intent, bookId, redirectTo } = parsed.data
  const user = await getSessionUser({ request, context })
  if (intent === 'add' && user && (await listOwnedBookIds(app.db, user.id)).includes(bookId))
    return data({ error: 'You already own this eBook: it is in your library.' }, { status: 409 })
  let headers: { 'Set-Cookie': string } | undefined
  try {
    if (intent === 'add') {
      await assertWishable(app.db, bookId)
      const { wishlistId, setCookie } = await requireVisitorWishlist(request, app, user?.id)
      headers = setCookie ? { 'Set-Cookie': setCookie } : undefined
      await addToWishlist(app.db, wishlistId, bookId)
    } else {
      const wishlist = await findExistingVisitorWishlist(request, app, user?.id)
      if (!wishlist) {
        await assertWishable(app.db, bookId).catch((error: unknown) => {
          // A book gone from the store can still be taken off: only an unknown one is a bad request.
          if (!(error instanceof WishlistError && error.problem === 'unavailable')) throw error
        })
        throw new WishlistError('not-wished')
      }
      headers = wishlist.setCookie ? { 'Set-Cookie': wishlist.setCookie } : undefined
      await removeFromWishlist(app.db, wishlist.wishlistId, bookId)
    }
  } catch (error) {
    if (error instanceof WishlistError)
      return data({ error: error.message }, { status: error.status, headers })
    throw error
  }
  if (fromScript) return data({ ok: true, wished: intent === 'add' }, { headers })
  // JavaScript off: back to the page the visitor was on, at the book they acted on.
  const back = safeRedirectPath(redirectTo, '/account/wishlist')
  return redirect(back.includes('#') ? back : `${back}#book-${bookId}`, { status: 303, headers })
}

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Wishlist', 'Your CodeBook wishlist.', { matches })

/**
 * Shown to a plain form (JavaScript off) the action refused: why, and the way back. (No loader: one would run
 * after the refused post and could not see why it was refused.) A visit to /wishlist gets the way on.
 */
export default function WishlistAnswer({ actionData }: Route.ComponentProps) {
  const error = actionData && 'error' in actionData ? actionData.error : undefined
  return (
    <section className="mx-auto max-w-2xl px-4 py-12">
      <SectionHeading level={1}>{error ? 'Your wishlist was not changed' : 'Your wishlist'}</SectionHeading>
      {error ? (
        <p role="alert" className="mb-6 rounded-lg border border-red-300 bg-red-50 p-4 text-red-800">
          {error}
        </p>
      ) : null}
      <p>
        <Link
          to="/account/wishlist"
          className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
        >
          See your wishlist
        </Link>
      </p>
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
