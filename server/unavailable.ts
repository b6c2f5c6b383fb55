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
  let pending: Promise<boolean> | undefined
  let downAt = -Infinity
  return () => {
    if (performance.now() - downAt < REMEMBER_DOWN_MS) return Promise.resolve(true)
    pending ??= withTimeout(database.ping(), PING_TIMEOUT_MS)
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
const message =
  'We cannot reach our database just now. Nothing you saved is lost; please try again in a minute.'

/** The 503 answer: the host's own page (server/error-page.ts), or JSON. */
export function sendUnavailable(req: ExpressRequest, res: ExpressResponse, asPage: boolean) {
  res.set({ 'Retry-After': String(RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' })
  sendErrorPage(res, {
    status: 503,
    title,
    message,
    asPage,
    link: { href: req.originalUrl, text: 'Try again' },
  })
}
