import crypto from 'node:crypto'
import { z } from 'zod'
import { EMAIL_VERIFICATION_SECONDS, type AccountMailHooks } from '#app/server/auth.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { verification } from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import {
  confirmNewEmailMessage,
  passwordChangedMessage,
  verifyEmailMessage,
  type AccountEmail,
} from './account-emails.ts'

/** Where our own email-link rows live in Better Auth's verification table (the token is stored hashed). */
export function emailLinkIdentifier(token: string): string {
  return `email-link:${crypto.createHash('sha256').update(token).digest('base64url')}`
}

/** What Better Auth's email verification token (a signed JWT) says; read, not trusted (it verifies it). */
const VerificationClaims = z.object({
  email: z.string(),
  updateTo: z.string().optional(),
  /** The account the token was made for (Better Auth binds an email change's token to it). */
  userId: z.string().optional(),
})

export function readVerificationClaims(jwt: string): z.infer<typeof VerificationClaims> | undefined {
  const payload = jwt.split('.')[1]
  if (!payload) return undefined
  try {
    return VerificationClaims.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')))
  } catch {
    return undefined
  }
}

/**
 * Better Auth's mail callbacks, as outbox mails. Its email verification token is a stateless JWT that could
 * be replayed until it expires; the mailed link carries instead an opaque token of ours, whose row (holding
 * the JWT) is deleted when the link is used: single use, and an expiry the database can show.
 */
export function createAccountMailHooks(options: {
  db: Db
  publicUrl: URL
  kickOutbox: () => void
}): AccountMailHooks {
  const { db, publicUrl } = options
  const url = (path: string) => new URL(path, publicUrl).href
  const queue = async (kind: string, subjectKey: string, to: string, email: AccountEmail) => {
    await enqueueEmail(db, { kind, subjectKey, to, ...email })
    options.kickOutbox()
  }
  return {
    async verificationEmail({ user, token: jwt }) {
      const token = crypto.randomBytes(32).toString('base64url')
      const id = crypto.randomUUID()
      await db.insert(verification).values({
        id,
        identifier: emailLinkIdentifier(token),
        value: jwt,
        expiresAt: new Date(Date.now() + EMAIL_VERIFICATION_SECONDS * 1000),
      })
      const link = url(`/account/verify-email?${new URLSearchParams({ token })}`)
      const claims = readVerificationClaims(jwt)
      const { storeName } = await readStoreSettings(db)
      if (claims?.updateTo)
        await queue('confirm-new-email', id, user.email, confirmNewEmailMessage(link, user.email, storeName))
      else await queue('verify-email', id, user.email, verifyEmailMessage(link, storeName))
    },
    async passwordReset({ user }) {
      await queuePasswordChanged(db, user.email, publicUrl)
      options.kickOutbox()
    },
  }
}

export async function queuePasswordChanged(db: Db, to: string, publicUrl: URL): Promise<void> {
  const { storeName } = await readStoreSettings(db)
  const email = passwordChangedMessage(new URL('/forgot-password', publicUrl).href, storeName)
  await enqueueEmail(db, { kind: 'password-changed', subjectKey: crypto.randomUUID(), to, ...email })
}
