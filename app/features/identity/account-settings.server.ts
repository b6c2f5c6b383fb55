import { APIError } from 'better-auth/api'
import { and, desc, eq, gt } from 'drizzle-orm'
import { getAppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { session } from '#app/server/db/schema/index.server.ts'
import { clearRateLimit } from '#app/server/rate-limit.server.ts'
import { queuePasswordChanged } from './account-mail.server.ts'
import {
  accountFieldErrors,
  ChangeEmailSchema,
  ChangePasswordSchema,
  textFields,
} from './account-forms.server.ts'
import { accountMessages } from './account-forms.ts'
import { limit, orServiceDown, type AccountOutcome, type Visit } from './account-outcome.server.ts'
import { authHeaders } from './account.server.ts'
import { deviceLabel } from './device-label.ts'
import type { SessionUser } from './session.server.ts'

const MINUTE = 60 * 1000

export const EMAIL_CHANGES_PER_ACCOUNT = { name: 'email-changes', limit: 5, windowMs: 60 * MINUTE }
/** Wrong current passwords for one account: counted before the check, cleared by a success (as logins). */
export const FAILED_PASSWORD_CHANGES_PER_ACCOUNT = {
  name: 'password-change-failed',
  limit: 10,
  windowMs: 15 * MINUTE,
}

/**
 * A new email address: Better Auth mails a link to it, and the account changes only when it is followed
 * (email-verification.server.ts tells the old address then). An address another account uses gets the
 * same answer and no mail, so the form does not tell who has an account.
 */
export function changeEmail(visit: Visit, user: SessionUser, form: FormData): Promise<AccountOutcome> {
  return orServiceDown(visit, 'email change', async () => {
    const app = getAppContext(visit.context)
    const parsed = ChangeEmailSchema.safeParse(textFields(form, ['newEmail']))
    if (!parsed.success) return { ok: false, status: 400, fieldErrors: accountFieldErrors(parsed.error) }
    const { newEmail } = parsed.data
    if (newEmail === user.email)
      return { ok: false, status: 400, fieldErrors: { newEmail: accountMessages.sameEmail } }
    const limited = await limit(app, [[EMAIL_CHANGES_PER_ACCOUNT, user.id]])
    if (limited) return limited
    await app.auth.api.changeEmail({
      body: { newEmail, callbackURL: '/account' },
      headers: authHeaders(visit.request, app),
    })
    return { ok: true, notice: accountMessages.emailChangeSent(newEmail) }
  })
}

/**
 * A new password, given the current one: every other session is signed out (Better Auth replaces this one
 * too: its new cookie comes back) and the account's address is told.
 */
export function changePassword(visit: Visit, user: SessionUser, form: FormData): Promise<AccountOutcome> {
  return orServiceDown(visit, 'password change', async () => {
    const app = getAppContext(visit.context)
    const parsed = ChangePasswordSchema.safeParse(textFields(form, ['currentPassword', 'newPassword']))
    if (!parsed.success) return { ok: false, status: 400, fieldErrors: accountFieldErrors(parsed.error) }
    const limited = await limit(app, [[FAILED_PASSWORD_CHANGES_PER_ACCOUNT, user.id]])
    if (limited) return limited
    const { currentPassword, newPassword } = parsed.data
    try {
      const { headers } = await app.auth.api.changePassword({
        body: { currentPassword, newPassword, revokeOtherSessions: true },
        headers: authHeaders(visit.request, app),
        returnHeaders: true,
      })
      await clearRateLimit(app.db, FAILED_PASSWORD_CHANGES_PER_ACCOUNT, user.id)
      await queuePasswordChanged(app.db, user.email, app.env.publicUrl)
      app.kickOutbox()
      return { ok: true, notice: accountMessages.passwordChanged, setCookies: headers.getSetCookie() }
    } catch (error) {
      const code = error instanceof APIError ? error.body?.code : undefined
      if (code === 'INVALID_PASSWORD')
        return {
          ok: false,
          status: 400,
          fieldErrors: { currentPassword: accountMessages.currentPasswordWrong },
        }
      if (code === 'CREDENTIAL_ACCOUNT_NOT_FOUND')
        return { ok: false, status: 400, formError: accountMessages.noPassword }
      throw error
    }
  })
}

export type AccountSession = { id: string; device: string; lastSeen: string; current: boolean }

/** The account's live sessions, most recently used first; the visitor's own is marked. */
export async function listAccountSessions(db: Db, user: SessionUser): Promise<AccountSession[]> {
  const rows = await db
    .select({ id: session.id, userAgent: session.userAgent, updatedAt: session.updatedAt })
    .from(session)
    .where(and(eq(session.userId, user.id), gt(session.expiresAt, new Date())))
    .orderBy(desc(session.updatedAt))
  return rows
    .map((row) => ({
      id: row.id,
      device: deviceLabel(row.userAgent),
      lastSeen: row.updatedAt.toISOString(),
      current: row.id === user.sessionId,
    }))
    .toSorted((a, b) => Number(b.current) - Number(a.current))
}

/**
 * Signs one of the account's other sessions out, by its id (the page never shows a session's token, which
 * is its credential): Better Auth revokes it by the token we look up.
 */
export function revokeSession(visit: Visit, user: SessionUser, sessionId: string): Promise<AccountOutcome> {
  return orServiceDown(visit, 'session revocation', async () => {
    const app = getAppContext(visit.context)
    const limited = await limit(app, [])
    if (limited) return limited
    const [row] = await app.db
      .select({ token: session.token })
      .from(session)
      .where(and(eq(session.id, sessionId), eq(session.userId, user.id)))
      .limit(1)
    // Already gone (signed out meanwhile) or never this account's: nothing to do, and nothing to tell.
    if (row && sessionId !== user.sessionId)
      await app.auth.api.revokeSession({
        body: { token: row.token },
        headers: authHeaders(visit.request, app),
      })
    return { ok: true, notice: accountMessages.sessionRevoked }
  })
}

export function revokeOtherSessions(visit: Visit): Promise<AccountOutcome> {
  return orServiceDown(visit, 'sign out everywhere else', async () => {
    const app = getAppContext(visit.context)
    const limited = await limit(app, [])
    if (limited) return limited
    await app.auth.api.revokeOtherSessions({ headers: authHeaders(visit.request, app) })
    return { ok: true, notice: accountMessages.otherSessionsRevoked }
  })
}
