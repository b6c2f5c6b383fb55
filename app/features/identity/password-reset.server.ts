import { APIError } from 'better-auth/api'
import { and, eq, sql } from 'drizzle-orm'
import crypto from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { PASSWORD_RESET_SECONDS } from '#app/server/auth.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { emailOutbox, user, verification } from '#app/server/db/schema/index.server.ts'
import { ipSubject } from '#app/server/rate-limit.server.ts'
import { readSeller } from '#app/features/settings/store-settings.server.ts'
import { resetPasswordMessage } from './account-emails.ts'
import {
  accountFieldErrors,
  ForgotPasswordSchema,
  ResetPasswordSchema,
  textFields,
} from './account-forms.server.ts'
import { accountMessages } from './account-forms.ts'
import { limit, orServiceDown, type AccountOutcome, type Visit } from './account-outcome.server.ts'

const HOUR = 60 * 60 * 1000

export const RESET_REQUESTS_PER_IP = { name: 'reset-requests', limit: 10, windowMs: HOUR }
/** Counted alike for addresses with and without an account, so a 429 tells nothing either. */
export const RESET_REQUESTS_PER_ADDRESS = { name: 'reset-requests-address', limit: 3, windowMs: HOUR }

/**
 * How long a reset request takes at least. The request does the same work for an address with an account
 * and one without (`queueResetLink`); the floor hides what is left (a row written or not) and the limits'
 * early answer (`npm run bench:reset` measures it, with and without CPU pressure).
 */
export const RESET_REQUEST_FLOOR_MS = 250

/**
 * The outbox worker is woken this long after a reset request, with or without an account: the mail's sending
 * then never overlaps the request's own answer, whose time would show it (issue 28).
 */
export const RESET_MAIL_DELAY_MS = 1_000

/**
 * 'Forgot password?': the same words, status, work and time whether or not the address has an account; a
 * known one is mailed a link (single use, valid 1 hour) by the outbox worker, after the answer.
 */
export function requestPasswordReset(visit: Visit, form: FormData): Promise<AccountOutcome> {
  return orServiceDown(visit, 'password reset request', async () => {
    const parsed = ForgotPasswordSchema.safeParse(textFields(form, ['email']))
    if (!parsed.success) return { ok: false, status: 400, fieldErrors: accountFieldErrors(parsed.error) }
    const { email } = parsed.data
    const app = getAppContext(visit.context)
    const started = performance.now()
    const limited = await limit(app, [
      [RESET_REQUESTS_PER_IP, ipSubject(app.clientIp)],
      [RESET_REQUESTS_PER_ADDRESS, email],
    ])
    if (!limited) {
      await queueResetLink(app.db, email, app.env.publicUrl)
      setTimeout(app.kickOutbox, RESET_MAIL_DELAY_MS).unref()
    }
    const left = RESET_REQUEST_FLOOR_MS - (performance.now() - started)
    if (left > 0) await sleep(left)
    return limited ?? { ok: true, notice: accountMessages.resetRequested(email) }
  })
}

/**
 * A reset link for `email`, if an account (not a guest's made-up address) uses it: Better Auth's token row
 * (`reset-password:<token>`, the user id, 1 hour: its resetPassword consumes it) and the mail in the outbox.
 * Whether or not the address has an account, the token is drawn, the mail built and the same transaction
 * run: each insert takes its row from the account, so it writes one row or none. Better Auth's own
 * requestPasswordReset looked the account up first and did more for a known one, which showed in the time
 * under CPU pressure (issue 28).
 */
export async function queueResetLink(db: Db, email: string, publicUrl: URL): Promise<void> {
  const token = crypto.randomBytes(24).toString('base64url')
  const mail = resetPasswordMessage(
    new URL(`/reset-password?${new URLSearchParams({ token })}`, publicUrl).href,
    // Uncached, so an address with an account and one without run the same statements (issue 28).
    (await readSeller(db)).storeName,
  )
  const now = new Date()
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_SECONDS * 1000)
  const literal = <T>(given: T, column: string) => sql<T>`${given}`.as(column)
  const instant = (date: Date, column: string) => sql<Date>`${date.toISOString()}::timestamptz`.as(column)
  const holder = and(eq(user.email, email), eq(user.isAnonymous, false))
  await db.transaction(async (tx) => {
    await tx.insert(verification).select(
      tx
        .select({
          id: literal(crypto.randomUUID(), 'id'),
          identifier: literal(`reset-password:${token}`, 'identifier'),
          value: user.id,
          expiresAt: instant(expiresAt, 'expires_at'),
          createdAt: instant(now, 'created_at'),
          updatedAt: instant(now, 'updated_at'),
        })
        .from(user)
        .where(holder),
    )
    // As enqueueEmail queues it (due as of the app's clock), for the holder of the address only.
    await tx.insert(emailOutbox).select(
      tx
        .select({
          id: sql<string>`gen_random_uuid()`.as('id'),
          kind: literal('reset-password', 'kind'),
          subjectKey: literal(crypto.randomUUID(), 'subject_key'),
          to: user.email,
          subject: literal(mail.subject, 'subject'),
          text: literal(mail.text, 'text'),
          html: literal(mail.html, 'html'),
          attempts: sql<number>`0`.as('attempts'),
          nextAttemptAt: instant(now, 'next_attempt_at'),
          sentAt: sql<Date | null>`null`.as('sent_at'),
          lastError: sql<string | null>`null`.as('last_error'),
          failedAt: sql<Date | null>`null`.as('failed_at'),
          createdAt: instant(now, 'created_at'),
        })
        .from(user)
        .where(holder),
    )
  })
}

/** Whether a reset link can still be used (Better Auth deletes its row when used; expired rows stay). */
export async function checkResetToken(db: Db, token: string): Promise<boolean> {
  const [row] = await db
    .select({ expiresAt: verification.expiresAt })
    .from(verification)
    .where(eq(verification.identifier, `reset-password:${token}`))
    .limit(1)
  return Boolean(row && row.expiresAt > new Date())
}

/**
 * A new password through a reset link: registration's rules; Better Auth uses up the token, signs every
 * session out and calls our hook, which mails 'your password was changed'.
 */
export function resetPassword(visit: Visit, form: FormData): Promise<AccountOutcome> {
  return orServiceDown(visit, 'password reset', async () => {
    const app = getAppContext(visit.context)
    const limited = await limit(app, [])
    if (limited) return limited
    const parsed = ResetPasswordSchema.safeParse(textFields(form, ['token', 'newPassword']))
    if (!parsed.success) {
      if (z.flattenError(parsed.error).fieldErrors.token)
        return { ok: false, status: 400, formError: accountMessages.resetLinkUnusable }
      return { ok: false, status: 400, fieldErrors: accountFieldErrors(parsed.error) }
    }
    const { token, newPassword } = parsed.data
    try {
      await app.auth.api.resetPassword({ body: { token, newPassword } })
    } catch (error) {
      if (error instanceof APIError && error.body?.code === 'INVALID_TOKEN')
        return { ok: false, status: 400, formError: accountMessages.resetLinkUnusable }
      throw error
    }
    return { ok: true, notice: accountMessages.passwordReset }
  })
}
