import { APIError } from 'better-auth/api'
import { and, eq, gt, lt, ne } from 'drizzle-orm'
import crypto from 'node:crypto'
import { getAppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { user as userTable, verification } from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { emailChangedMessage } from './account-emails.ts'
import { accountMessages } from './account-forms.ts'
import { emailLinkIdentifier, readVerificationClaims } from './account-mail.server.ts'
import { limit, orServiceDown, type AccountOutcome, type Visit } from './account-outcome.server.ts'
import { authHeaders } from './account.server.ts'
import type { SessionUser } from './session.server.ts'
import { forgetSessionsOf } from '#app/server/session-cache.server.ts'

const HOUR = 60 * 60 * 1000

/** Confirmation links asked for by one account: a mail box is not to be flooded from our address. */
export const VERIFICATION_MAILS_PER_ACCOUNT = { name: 'verification-mails', limit: 3, windowMs: HOUR }

/** What a mailed confirmation link is worth: still good, past its 24 hours, or used (or never ours). */
export type EmailLinkState = 'valid' | 'expired' | 'used'

export async function checkEmailLink(db: Db, token: string): Promise<EmailLinkState> {
  const [row] = await db
    .select({ expiresAt: verification.expiresAt })
    .from(verification)
    .where(eq(verification.identifier, emailLinkIdentifier(token)))
    .limit(1)
  if (!row) return 'used'
  return row.expiresAt > new Date() ? 'valid' : 'expired'
}

export type VerifyOutcome =
  | { outcome: 'verified'; email: string; changedFrom?: string }
  | { outcome: 'expired' | 'used' | 'invalid' }
  /** The new address of an email change was registered by another account after the change was asked for. */
  | { outcome: 'taken'; email: string }

/**
 * Follows a confirmation link: its row is deleted in the same statement that finds it (a second use, even a
 * concurrent one, finds nothing), then Better Auth checks the token inside and marks the email verified, or
 * switches the account to the new address it was sent to, whose old address is told. A new address that
 * another account has taken meanwhile leaves the account as it was (issue 28): the link is used up, and the
 * owner picks another address.
 */
export async function verifyEmailLink(visit: Visit, token: string): Promise<VerifyOutcome> {
  const app = getAppContext(visit.context)
  const identifier = emailLinkIdentifier(token)
  const [row] = await app.db
    .delete(verification)
    .where(and(eq(verification.identifier, identifier), gt(verification.expiresAt, new Date())))
    .returning({ jwt: verification.value })
  if (!row) return { outcome: (await checkEmailLink(app.db, token)) === 'expired' ? 'expired' : 'used' }
  const claims = readVerificationClaims(row.jwt)
  if (!claims) return { outcome: 'invalid' }
  const { updateTo } = claims
  if (updateTo && (await emailOfAnotherAccount(app.db, updateTo, claims.userId)))
    return { outcome: 'taken', email: updateTo }
  try {
    // No session cookie: the link alone proves the address, whoever is signed in in this browser.
    await app.auth.api.verifyEmail({ query: { token: row.jwt } })
  } catch (error) {
    // Registered between our look and Better Auth's write: the unique index on the email refused it.
    if (updateTo && isUniqueViolation(error, 'user_email_unique'))
      return { outcome: 'taken', email: updateTo }
    if (!(error instanceof APIError)) throw error
    app.logger.info({ code: error.body?.code }, 'email confirmation link refused')
    return { outcome: error.body?.code === 'TOKEN_EXPIRED' ? 'expired' : 'invalid' }
  }
  if (!claims.updateTo) return { outcome: 'verified', email: claims.email }
  // Following the link proves the new address too (Better Auth keeps the old address's flag).
  const changed = await app.db
    .update(userTable)
    .set({ emailVerified: true })
    .where(eq(userTable.email, claims.updateTo))
    .returning({ id: userTable.id })
  for (const { id } of changed) forgetSessionsOf(app.db, id)
  const { storeName } = await readStoreSettings(app.db)
  await enqueueEmail(app.db, {
    kind: 'email-changed',
    subjectKey: crypto.randomUUID(),
    to: claims.email,
    ...emailChangedMessage(claims.updateTo, storeName),
  })
  app.kickOutbox()
  return { outcome: 'verified', email: claims.updateTo, changedFrom: claims.email }
}

/** Whether an account other than `userId` has this email (addresses are stored lower-cased). */
async function emailOfAnotherAccount(db: Db, email: string, userId: string | undefined): Promise<boolean> {
  const [other] = await db
    .select({ id: userTable.id })
    .from(userTable)
    .where(and(eq(userTable.email, email.toLowerCase()), userId ? ne(userTable.id, userId) : undefined))
    .limit(1)
  return other !== undefined
}

/** PostgreSQL's unique_violation on the named constraint, wherever in the error's causes the driver put it. */
function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    const found = cause as { code?: string; constraint?: string; message?: string }
    if (found.code === '23505') return (found.constraint ?? found.message ?? '').includes(constraint)
  }
  return false
}

/** A new confirmation link for the signed-in account's email, a few an hour. */
export function resendVerificationEmail(visit: Visit, user: SessionUser): Promise<AccountOutcome> {
  return orServiceDown(visit, 'verification mail', async () => {
    if (user.emailVerified) return { ok: true, notice: accountMessages.alreadyVerified }
    const app = getAppContext(visit.context)
    const limited = await limit(app, [[VERIFICATION_MAILS_PER_ACCOUNT, user.id]])
    if (limited) return limited
    await app.auth.api.sendVerificationEmail({
      body: { email: user.email },
      headers: authHeaders(visit.request, app),
    })
    return { ok: true, notice: accountMessages.verificationSent(user.email) }
  })
}

/** Expired links are kept this long, so that following one says 'expired' rather than 'unknown'. */
export const EXPIRED_LINK_GRACE_DAYS = 7

/**
 * Deletes Better Auth's verification rows (our confirmation links, its reset tokens) that expired more than
 * EXPIRED_LINK_GRACE_DAYS ago: a link nobody followed would otherwise stay for ever. Returns how many went.
 */
export async function deleteStaleVerifications(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - EXPIRED_LINK_GRACE_DAYS * 24 * HOUR)
  const deleted = await db
    .delete(verification)
    .where(lt(verification.expiresAt, cutoff))
    .returning({ id: verification.id })
  return deleted.length
}
