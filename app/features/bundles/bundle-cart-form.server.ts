import {
  addBundleToCart,
  assertBundleAddable,
  removeBundleFromCart,
} from '#app/features/cart/cart-bundles.server.ts'
import { CartError, cartProblemMessages } from '#app/features/cart/cart.server.ts'
import { findExistingVisitorCart, requireVisitorCart } from '#app/features/cart/visitor-cart.server.ts'
import { isUuid } from '#app/features/catalog/admin-books.server.ts'
import type { FormAnswer } from '#app/features/pricing/cart-forms.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import { getBundleOwnership } from './bundles.server.ts'

type Visitor = { request: Request; app: AppContext; userId: string | undefined; fromScript: boolean }

/**
 * The cart's bundle forms (a bundle's page, the cart): `add-bundle` puts the bundle on the visitor's cart (made
 * if need be) and takes out the books it brings; `remove-bundle` takes it off. A refused form writes nothing
 * and answers 400 with the reason; without JavaScript the visitor lands on the cart at the bundle (added) or
 * back where they were (removed).
 */
export async function answerBundleForm(visitor: Visitor, form: FormData): Promise<FormAnswer> {
  const { request, app, userId } = visitor
  const bundleId = String(form.get('bundleId') ?? '')
  const refuse = (message: string): FormAnswer => ({ kind: 'data', status: 400, body: { error: message } })
  if (!isUuid(bundleId)) return refuse(cartProblemMessages['unknown-bundle'])
  let setCookie: string | undefined
  let taken: string[] = []
  try {
    if (form.get('intent') === 'add-bundle') {
      await assertBundleAddable(app.db, bundleId)
      if (userId && (await getBundleOwnership(app.db, bundleId, userId)) === 'all')
        return refuse('You already own every eBook in this bundle: they are in your library.')
      const cart = await requireVisitorCart(request, app, userId)
      setCookie = cart.setCookie
      taken = await addBundleToCart(app.db, cart.cartId, bundleId)
    } else {
      const cart = await findExistingVisitorCart(request, app, userId)
      if (!cart) throw new CartError('bundle-not-in-cart')
      setCookie = cart.setCookie
      await removeBundleFromCart(app.db, cart.cartId, bundleId)
    }
  } catch (error) {
    if (error instanceof CartError) return { ...refuse(error.message), setCookie }
    throw error
  }
  const added = form.get('intent') === 'add-bundle'
  const notice =
    taken.length > 0
      ? 'The bundle includes eBooks that were in your cart on their own: they now come with it.'
      : null
  if (visitor.fromScript)
    return {
      kind: 'data',
      status: 200,
      body: { ok: true, addedBundle: added ? bundleId : null, notice },
      setCookie,
    }
  const back = added ? `/cart#bundle-${bundleId}` : safeRedirectPath(form.get('redirectTo'), '/cart')
  return { kind: 'redirect', location: back, setCookie }
}
