import { and, inArray } from 'drizzle-orm'
import type { RecordedEvent } from '#app/server/analytics-sink.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { analyticsEvents, books, orderItems, orders } from '#app/server/db/schema/index.server.ts'
import { aggregateEvents } from './aggregate.server.ts'
import { saltsFor, utcDay, visitorId } from './visitor.server.ts'

export type WriteOptions = {
  /** The store's host, part of every visitor hash. */
  site: string
  /** Today's salt, kept between batches (one per sink). */
  saltCache: Map<string, string>
  now?: Date
}

/**
 * Writes one batch: visitor ids made from the day's salt (the address and user agent go no further),
 * slugs and orders resolved to what the dashboard needs, one multi-row insert, and the daily aggregates
 * updated in the same transaction. A purchase takes its value and lines from the order itself, as paid.
 */
export async function writeEvents(db: Db, events: RecordedEvent[], options: WriteOptions) {
  if (events.length === 0) return
  const today = utcDay(options.now ?? new Date())
  const salts = await saltsFor(
    db,
    [...new Set(events.filter((event) => event.client).map((event) => utcDay(event.occurredAt)))],
    options.saltCache,
    today,
  )
  const bookIdBySlug = await bookIdsBySlug(db, events)
  const purchases = await paidOrders(db, events)

  const rows = events.flatMap((event) => {
    const salt = salts.get(utcDay(event.occurredAt))
    const row = {
      occurredAt: event.occurredAt,
      name: event.name,
      visitor: event.client && salt ? visitorId(salt, event.client, options.site) : null,
      path: event.path ?? null,
      referrerHost: event.referrerHost ?? null,
      bookId: event.bookId ?? (event.bookSlug ? bookIdBySlug.get(event.bookSlug) : undefined) ?? null,
      orderId: event.orderId ?? null,
      query: event.query ?? null,
      resultCount: event.resultCount ?? null,
    }
    if (event.name !== 'purchase') return [row]
    const order = event.orderId ? purchases.get(event.orderId) : undefined
    // Not paid (yet): nothing was bought.
    if (!order) return []
    return [{ ...row, valueCents: order.totalCents, currency: order.currency, items: order.items }]
  })
  if (rows.length === 0) return
  await db.transaction(async (tx) => {
    const inserted = await tx
      .insert(analyticsEvents)
      .values(rows)
      // A purchase already recorded (the payment confirmed twice) is skipped.
      .onConflictDoNothing()
      .returning({ id: analyticsEvents.id })
    if (inserted.length === 0) return
    await aggregateEvents(
      tx,
      inArray(
        analyticsEvents.id,
        inserted.map((row) => row.id),
      ),
    )
  })
}

async function bookIdsBySlug(db: Db, events: RecordedEvent[]) {
  const slugs = [...new Set(events.flatMap((event) => (event.bookSlug ? [event.bookSlug] : [])))]
  if (slugs.length === 0) return new Map<string, string>()
  const rows = await db
    .select({ id: books.id, slug: books.slug })
    .from(books)
    .where(inArray(books.slug, slugs))
  return new Map(rows.map((row) => [row.slug, row.id]))
}

async function paidOrders(db: Db, events: RecordedEvent[]) {
  const ids = [
    ...new Set(
      events.flatMap((event) => (event.name === 'purchase' && event.orderId ? [event.orderId] : [])),
    ),
  ]
  const found = new Map<
    string,
    { totalCents: number; currency: string; items: Array<{ bookId: string; cents: number }> }
  >()
  if (ids.length === 0) return found
  const paid = await db
    .select({ id: orders.id, totalCents: orders.totalCents, currency: orders.currency })
    .from(orders)
    .where(and(inArray(orders.id, ids), inArray(orders.status, ['paid', 'refunded'])))
  for (const order of paid) found.set(order.id, { ...order, items: [] })
  if (found.size === 0) return found
  const lines = await db
    .select({ orderId: orderItems.orderId, bookId: orderItems.bookId, cents: orderItems.priceCents })
    .from(orderItems)
    .where(inArray(orderItems.orderId, [...found.keys()]))
  for (const line of lines) found.get(line.orderId)?.items.push({ bookId: line.bookId, cents: line.cents })
  return found
}
