import { APIError } from 'better-auth/api'
import { eq } from 'drizzle-orm'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { getAppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { verification } from '#app/server/db/schema/index.server.ts'
import { ipSubject } from '#app/server/rate-limit.server.ts'
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
 * How long a reset request takes at least. Better Auth does a little more work for a known address (a
 * token row, our outbox row) than for an unknown one (one lookup); both finish well within this floor, so
 * the answer comes at the same time either way (`npm run bench:reset` measures it).
 */
export const RESET_REQUEST_FLOOR_MS = 250

/**
 * 'Forgot password?': the same words, status and time whether or not the address has an account; a known
 * one is mailed a link (Better Auth's single-use token, valid 1 hour).
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
    if (!limited) await app.auth.api.requestPasswordReset({ body: { email } })
    const left = RESET_REQUEST_FLOOR_MS - (performance.now() - started)
    if (left > 0) await sleep(left)
    return limited ?? { ok: true, notice: accountMessages.resetRequested(email) }
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
