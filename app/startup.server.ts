import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { applyAdminEmails } from '#app/features/admin/roles.server.ts'
import { applyAnalyticsRetention } from '#app/features/analytics/retention.server.ts'
import { deleteAbandonedCarts } from '#app/features/cart/cart.server.ts'
import { deleteAbandonedWishlists } from '#app/features/wishlist/wishlist.server.ts'
import { queuePriceDropMails } from '#app/features/wishlist/wishlist-mail.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { createFileSweep } from '#app/features/files/sweep-files.server.ts'
import { deleteIdleGuests } from '#app/features/identity/account.server.ts'
import { deleteStaleVerifications } from '#app/features/identity/email-verification.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import type { Env } from '#app/server/env.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { deleteExpiredRateLimits } from '#app/server/rate-limit.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'

/**
 * What the store's process does besides answering requests, for the HTTP host (server/app.ts), which knows no
 * domain: the store made ready once the database is migrated, and the housekeeping it runs hourly.
 */

/**
 * Before the first request: the seed catalogue, every book's PDF, EPUB and sample (rendered from
 * content/books when new or changed, under a second) and the ADMIN_EMAILS' roles. A failure stops the start.
 */
export async function prepareStore(options: {
  db: Db
  env: Pick<Env, 'ADMIN_EMAILS'>
  storage: FileStorage
  logger: Logger
}): Promise<void> {
  const { db, env, storage, logger } = options
  await seedCatalog(db)
  await publishBookFiles(db, storage, logger)
  await applyConfiguredAdmins({ db, env, logger })
}

/**
 * ADMIN_EMAILS at start-up: the listed accounts made admins; the log names those that could not be, an
 * unconfirmed address loudest (someone else may have registered it first).
 */
export async function applyConfiguredAdmins(options: {
  db: Db
  env: Pick<Env, 'ADMIN_EMAILS'>
  logger: Logger
}): Promise<void> {
  const { db, env, logger } = options
  const { notRegistered, unconfirmed } = await applyAdminEmails(db, env.ADMIN_EMAILS, commandLineActor)
  if (notRegistered.length > 0)
    logger.warn({ emails: notRegistered }, 'ADMIN_EMAILS: no account yet; restart after they register')
  if (unconfirmed.length > 0)
    logger.warn(
      { emails: unconfirmed },
      'ADMIN_EMAILS: not made admins, their email is not confirmed (anyone can register an address); restart after they follow the link mailed to it',
    )
}

/** A housekeeping task: deletes what has outlived its use and says how many rows went. */
export type Sweep = {
  what: string
  run: () => Promise<number>
  /** What `run` did to its rows, for the log: deleted by default; 'queued' for the wishlist's mails. */
  did?: 'deleted' | 'queued'
}

/**
 * The housekeeping the host runs at start and hourly: abandoned anonymous carts (30 idle days) and
 * wishlists (90), guests long
 * gone, rate-limit counters whose window has ended, account links expired a week ago, analytics events
 * past ANALYTICS_RETENTION_DAYS, and old files (earlier editions', replaced uploads', stamped copies nobody is
 * served or that lay unused for 30 days: at most 500 in 30 s a run, one instance at a time; features/files).
 * Made once per process: the file sweep remembers where a run stopped.
 */
export function storeSweeps(options: {
  db: Db
  env: Pick<Env, 'ANALYTICS_RETENTION_DAYS' | 'publicUrl'>
  storage: FileStorage
  logger: Logger
}): Sweep[] {
  const { db, env, storage, logger } = options
  const fileSweep = createFileSweep({ db, storage, logger })
  return [
    { what: 'abandoned carts', run: () => deleteAbandonedCarts(db) },
    { what: 'abandoned wishlists', run: () => deleteAbandonedWishlists(db) },
    // Not a deletion: the wishlist mails a price drop did not send at once (that wishlist had its mail of the day).
    {
      what: 'wishlist price-drop mails',
      run: () => queuePriceDropMails(db, { publicUrl: env.publicUrl }),
      did: 'queued',
    },
    { what: 'idle guests', run: () => deleteIdleGuests(db) },
    { what: 'expired rate limits', run: () => deleteExpiredRateLimits(db) },
    { what: 'expired account links', run: () => deleteStaleVerifications(db) },
    {
      what: 'analytics events past retention',
      run: async () =>
        (await applyAnalyticsRetention(db, { retentionDays: env.ANALYTICS_RETENTION_DAYS })).deletedEvents,
    },
    { what: 'old files', run: async () => (await fileSweep.run()).deleted.length },
  ]
}

/** What a backup copies and checks it holds: every file a row names (features/files). */
export { listFilesInUse } from '#app/features/files/files-in-use.server.ts'
