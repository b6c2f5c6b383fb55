import { deleteWishlistOf, exportWishlistOf } from '#app/features/wishlist/wishlist.server.ts'
import { listGiftsOfBuyer } from '#app/features/gifts/gifts.server.ts'
import { and, eq } from 'drizzle-orm'
import { deleteCartOf, forgetCarts } from '#app/features/cart/cart.server.ts'
import { invalidateCatalog } from '#app/features/catalog/catalog-cache.server.ts'
import { exportErrataOf, forgetErrataReporter } from '#app/features/errata/errata.server.ts'
import { deleteKindleOf, exportKindleOf } from '#app/features/library/kindle.server.ts'
import { deleteLibraryOf, exportLibraryOf } from '#app/features/library/library.server.ts'
import { exportOrdersOf } from '#app/features/orders/order-history.server.ts'
import { deleteReadingOf, exportReadingOf } from '#app/features/reader/annotations.server.ts'
import { deleteAppPasswordsOf, listAppPasswords } from './app-passwords.server.ts'
import { deleteReaderReviews, exportReviewsOf } from '#app/features/reviews/reviews.server.ts'
import { z } from 'zod'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { account, session, user, verification } from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { verifyPassword } from '#app/server/password.server.ts'
import { hitRateLimit, tooManyAttemptsMessage, type RateLimitRule } from '#app/server/rate-limit.server.ts'
import { authHeaders, type Visit } from './account.server.ts'
import { startProviderSignIn, type ProviderStart } from './providers.server.ts'
import { PASSWORD_MAX_LENGTH } from './credentials.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { accountDeletedEmail } from './account-deleted-email.ts'
import { forgetSessionsOf } from '#app/server/session-cache.server.ts'

const MINUTE = 60 * 1000

/** Password confirmations for deleting one account: a stolen session cannot guess the password for long. */
export const DELETE_CONFIRMATIONS_PER_ACCOUNT: RateLimitRule = {
  name: 'delete-confirm',
  limit: 5,
  windowMs: 15 * MINUTE,
}

/** An account without a password confirms by signing in with its provider again, this recently. */
export const FRESH_SIGN_IN_MS = 10 * MINUTE

/** The email a deleted account keeps, so that its orders still point at a user row (decision 018). */
export function tombstoneEmail(userId: string): string {
  return `deleted-${userId}@invalid`
}

export const DeleteAccountSchema = z.object({
  password: z
    .string({ error: 'Enter your password to confirm.' })
    .min(1, 'Enter your password to confirm.')
    .max(PASSWORD_MAX_LENGTH, 'That password is not right.'),
})

/** How an account confirms its deletion: its password, or a fresh sign-in with one of its providers. */
export type DeletionCheck = {
  hasPassword: boolean
  /** The providers linked to the account ('github', 'oidc'). */
  providers: string[]
  /** The current session began within FRESH_SIGN_IN_MS. */
  signedInRecently: boolean
}

/** How the signed-in visitor may confirm deleting their account (their current session's age included). */
export async function getDeletionCheck(
  app: AppContext,
  { request, userId, now = new Date() }: { request: Request; userId: string; now?: Date },
): Promise<DeletionCheck> {
  return checkDeletion(app.db, userId, await sessionStart(request, app), now)
}

/**
 * A provider-only account confirms by signing in with its provider again: the sign-in starts here and comes back
 * to the deletion page with a fresh session.
 */
export function startDeletionReauth(visit: Visit, form: FormData): Promise<ProviderStart> {
  const reauth = new FormData()
  reauth.set('provider', String(form.get('provider') ?? ''))
  reauth.set('redirectTo', '/account/delete')
  return startProviderSignIn(visit, reauth, { errorPath: '/account/delete' })
}

/** When the visitor's session began, as Better Auth keeps it: a provider-only account confirms by a fresh one. */
async function sessionStart(request: Request, app: AppContext): Promise<Date> {
  const current = await app.auth.api.getSession({
    headers: authHeaders(request, app),
    query: { disableRefresh: true },
  })
  return current ? new Date(current.session.createdAt) : new Date(0)
}

async function checkDeletion(
  db: Db,
  userId: string,
  sessionCreatedAt: Date,
  now: Date,
): Promise<DeletionCheck> {
  const rows = await db
    .select({ providerId: account.providerId, password: account.password })
    .from(account)
    .where(eq(account.userId, userId))
  return {
    hasPassword: rows.some((row) => row.providerId === 'credential' && Boolean(row.password)),
    providers: rows.filter((row) => row.providerId !== 'credential').map((row) => row.providerId),
    signedInRecently: now.getTime() - sessionCreatedAt.getTime() <= FRESH_SIGN_IN_MS,
  }
}

export type DeletionResult =
  | {
      ok: true
      /** Better Auth's Set-Cookie headers clearing the browser's session cookies. */
      headers: Headers
    }
  | {
      ok: false
      status: 400 | 429
      fieldErrors?: { password?: string }
      formError?: string
      retryAfterSeconds?: number
    }

/**
 * Deletes the signed-in account once it is confirmed: by its password (each attempt counted before it is
 * checked, 5 per 15 minutes), or, for an account that signs in only through a provider, by a sign-in with
 * it in the last 10 minutes. Then signs the browser out.
 */
