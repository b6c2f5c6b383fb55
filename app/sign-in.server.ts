import { data, redirect } from 'react-router'
import { handOverVisitorCart } from '#app/features/cart/visitor-cart.server.ts'
import { handOverVisitorWishlist } from '#app/features/wishlist/visitor-wishlist.server.ts'
import { deleteGuestUser, type AccountResult } from '#app/features/identity/account.server.ts'
import type { AccountActionData } from '#app/features/identity/components/account-form.tsx'
import type { AppContext } from '#app/server/context.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'

/**
 * After a login, a registration or a guest start: the cart the visitor had joins the account, then the
 * browser is sent on with the new session cookie (a 303, so a reload does not post again). Every cookie
 * travels as its own Set-Cookie header: Better Auth's session cookie(s) and the cart cookie's deletion.
 *
 * The answer, with the session's cookies, is made before the cart moves and the guest goes, so that they change
 * only along with a session the browser receives. A target a Location header could not hold used to fail after
 * the hand-over: a 500 without the session cookie, the guest deleted and its cart in the account (issue 28).
 */
export async function signedInRedirect(
  request: Request,
  app: AppContext,
  {
    result,
    redirectTo,
  }: { result: Extract<AccountResult, { ok: true }>; redirectTo: FormDataEntryValue | null },
) {
  const response = redirect(safeRedirectPath(redirectTo), { status: 303 })
  for (const cookie of result.setCookies) response.headers.append('Set-Cookie', cookie)
  // Who the visitor was before: a guest's cart moves to the account, then the guest goes.
  const { before } = result
  const guestUserId = before?.isGuest && before.id !== result.userId ? before.id : undefined
  const clearCartCookie = await handOverVisitorCart(request, app, { userId: result.userId, guestUserId })
  // The wishlist too, the same way (issue 30).
  const clearWishlistCookie = await handOverVisitorWishlist(request, app, {
    userId: result.userId,
    guestUserId,
  })
  if (guestUserId) await deleteGuestUser(app, guestUserId)
  if (clearCartCookie) response.headers.append('Set-Cookie', clearCartCookie)
  if (clearWishlistCookie) response.headers.append('Set-Cookie', clearWishlistCookie)
  return response
}

/** A refused attempt: the form again, with its messages and the email typed (never the password). */
export function accountFailure(
  result: Extract<AccountResult, { ok: false }>,
  email?: FormDataEntryValue | null,
) {
  const body: AccountActionData = {
    fieldErrors: result.fieldErrors,
    formError: result.formError,
    email: typeof email === 'string' ? email.slice(0, 254) : undefined,
  }
  const headers = result.retryAfterSeconds ? { 'Retry-After': String(result.retryAfterSeconds) } : undefined
  return data(body, { status: result.status, headers })
}

/**
 * The login and register pages' `headers`: a refused attempt's Retry-After reaches the browser. Without a
 * route `headers` function React Router passes on only the Set-Cookie headers of an action's answer.
 */
export function passOnRetryAfter({
  actionHeaders,
  parentHeaders,
}: {
  actionHeaders: Headers
  parentHeaders: Headers
}): Headers {
  const headers = new Headers(parentHeaders)
  const retryAfter = actionHeaders.get('Retry-After')
  if (retryAfter) headers.set('Retry-After', retryAfter)
  return headers
}

/**
 * The `headers` of a page opened from a mailed link whose URL holds its token (choosing a new password,
 * confirming an email): no cache keeps it, neither the browser's, a proxy's, the host's page cache nor the
 * render memo (`no-store`, which they all honour), and no Referer carries the URL to another site (issue 28).
 * A refused attempt's Retry-After still reaches the browser.
 */
export function secretUrlHeaders(args: { actionHeaders: Headers; parentHeaders: Headers }): Headers {
  const headers = passOnRetryAfter(args)
  headers.set('Cache-Control', 'no-store')
  headers.set('Referrer-Policy', 'no-referrer')
  return headers
}
