import { betterAuth } from 'better-auth'
import { and, eq, like } from 'drizzle-orm'
import { drizzleAdapter } from 'better-auth/adapters/drizzle'
import { anonymous } from 'better-auth/plugins/anonymous'
import { genericOAuth } from 'better-auth/plugins/generic-oauth'
import type { Db } from './db/database.server.ts'
import type { Env } from './env.server.ts'
import type { Logger } from './logger.server.ts'
import { account, session, user, verification } from './db/schema/index.server.ts'
import { hashPassword, verifyPassword } from './password.server.ts'

const SEVEN_DAYS = 7 * 24 * 60 * 60

/** The providers one can sign in with besides a password, as configured (docs/decisions/018). */
export type SignInProviders = {
  github?: { clientId: string; clientSecret: string }
  oidc?: { issuer: string; clientId: string; clientSecret: string; name: string }
}

/** The provider ids, as they appear in callback URLs (/api/auth/callback/<id>) and the `account` table. */
export const PROVIDER_IDS = ['github', 'oidc'] as const
export type ProviderId = (typeof PROVIDER_IDS)[number]

/** The providers the environment configures: GitHub with both of its variables, OIDC with all three. */
export function signInProvidersOf(env: Env): SignInProviders {
  return {
    github:
      env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET
        ? { clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET }
        : undefined,
    oidc:
      env.OIDC_ISSUER && env.OIDC_CLIENT_ID && env.OIDC_CLIENT_SECRET
        ? {
            issuer: env.OIDC_ISSUER,
            clientId: env.OIDC_CLIENT_ID,
            clientSecret: env.OIDC_CLIENT_SECRET,
            name: env.OIDC_NAME,
          }
        : undefined,
  }
}

/** The issuer's discovery document, per OpenID Connect Discovery 1.0 (an issuer may end with a path). */
export function discoveryUrlOf(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
}

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
  /**
   * The account mails Better Auth asks for (decision 017): each is queued in the outbox, never sent inline.
   * Without them (scripts), verification and password reset are off.
   */
  mail?: AccountMailHooks
  /** Sign-in with GitHub and/or an OpenID Connect provider; none by default. */
  providers?: SignInProviders
  /**
   * Called once Better Auth has changed or deleted a user or one of their sessions (sign-out, revocations, a
   * password change or reset, an email change): the session cache forgets the user (decision 021).
   */
  onUserChanged?: (userId: string) => void
}

/** What Better Auth hands over when it wants a mail sent: the user and its token (its own URL is unused). */
export type AccountMailHooks = {
  /** Registration, a new link asked for, or a change of email (the token then carries `updateTo`). */
  verificationEmail(input: { user: { id: string; email: string }; token: string }): Promise<void>
  passwordReset(input: { user: { id: string; email: string } }): Promise<void>
}

/**
 * Email verification links last a day; password reset links an hour. A reset link's token is a row
 * `reset-password:<token>` of `verification` holding the user id, as Better Auth's resetPassword reads it.
 */
export const EMAIL_VERIFICATION_SECONDS = 24 * 60 * 60
export const PASSWORD_RESET_SECONDS = 60 * 60

/**
 * The store's identity service: Better Auth on our own database and schema (its tables are in
 * schema/, migrated with everything else), email + password hashed with Argon2id (decision 006),
 * and anonymous guest sessions. Sessions last 7 days, renewed daily while used.
 *
 * Its HTTP handler is not mounted: the store's own actions call `auth.api.*` (forms that work without
 * JavaScript), behind our database-backed rate limits (rate-limit.server.ts) and the cross-site check of
 * server/http.ts, so Better Auth's own in-memory limiter is off.
 */
