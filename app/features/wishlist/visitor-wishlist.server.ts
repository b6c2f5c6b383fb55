import { z } from 'zod'
import type { AppContext } from '#app/server/context.server.ts'
import { signedCookie, type SignedCookie } from '#app/server/signed-cookie.server.ts'
import {
  ABANDONED_WISHLIST_DAYS,
  createWishlist,
  findAnonymousWishlist,
  findUserWishlist,
  giveWishlistToUser,
  listUserWishlistBookIds,
  listWishlistBookIds,
  moveUserWishlist,
  requireUserWishlist,
} from './wishlist.server.ts'

/** The wishlist cookie's names: with the `__Host-` prefix when the store is https (like the cart's). */
export const WISHLIST_COOKIE_NAMES = { plain: 'cb_wishlist', secure: '__Host-cb_wishlist' } as const

const cookies = new Map<string, SignedCookie>()

/**
 * The signed-out visitor's wishlist id, in an HttpOnly, SameSite=Lax cookie signed with the auth secret (a
 * visitor cannot point it at someone else's wishlist), as the cart's (features/cart/visitor-cart.server.ts).
 */
function wishlistCookie({ authSecret, env }: Pick<AppContext, 'authSecret' | 'env'>): SignedCookie {
  const secure = env.publicUrl.protocol === 'https:'
  const key = `${secure}:${authSecret}`
  let cookie = cookies.get(key)
  if (!cookie) {
    cookie = signedCookie({
      name: secure ? WISHLIST_COOKIE_NAMES.secure : WISHLIST_COOKIE_NAMES.plain,
      secret: authSecret,
      secure,
      maxAgeSeconds: ABANDONED_WISHLIST_DAYS * 24 * 60 * 60,
    })
    cookies.set(key, cookie)
  }
  return cookie
}

const WishlistIdSchema = z.uuid()
type CookieContext = Pick<AppContext, 'authSecret' | 'env'>

/** The wishlist id the request's cookie names, if the cookie is there and its signature holds. No database read. */
export function readWishlistCookie(
  request: Pick<Request, 'headers'>,
  context: CookieContext,
): string | undefined {
  const parsed = WishlistIdSchema.safeParse(wishlistCookie(context).read(request.headers.get('Cookie')))
  return parsed.success ? parsed.data : undefined
}

/** The visitor's wishlist id, if they have one: a signed-in user's by account, anyone else's by cookie. */
export async function findVisitorWishlist(
  request: Pick<Request, 'headers'>,
  context: Pick<AppContext, 'authSecret' | 'env' | 'db'>,
  userId: string | undefined,
): Promise<string | undefined> {
  if (userId) return findUserWishlist(context.db, userId)
  const fromCookie = readWishlistCookie(request, context)
  return fromCookie ? findAnonymousWishlist(context.db, fromCookie) : undefined
}

/** The books on the visitor's wishlist: none, without touching the database, for a visitor with no cookie. */
export async function getVisitorWishlistBookIds(
  request: Pick<Request, 'headers'>,
  context: Pick<AppContext, 'authSecret' | 'env' | 'db'>,
  userId: string | undefined,
): Promise<string[]> {
  if (userId) return listUserWishlistBookIds(context.db, userId)
  const fromCookie = readWishlistCookie(request, context)
  // An id that is no longer an anonymous wishlist's (deleted, or given to an account) has no rows either.
  return fromCookie ? listAnonymousBookIds(context, fromCookie) : []
}

async function listAnonymousBookIds(context: Pick<AppContext, 'db'>, wishlistId: string) {
  return (await findAnonymousWishlist(context.db, wishlistId))
    ? listWishlistBookIds(context.db, wishlistId)
    : []
}

/**
 * The visitor's wishlist, made on first use; for a visitor without an account, also the Set-Cookie header
 * to send (renewed on each change, so a wishlist in use never expires).
 */
export async function requireVisitorWishlist(
  request: Request,
  context: AppContext,
  userId: string | undefined,
): Promise<{ wishlistId: string; setCookie?: string }> {
  if (userId) return { wishlistId: await requireUserWishlist(context.db, userId) }
  const fromCookie = readWishlistCookie(request, context)
  const existing = fromCookie ? await findAnonymousWishlist(context.db, fromCookie) : undefined
  const wishlistId = existing ?? (await createWishlist(context.db))
  return { wishlistId, setCookie: wishlistCookie(context).serialize(wishlistId) }
}

/** The visitor's wishlist if they have one (nothing is made): for a removal. */
export async function findExistingVisitorWishlist(
  request: Request,
  context: AppContext,
  userId: string | undefined,
): Promise<{ wishlistId: string; setCookie?: string } | undefined> {
  const wishlistId = await findVisitorWishlist(request, context, userId)
  if (!wishlistId) return undefined
  return userId ? { wishlistId } : { wishlistId, setCookie: wishlistCookie(context).serialize(wishlistId) }
}

/**
 * A visitor has just signed in (or started a guest session) as `userId`: the wishlist they had before joins
 * the account's — the anonymous one named by their cookie, and a guest account's when a guest logs in or
 * registers. Returns the Set-Cookie header that deletes the wishlist cookie, if there was one.
 */
export async function handOverVisitorWishlist(
  request: Request,
  context: AppContext,
  { userId, guestUserId }: { userId: string; guestUserId?: string },
): Promise<string | undefined> {
  if (guestUserId) await moveUserWishlist(context.db, guestUserId, userId)
  const fromCookie = readWishlistCookie(request, context)
  if (!fromCookie) return undefined
  await giveWishlistToUser(context.db, fromCookie, userId)
  return wishlistCookie(context).clear()
}
