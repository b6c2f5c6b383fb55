import crypto from 'node:crypto'
import { and, isNull, sql } from 'drizzle-orm'
import type { ServerResponse } from 'node:http'
import type { Request as ExpressRequest, RequestHandler } from 'express'
import client from 'prom-client'
import type { ServerBuild } from 'react-router'
import type { DatabaseHandle } from '#app/server/db/database.server.ts'
import { emailOutbox } from '#app/server/db/schema/index.server.ts'
import { maxEmailAttempts } from '#app/server/outbox.server.ts'
import { routeMatcher } from './route-template.ts'
import { withTimeout } from './with-timeout.ts'

const QUERY_TIMEOUT_MS = 1_000

/**
 * Prometheus metrics (prom-client) for one store instance: requests by route template and status, their
 * latency as a histogram, the PostgreSQL pool, the mail outbox and Node's own process metrics. Route labels
 * are templates ('/books/:slug'), never the path a visitor sent, so the series stay few.
 */
export function createMetrics(options: {
  build: ServerBuild | (() => Promise<ServerBuild>)
  database: DatabaseHandle
}) {
  const registry = new client.Registry()
  client.collectDefaultMetrics({ register: registry })
  const requests = new client.Counter({
    name: 'codebook_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const duration = new client.Histogram({
    name: 'codebook_http_request_duration_seconds',
    help: 'Time from a request’s arrival to the end of its response, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  const { database } = options
  new client.Gauge({
    name: 'codebook_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting clients, max); none on PGlite.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = database.poolStats?.()
      if (!stats) return
      for (const [state, value] of Object.entries(stats)) this.set({ state }, value)
    },
  })
  // One outbox query per scrape, read by the three gauges below (prom-client collects them concurrently).
  let scrape: Promise<OutboxState | undefined> | undefined
  const outboxNow = () =>
    (scrape ??= readOutbox(database).finally(() => setImmediate(() => (scrape = undefined))))
  new client.Gauge({
    name: 'codebook_database_up',
    help: '1 when the database answered the metrics query just now, else 0.',
    registers: [registry],
    async collect() {
      this.set((await outboxNow()) ? 1 : 0)
    },
  })
  new client.Gauge({
    name: 'codebook_mail_outbox',
    help: 'Mail in the outbox: pending (due or waiting to retry) and given up (after the last attempt).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const outbox = await outboxNow()
      // The database is away: the scrape still answers, with the outage in codebook_database_up.
      if (!outbox) return
      this.set({ state: 'pending' }, outbox.pending)
      this.set({ state: 'given_up' }, outbox.givenUp)
    },
  })
  new client.Gauge({
    name: 'codebook_mail_outbox_oldest_pending_seconds',
    help: 'Age of the oldest unsent mail still being tried (0 when none).',
    registers: [registry],
    async collect() {
      const outbox = await outboxNow()
      if (outbox) this.set(outbox.oldestSeconds ?? 0)
    },
  })

  const matchRoute = routeMatcher(options.build)
  /** Counts and times every request by the route it reached. */
  const observeRequest = (req: ExpressRequest, res: ServerResponse) => {
    const started = process.hrtime.bigint()
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      void routeLabel(req.path).then((route) => {
        requests.inc({ method: req.method, route, status: String(res.statusCode) })
        duration.observe({ method: req.method, route }, seconds)
      })
    })
  }
  const routeLabel = async (pathname: string): Promise<string> => {
    if (pathname === '/healthz' || pathname === '/readyz' || pathname === '/metrics') return pathname
    if (pathname.startsWith('/assets/')) return 'assets'
    // A client-side navigation's data request counts under the page it loads.
    const page = pathname.endsWith('.data') ? pathname.slice(0, -'.data'.length) || '/' : pathname
    if (/\.[a-z0-9]+$/i.test(page) && !page.startsWith('/library/') && !page.startsWith('/books/'))
      return 'static'
    return (await matchRoute(page === '/_root' ? '/' : page).catch(() => undefined))?.template ?? 'unmatched'
  }
  return { registry, observeRequest }
}

export type Metrics = ReturnType<typeof createMetrics>

type OutboxState = { pending: number; givenUp: number; oldestSeconds: number | null }

/** The outbox's unsent mail now; undefined when the database does not answer within a second. */
async function readOutbox(database: DatabaseHandle): Promise<OutboxState | undefined> {
  const givenUp = sql`${emailOutbox.attempts} >= ${maxEmailAttempts}`
  try {
    const [row] = await withTimeout(
      database.db
        .select({
          pending: sql<number>`(count(*) filter (where not ${givenUp}))::int`,
          givenUp: sql<number>`(count(*) filter (where ${givenUp}))::int`,
          oldestSeconds: sql<number | null>`extract(epoch from now() - min(${emailOutbox.createdAt})
            filter (where not ${givenUp}))::float8`,
        })
        .from(emailOutbox)
        // A mail held for a later moment and never tried (a gift's day) is not waiting yet; one being retried is.
        .where(
          and(
            isNull(emailOutbox.sentAt),
            sql`not (${emailOutbox.attempts} = 0 and ${emailOutbox.nextAttemptAt} > now())`,
          ),
        ),
      QUERY_TIMEOUT_MS,
    )
    return row
  } catch {
    return undefined
  }
}

/**
 * GET /metrics for a scraper holding the token (`Authorization: Bearer …`, compared in constant time); without
 * a configured token the URL is not there (the store's 404).
 */
export function metricsEndpoint(metrics: Metrics, token: string | undefined): RequestHandler {
  const expected = token ? digest(token) : undefined
  return async (req, res, next) => {
    if (!expected) return next()
    const given = /^Bearer (\S+)$/.exec(req.get('Authorization') ?? '')?.[1]
    res.set('Cache-Control', 'no-store')
    if (!given || !crypto.timingSafeEqual(digest(given), expected)) {
      res
        .set('WWW-Authenticate', 'Bearer realm="metrics"')
        .status(401)
        .json({ error: 'A metrics token is required.' })
      return
    }
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics())
  }
}

function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value).digest()
}