export function createAuth(options: AuthOptions) {
  const { mail } = options
  const { github, oidc } = options.providers ?? {}
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
      resetPasswordTokenExpiresIn: PASSWORD_RESET_SECONDS,
      revokeSessionsOnPasswordReset: true,
      // Reset links are issued by the identity feature (its tokens are rows this resetPassword reads), not by
      // Better Auth's requestPasswordReset, whose work differs for an address without an account.
      onPasswordReset: async ({ user }) => {
        // A reset writes the new password with an update the account hooks below cannot see the user of.
        await cancelPasswordResets(options.db, user.id)
        await mail?.passwordReset({ user })
      },
    },
    ...(mail && {
      emailVerification: {
        sendOnSignUp: true,
        expiresIn: EMAIL_VERIFICATION_SECONDS,
        sendVerificationEmail: ({ user, token }) => mail.verificationEmail({ user, token }),
      },
    }),
    session: { expiresIn: SEVEN_DAYS, updateAge: 24 * 60 * 60 },
    databaseHooks: {
      ...(options.onUserChanged && userChangeHooks(options.onUserChanged)),
      account: passwordChangeHooks(options.db),
    },
    // A provider's sign-in joins an existing account with the same email only when both sides vouch for the
    // address: the provider says it verified it, and the account's own email is verified here. No provider is
    // trusted blindly, so an unverified account cannot be taken over by whoever claims its email elsewhere.
    account: {
      accountLinking: { enabled: true, trustedProviders: [], requireLocalEmailVerified: true },
    },
    socialProviders: github
      ? { github: { clientId: github.clientId, clientSecret: github.clientSecret, scope: ['user:email'] } }
      : {},
    // A failure Better Auth cannot send to the page the sign-in named (an unknown or expired state) lands on
    // the login page, which explains `?error=`.
    onAPIError: { errorURL: `${options.baseURL}/login` },
    // The back office's role comes with the session; `input: false`: no sign-up or update can set it.
    user: {
      // A new address takes effect once the link mailed to it is followed (no confirmation by the old one).
      changeEmail: { enabled: Boolean(mail) },
      additionalFields: {
        role: { type: 'string', required: false, defaultValue: 'customer', input: false },
      },
    },
    rateLimit: { enabled: false },
    logger: options.logger && betterAuthLogger(options.logger),
    plugins: [
      // Always present (an empty list without OIDC_*), so that the plugins' types stay fixed.
      genericOAuth({
        config: oidc
          ? [
              {
                providerId: 'oidc',
                name: oidc.name,
                discoveryUrl: discoveryUrlOf(oidc.issuer),
                clientId: oidc.clientId,
                clientSecret: oidc.clientSecret,
                scopes: ['openid', 'email', 'profile'],
                pkce: true,
                // client_secret_basic: the token endpoint's default in OpenID Connect Core (9), which every
                // provider supports; Better Auth's own default is client_secret_post.
                authentication: 'basic',
                requireIdTokenVerification: true,
              },
            ]
          : [],
      }),
      anonymous({
        onLinkAccount: async ({ anonymousUser, newUser }) => {
          await options.onGuestLinked?.(anonymousUser.user.id, newUser.user.id)
        },
      }),
    ],
  })
}

export type Auth = ReturnType<typeof createAuth>

/** Better Auth's hooks run after the write commits (after its transaction, when there is one). */
function userChangeHooks(changed: (userId: string) => void) {
  const user = async ({ id }: { id: string }) => changed(id)
  const session = async ({ userId }: { userId: string }) => changed(userId)
  return {
    user: { update: { after: user }, delete: { after: user } },
    session: { update: { after: session }, delete: { after: session } },
  }
}

/**
 * Cancels every password reset link of a user: Better Auth's rows `reset-password:<token>` in `verification`,
 * whose value is the user id. Once a password has been chosen (through one link, or any other way), a link
 * asked for before it must not set another (issue 28).
 */
export async function cancelPasswordResets(db: Db, userId: string): Promise<number> {
  const cancelled = await db
    .delete(verification)
    .where(and(like(verification.identifier, 'reset-password:%'), eq(verification.value, userId)))
    .returning({ id: verification.id })
  return cancelled.length
}

