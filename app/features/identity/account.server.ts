import { APIError } from 'better-auth/api'
import { and, eq, gt, lt, notExists } from 'drizzle-orm'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { session, user } from '#app/server/db/schema.server.ts'
import {
  clearRateLimit,
  hitRateLimit,
  ipSubject,
  peekRateLimit,
  tooManyAttemptsMessage,
  type RateLimitRule,
} from '#app/server/rate-limit.server.ts'
import { fieldErrorsOf, LoginSchema, RegisterSchema } from './credentials.server.ts'
import { identityMessages, type FieldErrors } from './credentials.ts'

const MINUTE = 60 * 1000

/** Every login, registration, guest start and logout from one address. */
export const AUTH_POSTS_PER_IP: RateLimitRule = { name: 'auth-posts', limit: 30, windowMs: MINUTE }
/** Failed logins for one account from one address: the owner, elsewhere, is not locked out. */
export const FAILED_LOGINS_PER_ACCOUNT_AND_IP: RateLimitRule = {
  name: 'login-failed',
  limit: 10,
  windowMs: 15 * MINUTE,
}
export const SIGN_UPS_PER_IP: RateLimitRule = { name: 'sign-ups', limit: 10, windowMs: 60 * MINUTE }
export const GUEST_SESSIONS_PER_IP: RateLimitRule = {
  name: 'guest-sessions',
  limit: 20,
  windowMs: 60 * MINUTE,
}

/** What an identity form's action gets back: a session to set, or what to tell the visitor. */
export type AccountResult =
  | { ok: true; userId: string; setCookies: string[] }
  | {
      ok: false
      status: 400 | 401 | 409 | 429 | 503
      fieldErrors?: FieldErrors
      formError?: string
      retryAfterSeconds?: number
    }

type Visit = { request: Request; app: AppContext }

export function register(visit: Visit, form: FormData): Promise<AccountResult> {
  return orServiceDown(visit.app, 'sign-up', () => registerOrRefuse(visit, form))
}

async function registerOrRefuse({ request, app }: Visit, form: FormData): Promise<AccountResult> {
  const limited = await limitAuthPost(app)
  if (limited) return limited
  const parsed = RegisterSchema.safeParse(fieldsOf(form))
  if (!parsed.success) return { ok: false, status: 400, fieldErrors: fieldErrorsOf(parsed.error) }
  const signUps = await hitRateLimit(app.db, SIGN_UPS_PER_IP, ipSubject(app.clientIp))
  if (!signUps.allowed) return tooMany(signUps.retryAfterSeconds)
  const { email, password } = parsed.data
  try {
    const { headers, response } = await app.auth.api.signUpEmail({
      body: { email, password, name: email },
      headers: authHeaders(request, app),
      returnHeaders: true,
    })
    return { ok: true, userId: response.user.id, setCookies: headers.getSetCookie() }
  } catch (error) {
    if (error instanceof APIError && String(error.body?.code).startsWith('USER_ALREADY_EXISTS'))
      return { ok: false, status: 409, fieldErrors: { email: identityMessages.emailInUse } }
    throw error
  }
}

/**
 * The same answer, status and work (Better Auth hashes the given password when the email is unknown) for
 * an unknown email and a wrong password: a failed login does not tell whether an account exists.
 */
export function logIn(visit: Visit, form: FormData): Promise<AccountResult> {
  return orServiceDown(visit.app, 'login', () => logInOrRefuse(visit, form))
}

async function logInOrRefuse({ request, app }: Visit, form: FormData): Promise<AccountResult> {
  const limited = await limitAuthPost(app)
  if (limited) return limited
  const parsed = LoginSchema.safeParse(fieldsOf(form))
  if (!parsed.success) return { ok: false, status: 400, fieldErrors: fieldErrorsOf(parsed.error) }
  const { email, password } = parsed.data
  const subject = `${email}|${ipSubject(app.clientIp)}`
  const earlier = await peekRateLimit(app.db, FAILED_LOGINS_PER_ACCOUNT_AND_IP, subject)
  if (!earlier.allowed) return tooMany(earlier.retryAfterSeconds)
  try {
    const { headers, response } = await app.auth.api.signInEmail({
      body: { email, password, rememberMe: true },
      headers: authHeaders(request, app),
      returnHeaders: true,
    })
    await clearRateLimit(app.db, FAILED_LOGINS_PER_ACCOUNT_AND_IP, subject)
    return { ok: true, userId: response.user.id, setCookies: headers.getSetCookie() }
  } catch (error) {
    if (error instanceof APIError && error.body?.code === 'INVALID_EMAIL_OR_PASSWORD') {
      const failures = await hitRateLimit(app.db, FAILED_LOGINS_PER_ACCOUNT_AND_IP, subject)
      app.logger.info({ ip: app.clientIp, failures: failures.hits }, 'login failed')
      return { ok: false, status: 401, formError: identityMessages.loginFailed }
    }
    throw error
  }
}

