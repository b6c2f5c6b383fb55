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

export type AnalyticsSink = BatchBuffer<RecordedEvent>
