import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import {
  books,
  bundles,
  gifts,
  orderItems,
  orderRefunds,
  orders,
} from '#app/server/db/schema/index.server.ts'
import {
  PRICING_REPORT_ROWS,
  type BundleFigures,
  type CouponFigures,
  type PayWhatYouWantFigures,
  type PricingReport,
} from './pricing-report.ts'
import { addDays, type DayRange } from './range.ts'

export type { PricingReport } from './pricing-report.ts'

/**
 * Issue 30's figures for the dashboard's days: revenue by coupon and by bundle, what readers paid for each
 * pay-what-you-want book, and the gifts bought. Orders count on the UTC day they were paid (`paid_at`, whose
 * partial index bounds every query to the period's orders); revenue is that of orders still paid (a refunded
 * one gave its money back), as on /admin/coupons and /admin/bundles, and it is net revenue (decision 039): what
 * the orders paid less their tax, less what confirmed refunds have given back of them since (a part of an
 * order, or of a bundle's line). Read straight from the orders as bought
 * (`order_items` keep each line's paid price): nothing is priced again, and each table is grouped in the
 * database and cut to its largest rows, so its size does not grow with the number of orders.
 */
export async function getPricingReport(db: Db, range: DayRange): Promise<PricingReport> {
  const inPeriod = and(
    gte(orders.paidAt, new Date(`${range.from}T00:00:00Z`)),
    lt(orders.paidAt, new Date(`${addDays(range.to, 1)}T00:00:00Z`)),
  )
  const paidInPeriod = and(eq(orders.status, 'paid'), inPeriod)
  const [byCoupon, byBundle, payWhatYouWant, giftRows] = await Promise.all([
    revenueByCoupon(db, paidInPeriod),
    revenueByBundle(db, paidInPeriod),
    paidForPayWhatYouWant(db, paidInPeriod),
    // A gift's order counts whether it is still paid or was refunded since (then the gift was revoked).
    db
      .select({
        bought: count(),
        sent: count(gifts.sentAt),
        claimed: count(gifts.claimedAt),
        revoked: count(gifts.revokedAt),
      })
      .from(gifts)
      .innerJoin(orders, eq(orders.id, gifts.orderId))
      .where(and(inArray(orders.status, ['paid', 'refunded']), inPeriod)),
  ])
  return {
    byCoupon,
    byBundle,
    payWhatYouWant,
    gifts: giftRows[0] ?? { bought: 0, sent: 0, claimed: 0, revoked: 0 },
  }
}

type Condition = ReturnType<typeof and>

/** The net an order's confirmed refunds gave back (order_refunds_order_id_idx finds them). */
const refundedNet = sql`(select coalesce(sum(${orderRefunds.netCents}), 0) from ${orderRefunds} where ${orderRefunds.orderId} = ${orders.id} and ${orderRefunds.status} = 'confirmed')`

/** The net confirmed refunds gave back of one order line (each refund says what it gave back of each line). */
const refundedLineNet = sql`(select coalesce(sum((line->>'netCents')::int), 0) from ${orderRefunds} cross join lateral jsonb_array_elements(${orderRefunds.lines}) as line where ${orderRefunds.orderId} = ${orderItems.orderId} and ${orderRefunds.status} = 'confirmed' and line->>'bookId' = ${orderItems.bookId}::text)`

function revenueByCoupon(db: Db, paidInPeriod: Condition): Promise<CouponFigures[]> {
  const revenue = sql<number>`sum(${orders.netCents} - ${refundedNet})`.mapWith(Number)
  return db
    .select({
      code: sql<string>`${orders.couponCode}`,
      currency: orders.currency,
      orders: count(),
      revenueCents: revenue,
      discountCents: sql<number>`sum(${orders.discountCents})`.mapWith(Number),
    })
    .from(orders)
    .where(and(paidInPeriod, isNotNull(orders.couponCode)))
    .groupBy(orders.couponCode, orders.currency)
    .orderBy(desc(revenue), desc(count()), orders.couponCode)
    .limit(PRICING_REPORT_ROWS)
}

function revenueByBundle(db: Db, paidInPeriod: Condition): Promise<BundleFigures[]> {
  const revenue = sql<number>`sum(${orderItems.netCents} - ${refundedLineNet})`.mapWith(Number)
  return db
    .select({
      bundleId: bundles.id,
      title: bundles.title,
      slug: bundles.slug,
      currency: orderItems.currency,
      orders: sql<number>`count(distinct ${orderItems.orderId})`.mapWith(Number),
      revenueCents: revenue,
    })
    .from(orders)
    .innerJoin(orderItems, eq(orderItems.orderId, orders.id))
    .innerJoin(bundles, eq(bundles.id, orderItems.bundleId))
    .where(paidInPeriod)
    .groupBy(bundles.id, orderItems.currency)
    .orderBy(desc(revenue), bundles.title)
    .limit(PRICING_REPORT_ROWS)
}

/**
 * Each pay-what-you-want book's copies bought on their own: a copy in a bundle was priced by the bundle, not
 * chosen. A book counts while it is pay what you want (its minimum today), with what was paid in the period.
 */
function paidForPayWhatYouWant(db: Db, paidInPeriod: Condition): Promise<PayWhatYouWantFigures[]> {
  const copies = count()
  return db
    .select({
      bookId: books.id,
      title: books.title,
      slug: books.slug,
      currency: orderItems.currency,
      copies,
      averageCents: sql<number>`round(avg(${orderItems.priceCents}))`.mapWith(Number),
      minimumCents: sql<number>`${books.pwywMinCents}`.mapWith(Number),
      suggestedCents: books.priceCents,
    })
    .from(orders)
    .innerJoin(orderItems, eq(orderItems.orderId, orders.id))
    .innerJoin(books, eq(books.id, orderItems.bookId))
    .where(and(paidInPeriod, isNull(orderItems.bundleId), isNotNull(books.pwywMinCents)))
    .groupBy(books.id, orderItems.currency)
    .orderBy(desc(copies), books.title)
    .limit(PRICING_REPORT_ROWS)
}
