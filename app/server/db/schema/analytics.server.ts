/** First-party analytics: raw events and the daily aggregates the dashboard reads. */
import { sql } from 'drizzle-orm'
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'

/** The store events the first-party analytics records (docs/decisions/015-first-party-analytics.md). */
export const ANALYTICS_EVENT_NAMES = [
  'page_view',
  'view_item',
  'add_to_cart',
  'remove_from_cart',
  'begin_checkout',
  'purchase',
  'search',
  'download',
] as const
export type AnalyticsEventName = (typeof ANALYTICS_EVENT_NAMES)[number]

/**
 * Raw store events, kept ANALYTICS_RETENTION_DAYS (400 by default) and then deleted: the daily aggregates
 * below are updated in the same transaction as each batch is written, so they already hold everything.
 * No IP address and no user agent: `visitor` is a keyed hash whose key is thrown away after its UTC day.
 */
export const analyticsEvents = pgTable(
  'analytics_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    name: text('name', { enum: ANALYTICS_EVENT_NAMES }).notNull(),
    visitor: text('visitor'),
    /** page_view: the route's path template ('/books/:slug'), never the URL itself. */
    path: text('path'),
    /** page_view: the host of an external referrer, nothing else of it. */
    referrerHost: text('referrer_host'),
    bookId: uuid('book_id'),
    orderId: uuid('order_id'),
    /** purchase: the order's total. */
    valueCents: integer('value_cents'),
    currency: text('currency'),
    /** purchase: what each book brought in, [{ bookId, cents }]. */
    items: jsonb('items').$type<Array<{ bookId: string; cents: number }>>(),
    query: text('query'),
    resultCount: integer('result_count'),
  },
  (table) => [
    index('analytics_events_occurred_at_idx').on(table.occurredAt),
    // A payment confirmed twice (a webhook delivered again) is one purchase.
    uniqueIndex('analytics_events_purchase_unique')
      .on(table.orderId)
      .where(sql`${table.name} = 'purchase'`),
    check(
      'analytics_events_name_check',
      sql`${table.name} in ('page_view', 'view_item', 'add_to_cart', 'remove_from_cart', 'begin_checkout', 'purchase', 'search', 'download')`,
    ),
  ],
)

/** The key of each UTC day's visitor hashes; deleted once the day is over, so old ids cannot be recomputed. */
export const analyticsSalts = pgTable('analytics_salts', {
  day: date('day', { mode: 'string' }).primaryKey(),
  salt: text('salt').notNull(),
})

/** Events per day and name; purchases per currency with their value ('' for every other event). */
export const analyticsDaily = pgTable(
  'analytics_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    name: text('name', { enum: ANALYTICS_EVENT_NAMES }).notNull(),
    currency: text('currency').notNull().default(''),
    events: bigint('events', { mode: 'number' }).notNull(),
    valueCents: bigint('value_cents', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.name, table.currency] })],
)

/** Distinct visitors per day (a visitor id only lives one day, so this is the only visitor count there is). */
export const analyticsDailyVisitors = pgTable('analytics_daily_visitors', {
  day: date('day', { mode: 'string' }).primaryKey(),
  visitors: bigint('visitors', { mode: 'number' }).notNull(),
})

/** The visitor ids already counted for a day; kept only while that day's events may still arrive. */
export const analyticsVisitorDays = pgTable(
  'analytics_visitor_days',
  {
    day: date('day', { mode: 'string' }).notNull(),
    visitor: text('visitor').notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.visitor] })],
)

/** Per book and day: item views, purchases and revenue (in the book's currency). */
export const analyticsDailyBooks = pgTable(
  'analytics_daily_books',
  {
    day: date('day', { mode: 'string' }).notNull(),
    bookId: uuid('book_id').notNull(),
    views: bigint('views', { mode: 'number' }).notNull().default(0),
    purchases: bigint('purchases', { mode: 'number' }).notNull().default(0),
    revenueCents: bigint('revenue_cents', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.bookId] })],
)

/** Searches that found nothing, per day and (normalised) query. */
export const analyticsDailyZeroSearches = pgTable(
  'analytics_daily_zero_searches',
  {
    day: date('day', { mode: 'string' }).notNull(),
    query: text('query').notNull(),
    searches: bigint('searches', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.query] })],
)
