import { data, redirect } from 'react-router'
import { handOverVisitorCart } from '#app/features/cart/visitor-cart.server.ts'
import { handOverVisitorWishlist } from '#app/features/wishlist/visitor-wishlist.server.ts'
import { PROVIDER_IDS, signInProvidersOf, type ProviderId } from '#app/server/auth.server.ts'
import { getAppContext, type AppContext } from '#app/server/context.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import { authHeaders, deleteGuestUser, limitAuthPost, type Visit } from './account.server.ts'
import type { AccountActionData } from './components/account-form.tsx'
import { getSessionUser } from './session.server.ts'

/** A button on the login page: 'Sign in with <name>'. */
export type SignInProvider = { id: ProviderId; name: string }

/** The providers configured by the environment, in the order their buttons appear. */
export function listSignInProviders(app: Pick<AppContext, 'env'>): SignInProvider[] {
  const { github, oidc } = signInProvidersOf(app.env)
  return [
    ...(github ? [{ id: 'github' as const, name: 'GitHub' }] : []),
    ...(oidc ? [{ id: 'oidc' as const, name: oidc.name }] : []),
  ]
}

function isProviderId(value: unknown): value is ProviderId {
  return typeof value === 'string' && (PROVIDER_IDS as readonly string[]).includes(value)
}

/** What the login page says when a provider sent the visitor back with `?error=`. */
export function providerErrorMessage(error: string | null): string | undefined {
  if (!error) return undefined
  if (error === 'access_denied')
    return 'You did not allow CodeBook to use that account, so you are not signed in.'
  if (error === 'account_not_linked')
    return 'An account with this email already exists. We connect a sign-in provider to it only when both the provider and CodeBook have verified the email: log in with your password instead.'
  if (error === 'too_many_attempts') return 'Too many attempts. Try again in a few minutes.'
  if (error === 'signup_disabled') return 'There is no CodeBook account for that sign-in yet.'
  return 'We could not sign you in with that provider, so you are not signed in. Please try again.'
}

export type ProviderStart =
  | { ok: true; response: Response }
  | { ok: false; status: 400 | 429 | 503; formError: string; retryAfterSeconds?: number }

/**
 * 'Sign in with …' posted from a form: Better Auth makes the authorization URL and its `state` (kept in the
 * verification table and in a signed cookie, checked at the callback), and the browser is sent there with a
 * 303. Works without JavaScript. A guest's id rides in the state, so their cart follows them.
 */
export async function startProviderSignIn(
  visit: Visit,
  form: FormData,
  { errorPath = '/login' }: { errorPath?: string } = {},
): Promise<ProviderStart> {
  const app = getAppContext(visit.context)
  const provider = form.get('provider')
  const configured = listSignInProviders(app).map((entry) => entry.id)
  if (!isProviderId(provider) || !configured.includes(provider))
    return { ok: false, status: 400, formError: 'That sign-in provider is not available.' }
  try {
    const limited = await limitAuthPost(app)
    if (limited)
      return {
        ok: false,
        status: 429,
        formError: limited.formError!,
        retryAfterSeconds: limited.retryAfterSeconds,
      }
    const redirectTo = safeRedirectPath(form.get('redirectTo'))
    const { headers, response } = await app.auth.api.signInSocial({
      body: { provider, callbackURL: redirectTo, errorCallbackURL: errorPath, disableRedirect: true },
      headers: authHeaders(visit.request, app),
      returnHeaders: true,
    })
    if (!('url' in response) || !response.url) throw new Error('no authorization URL')
    const answer = new Headers({ Location: response.url })
    for (const cookie of headers.getSetCookie()) answer.append('Set-Cookie', cookie)
    return { ok: true, response: new Response(null, { status: 303, headers: answer }) }
  } catch (error) {
    app.logger.error({ err: error, provider }, 'provider sign-in could not start')
    return {
      ok: false,
      status: 503,
      formError: 'We could not reach that sign-in provider, so nothing changed. Please try again.',
    }
  }
}

/** The answer to a refused start, on the page that posted it. */
export function providerStartFailure(result: Extract<ProviderStart, { ok: false }>) {
  const headers = result.retryAfterSeconds ? { 'Retry-After': String(result.retryAfterSeconds) } : undefined
  const body: AccountActionData = { formError: result.formError }
  return data(body, { status: result.status, headers })
}

const SESSION_TOKEN = /^(?:__Secure-)?better-auth\.session_token=/

/**
 * The provider sent the browser back (`/api/auth/callback/<provider>?code=…&state=…`, or `?error=…`): Better
 * Auth's own callback handler checks the state, exchanges the code, verifies the ID token and signs the
 * visitor in (or redirects to the login page with `?error=`). Then, as after a password login, the cart the
 * visitor had joins the account: a signed-out visitor's cookie cart, and a guest's cart (the anonymous
 * plugin's link hook moves it first; this covers the cases where it did not run).
 */
export async function completeProviderSignIn(visit: Visit & { provider: string }): Promise<Response> {
  const app = getAppContext(visit.context)
  const configured = listSignInProviders(app).map((entry) => entry.id)
  if (!isProviderId(visit.provider) || !configured.includes(visit.provider))
    throw data(
      { title: 'Page not found', message: 'We could not find the page you asked for.' },
      { status: 404 },
    )
  const limited = await limitAuthPost(app)
  if (limited) throw redirect('/login?error=too_many_attempts')
  const before = await getSessionUser(visit)
  const headers = authHeaders(visit.request, app)
  const answer = await app.auth.handler(new Request(visit.request.url, { method: 'GET', headers }))
  const out = new Headers(answer.headers)
  const sessionCookies = answer.headers
    .getSetCookie()
    .filter((cookie) => SESSION_TOKEN.test(cookie) && !/Max-Age=0/i.test(cookie))
  if (sessionCookies.length > 0) {
    const signedIn = await app.auth.api.getSession({
      headers: new Headers({ Cookie: sessionCookies.map((cookie) => cookie.split(';')[0]).join('; ') }),
      query: { disableRefresh: true },
    })
    if (signedIn) {
      const userId = signedIn.user.id
      const guestUserId = before?.isGuest && before.id !== userId ? before.id : undefined
      const clearCartCookie = await handOverVisitorCart(visit.request, app, { userId, guestUserId })
      const clearWishlistCookie = await handOverVisitorWishlist(visit.request, app, { userId, guestUserId })
      if (guestUserId) await deleteGuestUser(app, guestUserId)
      if (clearCartCookie) out.append('Set-Cookie', clearCartCookie)
      if (clearWishlistCookie) out.append('Set-Cookie', clearWishlistCookie)
      app.logger.info({ provider: visit.provider, ip: app.clientIp }, 'provider sign-in')
    }
  }
  out.set('Cache-Control', 'no-store')
  return new Response(null, { status: answer.status, headers: out })
}
