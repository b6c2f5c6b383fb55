import { parse, serialize } from 'cookie'
import type { MiddlewareFunction } from 'react-router'
import { z } from 'zod'

/**
 * 'Added to your cart' after a form post without JavaScript: the cart's action redirects back to the page and
 * names the book in this short-lived cookie, which the next page reads once (the root loader) and deletes (the
 * middleware below). A cookie rather than a `?added=` query: the URL stays the page's own (a reload, a bookmark
 * or a shared link does not say it again), and the shared page cache needs nothing of its own — this cookie is
 * not among the visitor key's cookies (app/visitor-key.server.ts), so a page asked for with it is neither
 * served from the cache nor kept in it, and the answer that deletes it sets a cookie, which the cache never
 * keeps either. With JavaScript the fetcher's answer says it; no cookie is set.
 */
export const CART_ADDED_COOKIE = 'cb_cart_added'

/** Long enough for the redirect to be followed; a notice never shown is gone after it. */
const MAX_AGE_SECONDS = 60

/** The Set-Cookie header naming the book just added (`secure`: the store is served over https). */
export function cartAddedCookie(bookId: string, secure: boolean): string {
  return serialize(CART_ADDED_COOKIE, bookId, {
    path: '/',
    maxAge: MAX_AGE_SECONDS,
    httpOnly: true,
    sameSite: 'lax',
    secure,
  })
}

/** The book the visitor has just added without JavaScript, if the request says one (a book id, nothing else). */
export function readCartAdded(request: Request): string | null {
  const value = parse(request.headers.get('Cookie') ?? '')[CART_ADDED_COOKIE]
  const parsed = z.uuid().safeParse(value)
  return parsed.success ? parsed.data : null
}

/** Deletes the notice's cookie on the answer to the request that carried it: the notice is shown once. */
export const cartAddedMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  const response = await next()
  if (CART_ADDED_COOKIE in parse(request.headers.get('Cookie') ?? '')) {
    response.headers.append('Set-Cookie', serialize(CART_ADDED_COOKIE, '', { path: '/', maxAge: 0 }))
  }
  return response
}