/** 'Login as guest': an anonymous account that can shop, and register later keeping its cart. */
export function startGuestSession({ request, app }: Visit): Promise<AccountResult> {
  return orServiceDown(app, 'guest session', async () => {
    const limited = await limitAuthPost(app)
    if (limited) return limited
    const guests = await hitRateLimit(app.db, GUEST_SESSIONS_PER_IP, ipSubject(app.clientIp))
    if (!guests.allowed) return tooMany(guests.retryAfterSeconds)
    const { headers, response } = await app.auth.api.signInAnonymous({
      headers: authHeaders(request, app),
      returnHeaders: true,
    })
    if (!response) throw new Error('no guest session was created')
    return { ok: true, userId: response.user.id, setCookies: headers.getSetCookie() }
  })
}

/**
 * Revokes the session on the server, then clears its cookie. Better Auth's sign-out logs a failed revocation
 * and clears the cookie anyway, which would leave a live session behind: we delete it ourselves first, and a
 * failure leaves the visitor signed in and told so.
 */
export async function logOut({ request, app }: Visit): Promise<AccountResult> {
  try {
    const limited = await limitAuthPost(app)
    if (limited) return limited
    const current = await app.auth.api.getSession({
      headers: authHeaders(request, app),
      query: { disableRefresh: true },
    })
    if (current) await app.db.delete(session).where(eq(session.id, current.session.id))
    const { headers } = await app.auth.api.signOut({
      headers: authHeaders(request, app),
      returnHeaders: true,
    })
    return { ok: true, userId: '', setCookies: headers.getSetCookie() }
  } catch (error) {
    app.logger.error({ err: error }, 'logout failed')
    return { ok: false, status: 503, formError: identityMessages.logoutFailed }
  }
}

/**
 * Deletes a guest account once its cart has moved to the account the guest signed in to. Better Auth does
 * this itself when its link hook runs; this covers the paths where it does not.
 */
export async function deleteGuestUser(app: AppContext, guestUserId: string): Promise<void> {
  await app.db.delete(user).where(and(eq(user.id, guestUserId), eq(user.isAnonymous, true)))
}

async function limitAuthPost(app: AppContext): Promise<AccountResult | undefined> {
  const posts = await hitRateLimit(app.db, AUTH_POSTS_PER_IP, ipSubject(app.clientIp))
  return posts.allowed ? undefined : tooMany(posts.retryAfterSeconds)
}

function tooMany(retryAfterSeconds: number): AccountResult {
  return { ok: false, status: 429, formError: tooManyAttemptsMessage(retryAfterSeconds), retryAfterSeconds }
}

/** A failure of the database or of Better Auth: the visitor is told nothing changed; the operator, why. */
async function orServiceDown(
  app: AppContext,
  what: string,
  attempt: () => Promise<AccountResult>,
): Promise<AccountResult> {
  try {
    return await attempt()
  } catch (error) {
    app.logger.error({ err: error }, `${what} failed`)
    return { ok: false, status: 503, formError: identityMessages.serviceDown }
  }
}

function fieldsOf(form: FormData) {
  const text = (name: string) => {
    const value = form.get(name)
    return typeof value === 'string' ? value : undefined
  }
  return { email: text('email'), password: text('password') }
}

/**
 * What Better Auth sees of the request: the visitor's cookies (a guest session to link), their browser, and
 * the client address as our host derived it (never a client-sent X-Forwarded-For).
 */
function authHeaders(request: Request, app: AppContext): Headers {
  const headers = new Headers({ 'X-Forwarded-For': app.clientIp })
  const cookie = request.headers.get('Cookie')
  if (cookie) headers.set('Cookie', cookie)
  const userAgent = request.headers.get('User-Agent')
  if (userAgent) headers.set('User-Agent', userAgent)
  return headers
}

/** Guests are kept while they have a live session; a guest gone for this long is deleted, with its cart. */
export const IDLE_GUEST_DAYS = 30

/** Deletes guest accounts with no live session and created more than IDLE_GUEST_DAYS ago. */
export async function deleteIdleGuests(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - IDLE_GUEST_DAYS * 24 * 60 * 60 * 1000)
  const liveSession = db
    .select({ id: session.id })
    .from(session)
    .where(and(eq(session.userId, user.id), gt(session.expiresAt, now)))
  const deleted = await db
    .delete(user)
    .where(and(eq(user.isAnonymous, true), lt(user.createdAt, cutoff), notExists(liveSession)))
    .returning({ id: user.id })
  return deleted.length
}
