import path from 'node:path'
import { createAnalyticsSink } from '#app/features/analytics/record.server.ts'
import { moveUserCart } from '#app/features/cart/cart.server.ts'
import { moveUserWishlist } from '#app/features/wishlist/wishlist.server.ts'
import { createAccountMailHooks } from '#app/features/identity/account-mail.server.ts'
import { createPaymentProvider } from '#app/features/orders/payment-provider.server.ts'
import type { PaymentProvider } from '#app/features/orders/payments.server.ts'
import { cachedVatChecker, createViesChecker, type VatNumberChecker } from '#app/features/tax/vies.server.ts'
import { createAuth, signInProvidersOf } from '#app/server/auth.server.ts'
import type { AnalyticsSink } from '#app/server/analytics-sink.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import type { Env } from '#app/server/env.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { RenderMemo } from '#app/server/render-memo.server.ts'
import { createSessionCache, forgetSessionsOf } from '#app/server/session-cache.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import { storageFromEnv } from '#app/server/storage-url.ts'
import { createWorkQueue } from '#app/server/work-queue.server.ts'

declare module '#app/server/context.server.ts' {
  interface AppContext {
    /** How the store is paid: Stripe when configured, otherwise the test provider. One per process. */
    payments: PaymentProvider
    /** Business buyers' VAT numbers, checked with VIES (answers kept a day). One per process. */
    vatChecker: VatNumberChecker
  }
}

export type StoreServices = Omit<AppContext, 'clientIp'>

/**
 * Where the infrastructure meets the features, once per process: every request's AppContext is these plus
 * the client's address. Better Auth is told to move a guest's cart and wishlist to the account before it deletes the
 * guest (the cart feature owns carts; the auth layer knows nothing of them).
 */
export function createStoreServices(options: {
  db: Db
  env: Env
  authSecret: string
  logger: Logger
  /** The process's outbox worker (server/app.ts); tests deliver mail themselves. */
  kickOutbox?: () => void
  /** Where book files live; default the local folder DATA_DIR/files. */
  storage?: FileStorage
  /** The process's analytics sink (server/app.ts stops it); tests get their own. */
  analytics?: AnalyticsSink
  /** The payment provider; default the one the environment configures (tests hand in their own). */
  payments?: PaymentProvider
  /** The VAT number checker; default VIES at VIES_URL. */
  vatChecker?: VatNumberChecker
}): StoreServices {
  const { db, env, authSecret, logger } = options
  const kickOutbox = options.kickOutbox ?? (() => {})
  const sessions = createSessionCache<unknown>(db, { ttlMs: env.SESSION_CACHE_SECONDS * 1000 })
  const auth = createAuth({
    db,
    secret: authSecret,
    baseURL: env.publicUrl.origin,
    onGuestLinked: async (guestUserId, userId) => {
      await moveUserCart(db, guestUserId, userId)
      await moveUserWishlist(db, guestUserId, userId)
    },
    logger,
    mail: createAccountMailHooks({ db, publicUrl: env.publicUrl, kickOutbox }),
    providers: signInProvidersOf(env),
    onUserChanged: (userId) => forgetSessionsOf(db, userId),
  })
  return {
    db,
    env,
    authSecret,
    auth,
    sessions,
    logger,
    kickOutbox,
    storage:
      options.storage ?? storageFromEnv(env, () => createLocalStorage(path.join(env.DATA_DIR, 'files'))),
    analytics: options.analytics ?? createAnalyticsSink({ db, logger, site: env.publicUrl.host }),
    payments: options.payments ?? createPaymentProvider(env),
    vatChecker: options.vatChecker ?? cachedVatChecker(createViesChecker({ baseUrl: env.VIES_URL })),
    renderMemo: new RenderMemo({ maxEntries: env.RENDER_MEMO_ENTRIES }),
    imageWork: createWorkQueue({ concurrency: 1, maxWaiting: 2 }),
  }
}
