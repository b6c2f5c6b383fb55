/**
 * The store's process: configuration, data-folder lock, database (migrated and seeded), HTTP, and a graceful
 * stop. Vite bundles this file with React Router's server build into build/server/index.js (vite.config.ts);
 * `npm start` runs it through scripts/start.mjs, `npm run dev` through server/dev.ts.
 */
import type { Server } from 'node:http'
import net from 'node:net'
import path from 'node:path'
import type { ServerBuild } from 'react-router'
import type { ViteDevServer } from 'vite'
import { deleteAbandonedCarts } from '#app/features/cart/cart.server.ts'
import { getVisitorCartBookIds } from '#app/features/cart/visitor-cart.server.ts'
import { createAnalyticsSink } from '#app/features/analytics/record.server.ts'
import { applyAnalyticsRetention } from '#app/features/analytics/retention.server.ts'
import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { applyAdminEmails } from '#app/features/admin/roles.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { deleteIdleGuests } from '#app/features/identity/account.server.ts'
import { deleteStaleVerifications } from '#app/features/identity/email-verification.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { readTheme } from '#app/features/theme/theme.server.ts'
import { resolveAuthSecret } from '#app/server/auth-secret.server.ts'
import { lockDataDir, type DataDirLock } from '#app/server/data-dir-lock.server.ts'
import { openConfiguredDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'
import { startEmbeddedVacuum } from '#app/server/db/embedded-vacuum.server.ts'
import { parseEnv, type Env } from '#app/server/env.server.ts'
import { deleteExpiredRateLimits } from '#app/server/rate-limit.server.ts'
import { createLogger, type Logger } from '#app/server/logger.server.ts'
import { createMailer } from '#app/server/mail.server.ts'
import { startOutboxWorker } from '#app/server/outbox.server.ts'
import { createLocalStorage } from '#app/server/storage.server.ts'
import { createHttpApp } from './http.ts'
import { PageCache } from './page-cache.ts'

/** In-flight requests get this long after SIGTERM; the whole stop stays under 10 s. */
const DRAIN_MS = 7_000
const IDLE_GRACE_MS = 1_000
/** How stale a page shared by stateless visitors may be (the catalogue changes rarely). */
const PAGE_CACHE_TTL_MS = 10_000
const HARD_EXIT_MS = 9_500

export type RunningStore = { server: Server; env: Env; stop(reason: string): Promise<void> }

export async function start(options: { vite?: ViteDevServer } = {}): Promise<RunningStore> {
  let env: Env
  try {
    env = parseEnv()
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
  const logger = createLogger(env.LOG_LEVEL)

  const storage = createLocalStorage(path.join(env.DATA_DIR, 'files'))
  let lock: DataDirLock | undefined
  let database: DatabaseHandle
  let authSecret: string
  try {
    if (!env.DATABASE_URL) lock = lockDataDir(env.DATA_DIR)
    authSecret = resolveAuthSecret(env.BETTER_AUTH_SECRET, env.DATA_DIR)
    database = await openConfiguredDatabase(env)
    await database.migrate()
    await seedCatalog(database.db)
    // Every book's PDF, EPUB and sample, rendered from content/books when new or changed (under a second).
    await publishBookFiles(database.db, storage, logger)
    const notRegistered = await applyAdminEmails(database.db, env.ADMIN_EMAILS, commandLineActor)
    if (notRegistered.length > 0)
      logger.warn({ emails: notRegistered }, 'ADMIN_EMAILS: no account yet; restart after they register')
  } catch (error) {
    logger.fatal({ err: error }, 'the store could not start')
    console.error(`\nThe store could not start: ${error instanceof Error ? error.message : String(error)}`)
    lock?.release()
    process.exit(1)
  }

  // Mail (receipts) leaves through the outbox table after the purchase commits; this process sends what is due.
  const mailer = createMailer({
    smtpUrl: env.SMTP_URL,
    from: env.MAIL_FROM,
    outboxDir: path.join(env.DATA_DIR, 'outbox'),
    logger,
  })
  const outbox = startOutboxWorker({ db: database.db, mailer, logger })
  // Store events are queued by requests and written about every second (docs/decisions/015).
  const analytics = createAnalyticsSink({ db: database.db, logger, site: env.publicUrl.host })

  let stopping = false
  const build = options.vite
    ? () => options.vite!.ssrLoadModule('virtual:react-router/server-build') as Promise<ServerBuild>
    : ((await import('virtual:react-router/server-build')) as ServerBuild)
  const app = createHttpApp({
    env,
    database,
    authSecret,
    logger,
    build,
    vite: options.vite,
    // Not while developing: every request should show the code as it is now.
    pageCache: options.vite
      ? undefined
      : new PageCache({
          ttlMs: PAGE_CACHE_TTL_MS,
          maxEntries: 1_000,
          maxBytes: 64 * 1024 * 1024,
          // Exactly what the root loader reads of a visitor: the theme and the books in the cart.
          visitorKey: async (cookieHeader) => {
            const request = new Request('http://store/', {
              headers: cookieHeader ? { Cookie: cookieHeader } : {},
            })
            // Visitors with a session never get here: their cookie is not one the cache knows.
            const cart = await getVisitorCartBookIds(request, { db: database.db, env, authSecret }, undefined)
            return `${readTheme(request)}\n${[...cart].sort().join(',')}`
          },
        }),
    kickOutbox: outbox.kick,
    storage,
    analytics,
    isStopping: () => stopping,
  })

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(env.PORT, env.HOST, () => resolve(listening))
    listening.once('error', reject)
  }).catch(async (error: unknown) => {
    logger.fatal({ err: error }, 'could not listen')
    console.error(`\nThe store could not listen on ${env.HOST}:${env.PORT}: ${String(error)}`)
    await outbox.stop()
    await analytics.stop()
    await database.close()
    lock?.release()
    process.exit(1)
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : env.PORT
  logger.info(
    { port, database: database.kind, dataDir: env.DATA_DIR },
    `CodeBook is listening on http://localhost:${port}`,
  )

  // Housekeeping, at start and hourly: abandoned anonymous carts (30 idle days), guests long gone,
  // rate-limit counters whose window has ended, and account links expired a week ago.
  const sweep = async () => {
    const sweeps = [
      ['abandoned carts', () => deleteAbandonedCarts(database.db)],
      ['idle guests', () => deleteIdleGuests(database.db)],
      ['expired rate limits', () => deleteExpiredRateLimits(database.db)],
      ['expired account links', () => deleteStaleVerifications(database.db)],
      [
        'analytics events past retention',
        async () =>
          (await applyAnalyticsRetention(database.db, { retentionDays: env.ANALYTICS_RETENTION_DAYS }))
            .deletedEvents,
      ],
    ] as const
    for (const [what, run] of sweeps) {
      await run().then(
        (deleted) => deleted && logger.info({ deleted }, `deleted ${what}`),
        (error: unknown) => logger.warn({ err: error }, `could not delete ${what}`),
      )
    }
  }
  void sweep()
  const sweeper = setInterval(sweep, 60 * 60 * 1000).unref()
  // The embedded database has no autovacuum of its own; PostgreSQL's server runs it.
  const vacuum = database.kind === 'pglite' ? startEmbeddedVacuum({ db: database.db, logger }) : undefined

  const stop = async (reason: string) => {
    if (stopping) return
    stopping = true
    clearInterval(sweeper)
    logger.info({ reason }, 'stopping: draining in-flight requests')
    setTimeout(() => {
      logger.error('stop took too long; exiting')
      process.exit(1)
    }, HARD_EXIT_MS).unref()
    await drain(server, logger)
    await analytics.stop()
    await outbox.stop()
    await vacuum?.stop()
    await options.vite?.close()
    await database.close()
    lock?.release()
    logger.info('stopped')
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void stop(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'error while stopping')
          process.exit(1)
        },
      )
    })
  }
  return { server, env, stop }
}

