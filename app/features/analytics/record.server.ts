import { isbot } from 'isbot'
import type { AnalyticsSink, HeaderReader, RecordedEvent } from '#app/server/analytics-sink.server.ts'
import { createBatchBuffer } from '#app/server/batch-buffer.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { isDataRequest } from '#app/server/data-request.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { isFromSamePage } from '#app/server/same-page.ts'
import { writeEvents } from './write.server.ts'

/** The events a request may record; the sink adds when, and who (as the day's hash). */
export type StoreEvent =
  | { name: 'view_item'; bookId?: string; bookSlug?: string }
  | { name: 'add_to_cart' | 'remove_from_cart'; bookId: string }
  | { name: 'begin_checkout' }
  | { name: 'search'; query: string; resultCount: number }
  | { name: 'download'; bookSlug: string }

/**
 * The process's analytics sink: events wait in memory and are written every second or 500 at a time
 * (write.server.ts), off every request's path. The services container makes it; server/app.ts stops it
 * (writing what is left) on shutdown. It carries `mayRecord`, so the host's page views honour the same rule.
 */
export function createAnalyticsSink(options: {
  db: Db
  logger: Logger
  site: string
  intervalMs?: number
}): AnalyticsSink {
  const saltCache = new Map<string, string>()
  const buffer = createBatchBuffer<RecordedEvent>({
    write: (events) => writeEvents(options.db, events, { site: options.site, saltCache }),
    logger: options.logger,
    what: 'analytics events',
    intervalMs: options.intervalMs,
  })
  return { ...buffer, mayRecord }
}

/**
 * Whether this visitor may be counted: not when they ask not to be (`DNT: 1`, `Sec-GPC: 1`), and not a
 * bot (nor a client that sends no user agent). Nothing at all is recorded for them, not even anonymously.
 */
export function mayRecord(headers: HeaderReader): boolean {
  if (headers.get('DNT') === '1' || headers.get('Sec-GPC') === '1') return false
  // No user agent at all: a script, not a browser.
  const userAgent = headers.get('User-Agent')
  return Boolean(userAgent) && !isbot(userAgent)
}

/**
 * Records a store event for the visitor behind `request`. Returns at once: the event is queued, never
 * awaited, and a failure to write it is logged, never the request's problem.
 */
export function recordEvent(
  app: { analytics: AnalyticsSink; clientIp: string },
  request: Request,
  event: StoreEvent,
) {
  if (!mayRecord(request.headers)) return
  app.analytics.push({
    ...event,
    occurredAt: new Date(),
    client: { ip: app.clientIp, userAgent: request.headers.get('User-Agent') ?? '' },
  })
}

/**
 * Counts a book's page view from its loader: once per view. A page opened as a document was counted by the
 * host (server/page-views.ts), so only React Router's own fetch ('/books/x.data', a client-side navigation)
 * counts here, and not when it comes from the same page: React Router revalidating the book's loader after the
 * page's own action (its 'Add To Cart', a review) is the same view.
 */
export function recordBookView(
  app: { analytics: AnalyticsSink; clientIp: string; env: { publicUrl: URL } },
  request: Request,
  url: URL,
  bookId: string,
) {
  if (!isDataRequest(request, url)) return
  const ownHosts = [url.hostname, app.env.publicUrl.hostname]
  if (isFromSamePage(request.headers.get('Referer'), url.pathname, ownHosts)) return
  recordEvent(app, request, { name: 'view_item', bookId })
}

/**
 * Records that an order was paid. No visitor is behind it (Stripe's webhook confirms payments from Stripe's
 * servers), so it carries no visitor id, and it is recorded whatever the buyer's privacy signals: it is the
 * store's own sale, already in its orders, not a trace of anyone's browsing. Value and books come from the
 * order when the batch is written; an order confirmed twice is counted once.
 */
export function recordPurchase(app: { analytics: AnalyticsSink }, orderId: string) {
  app.analytics.push({ name: 'purchase', orderId, occurredAt: new Date() })
}
