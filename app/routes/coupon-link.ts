import { redirect } from 'react-router'
import { setCartCoupon } from '#app/features/cart/cart.server.ts'
import { requireVisitorCart } from '#app/features/cart/visitor-cart.server.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { lookUpCoupon } from '#app/features/pricing/coupons.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/coupon-link'

/**
 * GET /c/<CODE>: a shareable coupon link (issue 30). The code goes on the visitor's cart (made for them if they
 * have none) and they land on the cart, which shows the discount; a code that cannot be used lands them there
 * with the reason. Unknown codes count against the address's guesses, as typed ones do.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const app = getAppContext(context)
  const found = await lookUpCoupon(app.db, params.code, app.clientIp)
  if (!found.ok) return redirect(`/cart?${new URLSearchParams({ couponError: found.reason })}#coupon`, 303)
  const user = await getSessionUser({ request, context })
  const { cartId, setCookie } = await requireVisitorCart(request, app, user?.id)
  await setCartCoupon(app.db, cartId, found.coupon.code)
  return redirect('/cart#coupon', {
    status: 303,
    headers: setCookie ? { 'Set-Cookie': setCookie } : undefined,
  })
}