export async function confirmAndDeleteAccount(
  app: AppContext,
  {
    request,
    userId,
    email,
    form,
    now = new Date(),
  }: { request: Request; userId: string; email: string; form: FormData; now?: Date },
): Promise<DeletionResult> {
  const attempts = await hitRateLimit(app.db, DELETE_CONFIRMATIONS_PER_ACCOUNT, userId, now)
  if (!attempts.allowed)
    return {
      ok: false,
      status: 429,
      formError: tooManyAttemptsMessage(attempts.retryAfterSeconds),
      retryAfterSeconds: attempts.retryAfterSeconds,
    }
  const check = await checkDeletion(app.db, userId, await sessionStart(request, app), now)
  if (check.hasPassword) {
    const parsed = DeleteAccountSchema.safeParse({ password: form.get('password') ?? undefined })
    if (!parsed.success)
      return { ok: false, status: 400, fieldErrors: { password: parsed.error.issues[0]!.message } }
    const [credential] = await app.db
      .select({ password: account.password })
      .from(account)
      .where(and(eq(account.userId, userId), eq(account.providerId, 'credential')))
    const right =
      credential?.password &&
      (await verifyPassword({ hash: credential.password, password: parsed.data.password }))
    if (!right) {
      app.logger.info({ ip: app.clientIp, failures: attempts.hits }, 'account deletion: wrong password')
      return { ok: false, status: 400, fieldErrors: { password: 'That password is not right.' } }
    }
  } else if (!check.signedInRecently) {
    return {
      ok: false,
      status: 400,
      formError:
        'To confirm, sign in again with your provider below; then you have 10 minutes to delete the account.',
    }
  }
  await deleteAccount(app, { userId, email })
  app.logger.info({ userId }, 'account deleted')
  return { ok: true, headers: await signOut(request, app) }
}

/** The sessions are gone; Better Auth's answer clears the browser's cookies. */
async function signOut(request: Request, app: AppContext): Promise<Headers> {
  const headers = new Headers()
  try {
    const signedOut = await app.auth.api.signOut({ headers: authHeaders(request, app), returnHeaders: true })
    for (const cookie of signedOut.headers.getSetCookie()) headers.append('Set-Cookie', cookie)
  } catch (error) {
    // The session row is gone, so the cookie is worth nothing; the next page's lookup clears it.
    app.logger.error({ err: error }, 'account deletion: the cookies were not cleared')
  }
  return headers
}

/**
 * One transaction: the confirmation mail is queued to the address the account had, then everything personal
 * goes — sessions, password and provider links, app passwords, the cart, the wishlist, the library (its download counts),
 * their Kindle address and sends (a book still waiting to go is not sent), the reader's reviews (the books' ratings follow by trigger) and their helpful votes and reports (the counts they added
 * taken back), their reading positions, bookmarks and highlights, their name on errata they reported, pending email verifications — and the user row is kept as a tombstone (`deleted-<id>@invalid`, no name) because its
 * orders are kept for accounting and reference it.
 */
export async function deleteAccount(app: AppContext, { userId, email }: { userId: string; email: string }) {
  const { storeName } = await readStoreSettings(app.db)
  const { subject, text, html } = accountDeletedEmail(storeName)
  await app.db.transaction(async (tx) => {
    await enqueueEmail(tx, { kind: 'account-deleted', subjectKey: userId, to: email, subject, text, html })
    await tx.delete(session).where(eq(session.userId, userId))
    await tx.delete(account).where(eq(account.userId, userId))
    await deleteCartOf(tx, userId)
    await deleteWishlistOf(tx, userId)
    await deleteLibraryOf(tx, userId)
    await deleteKindleOf(tx, userId)
    await deleteAppPasswordsOf(tx, userId)
    await deleteReaderReviews(tx, userId)
    await deleteReadingOf(tx, userId)
    await forgetErrataReporter(tx, userId)
    await tx.delete(verification).where(eq(verification.identifier, email))
    await tx
      .update(user)
      .set({
        email: tombstoneEmail(userId),
        name: '',
        image: null,
        emailVerified: false,
        role: 'customer',
        updatedAt: new Date(),
      })
      .where(eq(user.id, userId))
  })
  // Its sessions and cart are gone: neither may be answered from memory any more (decision 021).
  forgetSessionsOf(app.db, userId)
  forgetCarts(app.db)
  // The reader's reviews were in the books' ratings that cards show.
  invalidateCatalog(app.db)
  app.kickOutbox()
}

/** Everything the store keeps about an account, as the JSON download of /account/export.json. */
export async function exportAccountData(db: Db, userId: string, now = new Date()) {
  const [profile] = await db
    .select({
      email: user.email,
      name: user.name,
      emailVerified: user.emailVerified,
      createdAt: user.createdAt,
    })
    .from(user)
    .where(eq(user.id, userId))
  const [orderRows, library, kindle, reviewRows, reading, errataRows, apps] = await Promise.all([
    exportOrdersOf(db, userId),
    exportLibraryOf(db, userId),
    exportKindleOf(db, userId),
    exportReviewsOf(db, userId),
    exportReadingOf(db, userId),
    exportErrataOf(db, userId),
    listAppPasswords(db, userId),
  ])
  const wishlist = await exportWishlistOf(db, userId)
  const giftsGiven = await listGiftsOfBuyer(db, userId)
  const providers = await db
    .select({ providerId: account.providerId, linkedAt: account.createdAt })
    .from(account)
    .where(eq(account.userId, userId))
  return {
    exportedAt: now.toISOString(),
    profile: profile ?? null,
    signInMethods: providers.map((row) => ({
      method: row.providerId === 'credential' ? 'password' : row.providerId,
      since: row.linkedAt,
    })),
    orders: orderRows,
    library,
    kindle,
    reviews: reviewRows,
    reading,
    errata: errataRows,
    wishlist,
    gifts: giftsGiven.map(({ title, recipientEmail, deliverOn, state, createdAt }) => ({
      title,
      recipientEmail,
      deliverOn,
      state,
      createdAt,
    })),
    // Names and dates only: the passwords themselves are kept as hashes and were shown once.
    appPasswords: apps.map(({ name, createdAt, lastUsedAt }) => ({ name, createdAt, lastUsedAt })),
  }
}
