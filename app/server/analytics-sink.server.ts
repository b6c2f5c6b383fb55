import type { AnalyticsEventName } from './db/schema/index.server.ts'
import type { BatchBuffer } from './batch-buffer.server.ts'

/**
 * A store event as a request saw it, waiting in memory to be written (app/features/analytics). The client's
 * address and user agent are only held here, for the second or so until the batch turns them into the day's
 * visitor hash; they are never written anywhere.
 */
export type RecordedEvent = {
  name: AnalyticsEventName
  occurredAt: Date
  /** Absent for events no visitor is behind (a payment confirmed by the provider's webhook). */
  client?: { ip: string; userAgent: string }
  path?: string
  referrerHost?: string
  bookId?: string
  /** view_item recorded by the host, which knows the URL's slug but not the book's id. */
  bookSlug?: string
  orderId?: string
  query?: string
  resultCount?: number
}

/** The headers a request's privacy signals are read from (a fetch Request's, or Express's `req.get`). */
export type HeaderReader = { get(name: string): string | null | undefined }

/** Where store events wait to be written (made by app/features/analytics, held by the services container). */
export type AnalyticsSink = BatchBuffer<RecordedEvent> & {
  /** Whether the visitor who sent these headers may be counted at all (nothing is recorded otherwise). */
  mayRecord(headers: HeaderReader): boolean
}
