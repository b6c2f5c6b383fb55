import { z } from 'zod'
import type { AppContext } from '#app/server/context.server.ts'
import { signedCookie, type SignedCookie } from '#app/server/signed-cookie.server.ts'
import {
  ABANDONED_CART_DAYS,
  createCart,
  findAnonymousCart,
  findUserCart,
  giveCartToUser,
  listCartBookIds,
  moveUserCart,
  requireUserCart,
} from './cart.server.ts'

/** The cart cookie's names: with the `__Host-` prefix when the store is https. */
export const CART_COOKIE_NAMES = { plain: 'cb_cart', secure: '__Host-cb_cart' } as const

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
      name: secure ? CART_COOKIE_NAMES.secure : CART_COOKIE_NAMES.plain,
      secret: authSecret,
      secure,
      maxAgeSeconds: ABANDONED_CART_DAYS * 24 * 60 * 60,
    })
    cookies.set(key, cookie)
  }
  return cookie
}

const CartIdSchema = z.uuid()

type CookieContext = Pick<AppContext, 'authSecret' | 'env'>

/** The cart id the request's cookie names, if the cookie is there and its signature holds. No database read. */
export function readCartCookie(
  request: Pick<Request, 'headers'>,
  context: CookieContext,
): string | undefined {
  const parsed = CartIdSchema.safeParse(cartCookie(context).read(request.headers.get('Cookie')))
  return parsed.success ? parsed.data : undefined
}

/**
 * The visitor's cart id, if they have a cart: a signed-in user's (a guest's included) by account, anyone
 * else's by cookie.
 */
export async function findVisitorCart(
  request: Pick<Request, 'headers'>,
  context: Pick<AppContext, 'authSecret' | 'env' | 'db'>,
  userId: string | undefined,
): Promise<string | undefined> {
  return userId ? findUserCart(context.db, userId) : readCartCookie(request, context)
}

/** The books in the visitor's cart: none, without touching the database, for a visitor with no cart cookie. */
export async function getVisitorCartBookIds(
  request: Pick<Request, 'headers'>,
  context: Pick<AppContext, 'authSecret' | 'env' | 'db'>,
  userId: string | undefined,
): Promise<string[]> {
  const cartId = await findVisitorCart(request, context, userId)
  return cartId ? listCartBookIds(context.db, cartId) : []
}

/**
 * The visitor's cart, created on first use. For a visitor without an account, also the Set-Cookie header to
 * send (the cookie is renewed on each change, so an active cart never expires).
 */
export async function requireVisitorCart(
  request: Request,
  context: AppContext,
  userId: string | undefined,
): Promise<{ cartId: string; setCookie?: string }> {
  if (userId) return { cartId: await requireUserCart(context.db, userId) }
  const fromCookie = readCartCookie(request, context)
  const existing = fromCookie ? await findAnonymousCart(context.db, fromCookie) : undefined
  const cartId = existing ?? (await createCart(context.db))
  return { cartId, setCookie: cartCookie(context).serialize(cartId) }
}

/**
 * The visitor's cart if they already have one (nothing is created), with the renewed cookie for a visitor
 * without an account: for a change that needs an existing cart (removing a book).
 */
export async function findExistingVisitorCart(
  request: Request,
  context: AppContext,
  userId: string | undefined,
): Promise<{ cartId: string; setCookie?: string } | undefined> {
  if (userId) {
    const cartId = await findUserCart(context.db, userId)
    return cartId ? { cartId } : undefined
  }
  const fromCookie = readCartCookie(request, context)
  const cartId = fromCookie ? await findAnonymousCart(context.db, fromCookie) : undefined
  return cartId ? { cartId, setCookie: cartCookie(context).serialize(cartId) } : undefined
}

/**
 * A visitor has just signed in (or started a guest session) as `userId`: the cart they had before joins the
 * account's — the anonymous cart named by their cookie, and a guest account's cart when a guest logs in or
 * registers (Better Auth's link hook usually moved it already; this is the path where it did not run).
 * Returns the Set-Cookie header that deletes the cart cookie, if there was one.
 */
export async function handOverVisitorCart(
  request: Request,
  context: AppContext,
  { userId, guestUserId }: { userId: string; guestUserId?: string },
): Promise<string | undefined> {
  if (guestUserId) await moveUserCart(context.db, guestUserId, userId)
  const fromCookie = readCartCookie(request, context)
  if (!fromCookie) return undefined
  await giveCartToUser(context.db, fromCookie, userId)
  return cartCookie(context).clear()
}