/**
 * Stops accepting, lets requests in flight finish, then cuts whatever is still open. Two traps of Node's
 * own `server.close()`: it drops at once every connection whose request is not parsed yet, and it resets
 * the connections still waiting in the kernel's accept queue, although those clients have sent their
 * requests (Node accepts about one connection per event-loop turn while busy). So: keep accepting until a
 * whole turn passes with nothing queued, then close only the listening socket; responses from then on carry
 * `Connection: close` (server/http.ts), and connections still idle after a grace second are closed.
 */
function drain(server: Server, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const idle = setTimeout(() => server.closeIdleConnections(), IDLE_GRACE_MS)
    const cut = setTimeout(() => {
      logger.warn('requests still open after the drain period; closing their connections')
      server.closeAllConnections()
    }, DRAIN_MS)
    let accepted = 0
    const countAccepted = () => accepted++
    server.on('connection', countAccepted)
    // An immediate scheduled from an immediate runs after the next poll phase, where accepts happen.
    const closeWhenQueueEmpty = (seen: number) =>
      setImmediate(() => {
        if (accepted !== seen) return closeWhenQueueEmpty(accepted)
        server.off('connection', countAccepted)
        net.Server.prototype.close.call(server, () => {
          clearTimeout(idle)
          clearTimeout(cut)
          resolve()
        })
      })
    setImmediate(() => closeWhenQueueEmpty(accepted))
  })
}