/**
 * A password account written (a change of password, a first password set): the user's reset links go. A
 * credential account row changes only with its password; Better Auth writes it after its own transaction
 * commits, before it answers.
 */
function passwordChangeHooks(db: Db) {
  const changed = async (row: { providerId?: string; userId?: string } | null | undefined) => {
    if (row?.providerId === 'credential' && row.userId) await cancelPasswordResets(db, row.userId)
  }
  return { create: { after: changed }, update: { after: changed } }
}

/**
 * What Better Auth says about a failed login. 1.7.25 says it at warn level (below what we forward) and
 * without the email, but its words tell an unknown email ('User not found') from a wrong password
 * ('Invalid password'): they are dropped whatever their level, so that neither an upgrade nor a lower log
 * level here puts them in our log. Our login action logs each failure itself, alike for both, no email.
 */
const FAILED_LOGIN_MESSAGES = new Set([
  'User not found',
  'Password not found',
  'Invalid password',
  'Password is too long',
])

/** Anything shaped like an email address, in a message or in what comes with it. */
const EMAIL_ADDRESS = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[^\s@"'<>(),;:]+/g
const REDACTED = '[email]'

/**
 * Better Auth's own messages, in the store's log: its errors only (its warnings are mostly failed logins,
 * which our actions log themselves), never a failed login's words, and with email addresses redacted, so
 * that the log says nothing about who tried to sign in. An Error it passes along is logged as `err`, with
 * its stack, where pino's serializer can read it.
 */
function betterAuthLogger(logger: Logger) {
  return {
    level: 'error' as const,
    log: (level: 'info' | 'warn' | 'error' | 'debug', message: string, ...args: unknown[]) => {
      if (FAILED_LOGIN_MESSAGES.has(message)) return
      const err = args.find((arg) => arg instanceof Error)
      const details = args.filter((arg) => arg !== err).map((arg) => redactEmails(arg))
      logger[level](
        { ...(err ? { err: redactError(err as Error) } : {}), ...(details.length ? { args: details } : {}) },
        `better-auth: ${redactEmails(message)}`,
      )
    },
  }
}

function redactEmails<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return value.replace(EMAIL_ADDRESS, REDACTED) as T
  if (depth > 4 || value === null || typeof value !== 'object') return value
  if (value instanceof Error) return redactError(value, depth) as T
  if (Array.isArray(value)) return value.map((item) => redactEmails(item, depth + 1)) as T
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactEmails(item, depth + 1)]),
  ) as T
}

/**
 * A copy of an Error that pino still serializes as an error: message, stack, cause and its own fields (a
 * database error's code and detail) redacted.
 */
function redactError(error: Error, depth = 0): Error {
  const copy = new Error(redactEmails(error.message), {
    cause: error.cause === undefined ? undefined : redactEmails(error.cause, depth + 1),
  })
  Object.assign(copy, redactEmails({ ...error }, depth + 1))
  copy.name = error.name
  copy.stack = error.stack && redactEmails(error.stack)
  return copy
}

/** The session cookie's name ends so, with or without the `__Secure-` prefix. */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/

/** Whether a request carries a session cookie at all: requests without one need no database read. */
export function hasSessionCookie(cookieHeader: string | null): boolean {
  return cookieHeader !== null && SESSION_COOKIE.test(cookieHeader)
}

const SESSION_COOKIES = /(?:^|;\s*)((?:__Secure-)?better-auth\.session_token=[^;]*)/g

/**
 * The session cookie(s) exactly as sent (name=value, signature included), as one string: what the session
 * cache keys on. Better Auth reads the same cookies. Every occurrence, not a parsed header's one value per
 * name: of a name sent twice, the `cookie` package keeps the first and Better Auth the last, so a key holding
 * only the first could answer for a session Better Auth never verified. `hasSessionCookie` matches the same.
 */
export function sessionCookiesOf(cookieHeader: string): string {
  return [...cookieHeader.matchAll(SESSION_COOKIES)].map((match) => match[1]).join('; ')
}
