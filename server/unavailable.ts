import type { Request as ExpressRequest, Response as ExpressResponse } from 'express'
import type { DatabaseHandle } from '#app/server/db/database.server.ts'
import { sendErrorPage } from './error-page.ts'
import { withTimeout } from './with-timeout.ts'

/**
 * When the database cannot be reached (PostgreSQL restarting, a failover, the network), every request that
 * needed it answers 503 with Retry-After, a page that says to try again (JSON for a resource route), instead
 * of the 500 of an unexpected error: a load balancer retries elsewhere, a visitor knows it will pass. A 500
 * whose database answers stays a 500 (docs/decisions/022).
 */
export const RETRY_AFTER_SECONDS = 10
const PING_TIMEOUT_MS = 1_000
/**
 * Requests failing together share one ping, and an outage found is remembered this long, so an outage does
 * not multiply connection attempts; a database found up is asked again next time.
 */
const REMEMBER_DOWN_MS = 500

export function databaseDownProbe(database: Pick<DatabaseHandle, 'ping'>): () => Promise<boolean> {
  return downProbe(() => database.ping())
}

/**
 * What cannot be reached when a request failed: the database, else the file store (an object store, issue
 * 32; a folder is never down), else nothing — a real 500.
 */
export type Outage = 'database' | 'storage' | null

export function outageProbe(
  database: Pick<DatabaseHandle, 'ping'>,
  storage: { ping?(): Promise<void> },
): () => Promise<Outage> {
  const isDatabaseDown = databaseDownProbe(database)
  const ping = storage.ping?.bind(storage)
  const isStorageDown = ping ? downProbe(ping) : () => Promise.resolve(false)
  return async () => ((await isDatabaseDown()) ? 'database' : (await isStorageDown()) ? 'storage' : null)
}

function downProbe(ping: () => Promise<unknown>): () => Promise<boolean> {
  let pending: Promise<boolean> | undefined
  let downAt = -Infinity
  return () => {
    if (performance.now() - downAt < REMEMBER_DOWN_MS) return Promise.resolve(true)
    pending ??= withTimeout(ping(), PING_TIMEOUT_MS)
      .then(
        () => false,
        () => {
          downAt = performance.now()
          return true
        },
      )
      .finally(() => (pending = undefined))
    return pending
  }
}

const title = 'CodeBook is temporarily unavailable'
const messages = {
  database: 'We cannot reach our database just now. Nothing you saved is lost; please try again in a minute.',
  storage:
    'We cannot reach our file store just now, so this file cannot be sent or saved. Nothing you saved is lost; please try again in a minute.',
} as const

/** The 503 answer: the host's own page (server/error-page.ts), or JSON. */
export function sendUnavailable(
  req: ExpressRequest,
  res: ExpressResponse,
  asPage: boolean,
  what: Exclude<Outage, null> = 'database',
) {
  res.set({ 'Retry-After': String(RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' })
  sendErrorPage(res, {
    status: 503,
    title,
    message: messages[what],
    asPage,
    link: { href: req.originalUrl, text: 'Try again' },
  })
}
