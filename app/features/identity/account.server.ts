import { APIError } from 'better-auth/api'
import { and, eq, gt, lt, notExists } from 'drizzle-orm'
import { setTimeout as sleep } from 'node:timers/promises'
import type { RouterContextProvider } from 'react-router'
import { getAppContext, type AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { session, user } from '#app/server/db/schema/index.server.ts'
import {
  clearRateLimit,
  hitRateLimit,
  ipSubject,
  slowDownMs,
  tooManyAttemptsMessage,
  type RateLimitRule,
  type SlowDownRule,
} from '#app/server/rate-limit.server.ts'
import { fieldErrorsOf, LoginSchema, RegisterSchema } from './credentials.server.ts'
import { identityMessages, PASSWORD_MAX_LENGTH, type FieldErrors } from './credentials.ts'
import { getSessionUser, type SessionUser } from './session.server.ts'
import { forgetSessionsOf } from '#app/server/session-cache.server.ts'

const MINUTE = 60 * 1000

/** Every login, registration, guest start and logout from one address. */
export const AUTH_POSTS_PER_IP: RateLimitRule = { name: 'auth-posts', limit: 30, windowMs: MINUTE }
/**
 * Logins for one account from one address that did not succeed: each attempt is counted before its password
 * is checked, and a success clears the count. The owner, elsewhere, is not locked out (decision 006).
 */
export const FAILED_LOGINS_PER_ACCOUNT_AND_IP: RateLimitRule = {
  name: 'login-failed',
  limit: 10,
  windowMs: 15 * MINUTE,
}
/**
 * Logins for one account from any addresses (issue 28), counted alike: past 20 in 15 minutes, each further
 * attempt waits before its password is checked, 250 ms doubling up to 2 s, and is never refused. Guessing
 * from many addresses is slowed; the owner is never locked out, only kept waiting (decision 006). Counted by
 * the email typed, whether or not an account has it, so the wait tells nothing either; a success clears it.
 */
export const FAILED_LOGINS_PER_ACCOUNT: SlowDownRule = {
  name: 'login-failed-account',
  limit: 20,
  windowMs: 15 * MINUTE,
  firstDelayMs: 250,
  maxDelayMs: 2_000,
}
export const SIGN_UPS_PER_IP: RateLimitRule = { name: 'sign-ups', limit: 10, windowMs: 60 * MINUTE }
export const GUEST_SESSIONS_PER_IP: RateLimitRule = {
  name: 'guest-sessions',
  limit: 20,
  windowMs: 60 * MINUTE,
}

/** What an identity form's action gets back: a session to set, or what to tell the visitor. */
export type AccountResult =
  | {
      ok: true
      userId: string
      setCookies: string[]
      /** Who was signed in before (a guest's cart follows them into the account). */
      before: SessionUser | null
    }
  | {
      ok: false
      status: 400 | 401 | 409 | 429 | 503
      fieldErrors?: FieldErrors
      formError?: string
      retryAfterSeconds?: number
    }

/** A loader's or action's arguments: the request and React Router's context, where the app's services are. */
export type Visit = { request: Request; context: Readonly<RouterContextProvider> }

export function register(visit: Visit, form: FormData): Promise<AccountResult> {
  return orServiceDown(visit, 'sign-up', () => registerOrRefuse(visit, form))
}

async function registerOrRefuse(visit: Visit, form: FormData): Promise<AccountResult> {
  const { request } = visit
  const app = getAppContext(visit.context)
  const limited = await limitAuthPost(app)
  if (limited) return limited
  const before = await getSessionUser(visit)
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
    return { ok: true, userId: response.user.id, setCookies: headers.getSetCookie(), before }
  } catch (error) {
    if (
      (error instanceof APIError && String(error.body?.code).startsWith('USER_ALREADY_EXISTS')) ||
      (await emailTakenMeanwhile(app.db, error, email))
    )
      return { ok: false, status: 409, fieldErrors: { email: identityMessages.emailInUse } }
    throw error
  }
}

