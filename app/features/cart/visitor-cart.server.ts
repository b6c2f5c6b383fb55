import { z } from 'zod'
import type { AppContext } from '#app/server/context.server.ts'
import { signedCookie, type SignedCookie } from '#app/server/signed-cookie.server.ts'
import { ABANDONED_CART_DAYS, createCart, findAnonymousCart, listCartBookIds } from './cart.server.ts'

const cookies = new Map<string, SignedCookie>()

/**
 * The anonymous visitor's cart id, in an HttpOnly, SameSite=Lax cookie signed with the auth secret (a
 * visitor cannot point it at someone else's cart). Secure, with the __Host- prefix, when the store is https.
 */
function cartCookie({ authSecret, env }: Pick<AppContext, 'authSecret' | 'env'>): SignedCookie {
  const secure = env.publicUrl.protocol === 'https:'
  const key = `${secure}:${authSecret}`
  let cookie = cookies.get(key)
  if (!cookie) {
    cookie = signedCookie({
      name: secure ? '__Host-cb_cart' : 'cb_cart',
      secret: authSecret,
      secure,
      maxAgeSeconds: ABANDONED_CART_DAYS * 24 * 60 * 60,
    })
    cookies.set(key, cookie)
  }
  return cookie
}

const CartIdSchema = z.uuid()

/** The cart id the request's cookie names, if the cookie is there and its signature holds. No database read. */
export function readCartCookie(request: Request, context: AppContext): string | undefined {
  const parsed = CartIdSchema.safeParse(cartCookie(context).read(request.headers.get('Cookie')))
  return parsed.success ? parsed.data : undefined
}

/** The books in the visitor's cart: none, without touching the database, for a visitor with no cart cookie. */
export async function getVisitorCartBookIds(request: Request, context: AppContext): Promise<string[]> {
  const cartId = readCartCookie(request, context)
  return cartId ? listCartBookIds(context.db, cartId) : []
}

/**
 * The visitor's cart, created on first use. Returns the Set-Cookie header to send (the cookie is renewed
 * on each change, so an active cart never expires).
 */
export async function requireVisitorCart(
  request: Request,
  context: AppContext,
): Promise<{ cartId: string; setCookie: string }> {
  const fromCookie = readCartCookie(request, context)
  const existing = fromCookie ? await findAnonymousCart(context.db, fromCookie) : undefined
  const cartId = existing ?? (await createCart(context.db))
  return { cartId, setCookie: cartCookie(context).serialize(cartId) }
}
