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
import { resolveAuthSecret } from '#app/server/auth-secret.server.ts'
import { lockDataDir, type DataDirLock } from '#app/server/data-dir-lock.server.ts'
import { openConfiguredDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'
import { startEmbeddedVacuum } from '#app/server/db/embedded-vacuum.server.ts'
import { parseEnv, type Env } from '#app/server/env.server.ts'
import { createLogger, type Logger } from '#app/server/logger.server.ts'
import { createMailer } from '#app/server/mail.server.ts'
import { startOutboxWorker } from '#app/server/outbox.server.ts'
import { createLocalStorage } from '#app/server/storage.server.ts'
import { storageFromEnv } from '#app/server/storage-url.ts'
import { createStoreServices } from '#app/services.server.ts'
import { prepareStore, storeSweeps } from '#app/startup.server.ts'
import { createHttpServer } from './http.ts'

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

  // The folder DATA_DIR/files, or the bucket STORAGE_URL names (issue 32).
  const storage = storageFromEnv(env, () => createLocalStorage(path.join(env.DATA_DIR, 'files')))
  let lock: DataDirLock | undefined
  let database: DatabaseHandle
  let authSecret: string
  try {
    if (!env.DATABASE_URL) lock = lockDataDir(env.DATA_DIR)
    authSecret = resolveAuthSecret(env.BETTER_AUTH_SECRET, env.DATA_DIR)
    database = await openConfiguredDatabase(env)
    await database.migrate()
    await prepareStore({ db: database.db, env, storage, logger })
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
  // What every request's context holds; among them the analytics sink, whose events are written about every
  // second (docs/decisions/015) and which this process stops last.
  const services = createStoreServices({
    db: database.db,
    env,
    authSecret,
    logger,
    kickOutbox: outbox.kick,
    storage,
  })

  let stopping = false
  const build = options.vite
    ? () => options.vite!.ssrLoadModule('virtual:react-router/server-build') as Promise<ServerBuild>
    : ((await import('virtual:react-router/server-build')) as ServerBuild)
  const httpServer = createHttpServer({
    database,
    services,
    build,
    vite: options.vite,
    // Not while developing: every request should show the code as it is now.
    pageCache: options.vite
      ? undefined
      : { ttlMs: PAGE_CACHE_TTL_MS, maxEntries: 1_000, maxBytes: 64 * 1024 * 1024 },
    isStopping: () => stopping,
  })

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = httpServer.listen(env.PORT, env.HOST, () => resolve(listening))
    listening.once('error', reject)
  }).catch(async (error: unknown) => {
    logger.fatal({ err: error }, 'could not listen')
    console.error(`\nThe store could not listen on ${env.HOST}:${env.PORT}: ${String(error)}`)
    await outbox.stop()
    await services.analytics.stop()
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

  // Housekeeping, at start and hourly (app/startup.server.ts).
  const sweeps = storeSweeps({ db: database.db, env, storage, logger })
  const sweep = async () => {
    for (const { what, run, did = 'deleted' } of sweeps) {
      await run().then(
        (count) => count && logger.info({ [did]: count }, `${did} ${what}`),
        (error: unknown) =>
          logger.warn({ err: error }, `could not ${did === 'deleted' ? 'delete' : 'queue'} ${what}`),
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
    await services.analytics.stop()
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