/**
 * The same email registered twice at once: both pass Better Auth's lookup, the unique index on the email
 * refuses the second insert, and Better Auth reports only that it failed to create the user (found by
 * `npm run drill:fuzz`). If the account exists now, that was the reason; anything else is a real failure.
 */
async function emailTakenMeanwhile(db: Db, error: unknown, email: string): Promise<boolean> {
  if (!(error instanceof APIError) || error.body?.code !== 'FAILED_TO_CREATE_USER') return false
  const [existing] = await db
    .select({ id: user.id })
    .from(user)
    .where(eq(user.email, email.toLowerCase()))
    .limit(1)
  return existing !== undefined
}

/**
 * The same answer, status and work (Better Auth hashes the given password when the email is unknown) for
 * an unknown email and a wrong password: a failed login does not tell whether an account exists.
 */
export function logIn(visit: Visit, form: FormData): Promise<AccountResult> {
  return orServiceDown(visit, 'login', () => logInOrRefuse(visit, form))
}

async function logInOrRefuse(visit: Visit, form: FormData): Promise<AccountResult> {
  const { request } = visit
  const app = getAppContext(visit.context)
  const limited = await limitAuthPost(app)
  if (limited) return limited
  const parsed = LoginSchema.safeParse(fieldsOf(form))
  if (!parsed.success) return { ok: false, status: 400, fieldErrors: fieldErrorsOf(parsed.error) }
  const { email, password } = parsed.data
  const before = await getSessionUser(visit)
  const subject = `${email}|${ipSubject(app.clientIp)}`
  // Counted before the password is checked, in one atomic statement: concurrent guesses cannot all slip
  // in under the limit, as they could between a check and a count made after the failure.
  const attempts = await hitRateLimit(app.db, FAILED_LOGINS_PER_ACCOUNT_AND_IP, subject)
  if (!attempts.allowed) return tooMany(attempts.retryAfterSeconds)
  const fromAnywhere = await hitRateLimit(app.db, FAILED_LOGINS_PER_ACCOUNT, email)
  const slowedMs = slowDownMs(FAILED_LOGINS_PER_ACCOUNT, fromAnywhere.hits)
  if (slowedMs > 0) await sleep(slowedMs)
  const failed = (): AccountResult => {
    app.logger.info(
      { ip: app.clientIp, failures: attempts.hits, ...(slowedMs > 0 && { slowedMs }) },
      'login failed',
    )
    return { ok: false, status: 401, formError: identityMessages.loginFailed }
  }
  // Registration refuses longer ones, so no account has such a password: no need to hash 64 KiB to say so.
  if (password.length > PASSWORD_MAX_LENGTH) return failed()
  try {
    const { headers, response } = await app.auth.api.signInEmail({
      body: { email, password, rememberMe: true },
      headers: authHeaders(request, app),
      returnHeaders: true,
    })
    await clearRateLimit(app.db, FAILED_LOGINS_PER_ACCOUNT_AND_IP, subject)
    await clearRateLimit(app.db, FAILED_LOGINS_PER_ACCOUNT, email)
    return { ok: true, userId: response.user.id, setCookies: headers.getSetCookie(), before }
  } catch (error) {
    if (error instanceof APIError && error.body?.code === 'INVALID_EMAIL_OR_PASSWORD') return failed()
    throw error
  }
}

