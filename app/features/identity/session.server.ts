import {
  createContext,
  data,
  redirect,
  type MiddlewareFunction,
  type RouterContextProvider,
} from 'react-router'
import { hasSessionCookie, sessionCookiesOf } from '#app/server/auth.server.ts'
import { getAppContext } from '#app/server/context.server.ts'

/** Who is visiting: an account (email + password) or a guest (Better Auth's anonymous user). */
export type SessionUser = {
  id: string
  email: string
  isGuest: boolean
  isAdmin: boolean
  /** Whether the owner followed a link mailed to this address (decision 017). */
  emailVerified: boolean
  /** This visit's session (the account page marks it among the others). */
  sessionId: string
}

type ResolvedSession = {
  user: SessionUser | null
  /** Set-Cookie headers Better Auth sent with the lookup (a renewed or a cleared session cookie). */
  setCookies: string[]
}

const sessionContext = createContext<Promise<ResolvedSession> | null>(null)

type Args = { request: Request; context: Readonly<RouterContextProvider> }

/**
 * The visitor's signed-in user, or null. Looked up once per request (the root loader and a route's loader
 * share it), and only when the request carries a session cookie: a signed-out visitor costs no query.
 */
export function getSessionUser(args: Args): Promise<SessionUser | null> {
  return resolveSession(args).then((session) => session.user)
}

/** A signed-in account (not a guest), or a redirect to log in (a guest: to register) and come back. */
export async function requireUser(args: Args & { url: URL }): Promise<SessionUser> {
  const user = await getSessionUser(args)
  if (user && !user.isGuest) return user
  // `url`, not `request.url`: a client navigation's request is for '/checkout.data', the page is '/checkout'.
  const { url } = args
  // A guest has a cart worth keeping: registering turns the guest into an account and keeps it.
  const page = user?.isGuest ? '/Register' : '/login'
  throw redirect(`${page}?${new URLSearchParams({ redirectTo: `${url.pathname}${url.search}` })}`)
}

/**
 * The back office's one guard: a signed-in admin, or a 404 for anyone else (a guest, a customer, nobody), so
 * that /admin does not reveal it exists. The /admin layout's loader and every admin route's own loader and
 * action call it (not a middleware: routes/admin/layout.tsx says why); the session is looked up once a request.
 */
export async function requireAdmin(args: Args): Promise<SessionUser> {
  const user = await getSessionUser(args)
  if (user?.isAdmin) return user
  // The same answer as any unknown URL (routes/not-found.tsx).
  throw data(
    { title: 'Page not found', message: 'We could not find the page you asked for.' },
    { status: 404 },
  )
}

function resolveSession({ request, context }: Args): Promise<ResolvedSession> {
  const known = context.get(sessionContext)
  if (known) return known
  const resolved = lookUpSession(request, context)
  ;(context as RouterContextProvider).set(sessionContext, resolved)
  return resolved
}

async function lookUpSession(
  request: Request,
  context: Readonly<RouterContextProvider>,
): Promise<ResolvedSession> {
  const cookie = request.headers.get('Cookie')
  if (!hasSessionCookie(cookie)) return { user: null, setCookies: [] }
  const { auth, sessions } = getAppContext(context)
  // Decision 021: a session read from the database within SESSION_CACHE_SECONDS, and not revoked here since.
  const key = sessionCookiesOf(cookie!)
  const known = sessions.get(key) as SessionUser | undefined
  if (known) return { user: known, setCookies: [] }
  const generation = sessions.generation
  const { headers, response } = await auth.api.getSession({
    headers: new Headers({ Cookie: cookie! }),
    returnHeaders: true,
  })
  const found = response?.user
  const user: SessionUser | null = found
    ? {
        id: found.id,
        email: found.email,
        emailVerified: Boolean(found.emailVerified),
        sessionId: response.session.id,
        isGuest: Boolean(found.isAnonymous),
        // A guest is never an admin, whatever its row says.
        isAdmin: !found.isAnonymous && found.role === 'admin',
      }
    : null
  if (user)
    sessions.set(key, { value: user, userId: user.id, expiresAt: response!.session.expiresAt }, generation)
  return { user, setCookies: headers.getSetCookie() }
}

/**
 * Sends the cookies Better Auth set while looking the session up: the renewed session cookie of the 7-day
 * sliding expiry, or the deletion of an expired one. Not when the response sets a session of its own (a
 * login replacing a guest session). A page made for a signed-in visitor is marked for their browser only.
 */
export const sessionCookieMiddleware: MiddlewareFunction<Response> = async ({ context }, next) => {
  const response = await next()
  const resolved = context.get(sessionContext)
  if (!resolved) return response
  const { user, setCookies } = await resolved.catch(() => ({ user: null, setCookies: [] }))
  if (user && !response.headers.has('Cache-Control'))
    response.headers.set('Cache-Control', 'private, no-store')
  const ownSession = response.headers.getSetCookie().some((cookie) => /session_token=/.test(cookie))
  if (!ownSession) for (const cookie of setCookies) response.headers.append('Set-Cookie', cookie)
  return response
}
