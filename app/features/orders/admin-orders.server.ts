import { and, asc, desc, eq, exists, gte, ilike, lt, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import { csvStream, type CsvCell } from '#app/server/csv.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { books, orderItems, orderRefunds, orders, user } from '#app/server/db/schema/index.server.ts'
import type { OrderFilters } from './admin-order-filters.server.ts'
import { containing } from '#app/server/db/like.server.ts'

export const ADMIN_ORDERS_PAGE_SIZE = 50

/** One row of /admin/orders and of its CSV export. */
export type AdminOrderRow = {
  id: string
  number: number
  createdAt: Date
  paidAt: Date | null
  status: string
  buyerEmail: string
  /** The books' titles, in title order, joined by '; '. */
  titles: string
  lineCount: number
  totalCents: number
  currency: string
  paymentProvider: string
  paymentReference: string | null
  refundedAt: Date | null
  /** Refunds of the order confirmed so far (features/accounts/money.ts): what went back, its tax and net. */
  refundedCents: number
  /** The order's tax and net less what its confirmed refunds gave back. */
  taxCents: number
  netCents: number
}

/**
 * Midnight (UTC) at the start of a calendar day, `plusDays` after `day` (YYYY-MM-DD), computed by the database.
 * Not a JavaScript Date: the day after 9999-12-31 is in the year 10000, which `toISOString()` writes
 * '+010000-01-01T00:00:00.000Z' and PostgreSQL refuses (22009): `?to=9999-12-31` was a 500 (found by
 * `npm run drill:fuzz`; tests/integration/admin-orders-date-bounds.test.ts).
 */
function utcMidnight(day: string, plusDays = 0): SQL {
  return sql`((${day}::date + ${plusDays}::int)::timestamp at time zone 'UTC')`
}

function whereFilters(filters: OrderFilters, beforeNumber?: number): SQL | undefined {
  return and(
    filters.status ? eq(orders.status, filters.status) : undefined,
    filters.from ? gte(orders.createdAt, utcMidnight(filters.from)) : undefined,
    // Whole days, the end date included.
    filters.to ? lt(orders.createdAt, utcMidnight(filters.to, 1)) : undefined,
    filters.buyer ? ilike(user.email, containing(filters.buyer)) : undefined,
    filters.book
      ? exists(
          sql`(select 1 from ${orderItems} where ${orderItems.orderId} = ${orders.id} and ${orderItems.bookId} = ${filters.book})`,
        )
      : undefined,
    beforeNumber === undefined ? undefined : lt(orders.number, beforeNumber),
  )
}

/**
 * Orders matching the filters, newest first, `limit` of them after the cursor. Keyset paging on the order
 * number (unique, indexed, given in the order orders are made): a page costs the same at order 1,000,000 as
 * at the first, where OFFSET would read and drop every row before it.
 */
export async function listOrdersForAdmin(
  db: Db,
  filters: OrderFilters,
  options: { beforeNumber?: number; limit?: number } = {},
): Promise<{ rows: AdminOrderRow[]; nextBeforeNumber: number | null }> {
  const limit = options.limit ?? ADMIN_ORDERS_PAGE_SIZE
  const rows = await selectOrders(db, filters, options.beforeNumber, limit + 1)
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  return { rows: page, nextBeforeNumber: more ? page[page.length - 1]!.number : null }
}

/** A sum over the order's confirmed refunds (order_refunds_order_id_idx finds them). */
const refunded = (column: SQLWrapper) =>
  sql<number>`(select coalesce(sum(${column}), 0) from ${orderRefunds} where ${orderRefunds.orderId} = ${orders.id} and ${orderRefunds.status} = 'confirmed')`.mapWith(
    Number,
  )

function selectOrders(db: Db, filters: OrderFilters, beforeNumber: number | undefined, limit: number) {
  return db
    .select({
      id: orders.id,
      number: orders.number,
      createdAt: orders.createdAt,
      paidAt: orders.paidAt,
      status: orders.status,
      buyerEmail: user.email,
      titles: sql<string>`coalesce((select string_agg(${orderItems.title}, '; ' order by ${orderItems.title}) from ${orderItems} where ${orderItems.orderId} = ${orders.id}), '')`,
      lineCount: sql<number>`(select count(*)::int from ${orderItems} where ${orderItems.orderId} = ${orders.id})`,
      totalCents: orders.totalCents,
      currency: orders.currency,
      paymentProvider: orders.paymentProvider,
      paymentReference: orders.paymentReference,
      refundedAt: orders.refundedAt,
      refundedCents: refunded(orderRefunds.amountCents),
      taxCents: sql<number>`${orders.taxCents} - ${refunded(orderRefunds.taxCents)}`.mapWith(Number),
      netCents: sql<number>`${orders.netCents} - ${refunded(orderRefunds.netCents)}`.mapWith(Number),
    })
    .from(orders)
    .innerJoin(user, eq(user.id, orders.userId))
    .where(whereFilters(filters, beforeNumber))
    .orderBy(desc(orders.number))
    .limit(limit)
}

/** The books an admin can filter orders by: every book ever sold or on sale, by title. */
export function listBookChoices(db: Db): Promise<{ id: string; title: string }[]> {
  return db.select({ id: books.id, title: books.title }).from(books).orderBy(asc(books.title), asc(books.id))
}

export const CSV_BATCH_SIZE = 500

const CSV_COLUMNS = [
  'Order number',
  'Order id',
  'Created at (UTC)',
  'Paid at (UTC)',
  'Status',
  'Buyer email',
  'Books',
  'Book count',
  'Total',
  'Currency',
  'Payment provider',
  'Payment reference',
  'Refunded at (UTC)',
  // Money as the accounts count it (decision 039): Total − Refunded − Tax = Net revenue.
  'Refunded',
  'Tax (less refunded)',
  'Net revenue',
] as const

function csvOrder(order: AdminOrderRow): CsvCell[] {
  return [
    order.number,
    order.id,
    order.createdAt.toISOString(),
    order.paidAt?.toISOString() ?? null,
    order.status,
    order.buyerEmail,
    order.titles,
    order.lineCount,
    (order.totalCents / 100).toFixed(2),
    order.currency,
    order.paymentProvider,
    order.paymentReference,
    order.refundedAt?.toISOString() ?? null,
    { cents: order.refundedCents },
    { cents: order.taxCents },
    { cents: order.netCents },
  ]
}

/**
 * The filtered orders as CSV, streamed: each time the reader wants more, one keyset batch of `batchSize`
 * orders is read and written, so memory holds one batch whatever the number of orders, and a client that
 * reads slowly (or goes away) slows (or stops) the queries. `onBatch` lets tests watch the batches.
 */
export function streamOrdersCsv(
  db: Db,
  filters: OrderFilters,
  options: { batchSize?: number; onBatch?: (rows: number) => void } = {},
): ReadableStream<Uint8Array> {
  const batchSize = options.batchSize ?? CSV_BATCH_SIZE
  async function* batches() {
    let beforeNumber: number | undefined
    for (;;) {
      const rows = await selectOrders(db, filters, beforeNumber, batchSize)
      options.onBatch?.(rows.length)
      if (rows.length > 0) yield rows.map(csvOrder)
      if (rows.length < batchSize) return
      beforeNumber = rows[rows.length - 1]!.number
    }
  }
  return csvStream(CSV_COLUMNS, batches())
}
