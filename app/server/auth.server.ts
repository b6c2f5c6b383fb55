import { betterAuth } from 'better-auth'
import { drizzleAdapter } from 'better-auth/adapters/drizzle'
import { anonymous } from 'better-auth/plugins/anonymous'
import type { Db } from './db/database.server.ts'
import type { Logger } from './logger.server.ts'
import { account, session, user, verification } from './db/schema.server.ts'
import { hashPassword, verifyPassword } from './password.server.ts'

const SEVEN_DAYS = 7 * 24 * 60 * 60

export type AuthOptions = {
  db: Db
  secret: string
  /** The store's public origin: https here gives Secure, `__Secure-` prefixed session cookies. */
  baseURL: string
  /**
   * Called when a guest signs up or logs in, before Better Auth deletes the guest's user (and, by cascade,
   * what it owned): the place to move the guest's cart to the account.
   */
  onGuestLinked?: (guestUserId: string, userId: string) => Promise<void>
  /** Better Auth's own messages go to the store's log (default: its console logger). */
  logger?: Logger
}

/**
 * The store's identity service: Better Auth on our own database and schema (its tables are in
 * schema.server.ts, migrated with everything else), email + password hashed with Argon2id (decision 006),
 * and anonymous guest sessions. Sessions last 7 days, renewed daily while used.
 *
 * Its HTTP handler is not mounted: the store's own actions call `auth.api.*` (forms that work without
 * JavaScript), behind our database-backed rate limits (rate-limit.server.ts) and the cross-site check of
 * server/http.ts, so Better Auth's own in-memory limiter is off.
 */
export function createAuth(options: AuthOptions) {
  return betterAuth({
    database: drizzleAdapter(options.db, {
      provider: 'pg',
      schema: { user, session, account, verification },
    }),
    secret: options.secret,
    baseURL: options.baseURL,
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      password: { hash: hashPassword, verify: verifyPassword },
    },
    session: { expiresIn: SEVEN_DAYS, updateAge: 24 * 60 * 60 },
    rateLimit: { enabled: false },
    logger: options.logger && {
      // Its warnings are mostly failed logins, which our actions log themselves.
      level: 'error',
      log: (level, message, ...args) => options.logger![level]({ args }, `better-auth: ${message}`),
    },
    plugins: [
      anonymous({
        onLinkAccount: async ({ anonymousUser, newUser }) => {
          await options.onGuestLinked?.(anonymousUser.user.id, newUser.user.id)
        },
      }),
    ],
  })
}

export type Auth = ReturnType<typeof createAuth>

/** The session cookie's name ends so, with or without the `__Secure-` prefix. */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/

/** Whether a request carries a session cookie at all: requests without one need no database read. */
export function hasSessionCookie(cookieHeader: string | null): boolean {
  return cookieHeader !== null && SESSION_COOKIE.test(cookieHeader)
}