/** 'Login as guest': an anonymous account that can shop, and register later keeping its cart. */
export function startGuestSession(visit: Visit): Promise<AccountResult> {
  return orServiceDown(visit, 'guest session', async () => {
    const app = getAppContext(visit.context)
    const limited = await limitAuthPost(app)
    if (limited) return limited
    const before = await getSessionUser(visit)
    // 'Login as guest' from a page left open after signing in: already done, the visitor goes on.
    if (before) return { ok: true, userId: before.id, setCookies: [], before }
    const guests = await hitRateLimit(app.db, GUEST_SESSIONS_PER_IP, ipSubject(app.clientIp))
    if (!guests.allowed) return tooMany(guests.retryAfterSeconds)
    const { headers, response } = await app.auth.api.signInAnonymous({
      headers: authHeaders(visit.request, app),
      returnHeaders: true,
    })
    if (!response) throw new Error('no guest session was created')
    return { ok: true, userId: response.user.id, setCookies: headers.getSetCookie(), before }
  })
}

/** What logging out comes to: the cookies to clear, or the visitor is still signed in and told why. */
export type LogoutResult =
  { ok: true; setCookies: string[] } | { ok: false; status: 429 | 503; message: string }

/**
 * Revokes the visitor's session on the server, then clears its cookies. Better Auth's sign-out logs a failed
 * revocation and clears the cookie anyway, which would leave a live session behind: we delete it ourselves
 * first, and only a failure there leaves the visitor signed in and told so. With no session to revoke (logged
 * out in another tab, expired, a forged cookie) there is nothing to fail: the cookies go and the visitor is
 * signed out, as they asked.
 */
export async function logOut(visit: Visit): Promise<LogoutResult> {
  const app = getAppContext(visit.context)
  const headers = authHeaders(visit.request, app)
  try {
    const posts = await hitRateLimit(app.db, AUTH_POSTS_PER_IP, ipSubject(app.clientIp))
    if (!posts.allowed)
      return { ok: false, status: 429, message: tooManyAttemptsMessage(posts.retryAfterSeconds) }
    const current = await app.auth.api.getSession({ headers, query: { disableRefresh: true } })
    if (current) {
      await app.db.delete(session).where(eq(session.id, current.session.id))
      forgetSessionsOf(app.db, current.user.id)
    }
  } catch (error) {
    app.logger.error({ err: error }, 'logout failed')
    return { ok: false, status: 503, message: identityMessages.logoutFailed }
  }
  try {
    const signedOut = await app.auth.api.signOut({ headers, returnHeaders: true })
    return { ok: true, setCookies: signedOut.headers.getSetCookie() }
  } catch (error) {
    // The session is gone, so the visitor is signed out: the cookie left behind is worth nothing, and the
    // next page's session lookup deletes it.
    app.logger.error({ err: error }, 'logout: the session was revoked but its cookies were not cleared')
    return { ok: true, setCookies: [] }
  }
}

/**
 * Deletes a guest account once its cart has moved to the account the guest signed in to. Better Auth does
 * this itself when its link hook runs; this covers the paths where it does not.
 */
export async function deleteGuestUser(app: AppContext, guestUserId: string): Promise<void> {
  await app.db.delete(user).where(and(eq(user.id, guestUserId), eq(user.isAnonymous, true)))
  forgetSessionsOf(app.db, guestUserId)
}

export async function limitAuthPost(
  app: AppContext,
): Promise<Extract<AccountResult, { ok: false }> | undefined> {
  const posts = await hitRateLimit(app.db, AUTH_POSTS_PER_IP, ipSubject(app.clientIp))
  return posts.allowed ? undefined : tooMany(posts.retryAfterSeconds)
}

export function tooMany(retryAfterSeconds: number): Extract<AccountResult, { ok: false }> {
  return { ok: false, status: 429, formError: tooManyAttemptsMessage(retryAfterSeconds), retryAfterSeconds }
}

/**
 * A failure of the database or of Better Auth (looking up who is signed in included): the visitor is told
 * nothing changed; the operator, why.
 */
async function orServiceDown(
  visit: Visit,
  what: string,
  attempt: () => Promise<AccountResult>,
): Promise<AccountResult> {
  try {
    return await attempt()
  } catch (error) {
    getAppContext(visit.context).logger.error({ err: error }, `${what} failed`)
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
export function authHeaders(request: Request, app: AppContext): Headers {
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
