import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books, bundles, orderItems, orders } from '#app/server/db/schema/index.server.ts'
import type { BookLine } from '#app/features/cart/book-line.ts'

/** The address of an order's page, as mail and payment pages link to it. */
export function orderUrl(publicUrl: URL, orderId: string): string {
  return new URL(`/orders/${orderId}`, publicUrl).toString()
}

/** What every page of an order shows of it first: its number, where it stands and what it came to. */
export const orderColumns = {
  id: orders.id,
  number: orders.number,
  status: orders.status,
  totalCents: orders.totalCents,
  currency: orders.currency,
}

export type OrderSummary = {
  id: string
  number: number
  status: string
  totalCents: number
  currency: string
  createdAt: Date
  paidAt: Date | null
  cardBrand: string | null
  cardLast4: string | null
  /** What the coupon took off, and its code (0 and null without one). */
  discountCents: number
  couponCode: string | null
  /** What refunds gave back of it so far (confirmed ones; 0 without any). */
  refundedCents: number
  /** Tax as charged (features/tax): the sums of the lines', the country taxed, and how. */
  netCents: number
  taxCents: number
  taxCountry: string | null
  pricesIncludeTax: boolean
  reverseCharge: boolean
  /**
   * Each line as bought: its list price, discount and price (`priceCents`), and its tax: rate, net, tax and
   * gross (what was paid for it).
   */
  lines: (BookLine & {
    listPriceCents: number
    discountCents: number
    taxRateBp: number
    netCents: number
    taxCents: number
    grossCents: number
  })[]
}

/** One order, if it is this buyer's; anyone else gets nothing (the route answers 404 either way). */
export async function getOrderForUser(
  db: Db,
  userId: string,
  orderId: string,
): Promise<OrderSummary | undefined> {
  const [order] = await listOrders(db, userId, orderId)
  return order
}

/**
 * The buyer's orders, newest first. A payment that failed is not an order to its buyer (nothing was charged,
 * the books stayed in the cart): it is left out here, kept for the owner (the back office lists it with its
 * status), in the buyer's data export (labelled) and on its own page (a Stripe payment that fails after the
 * buyer came back is told there).
 */
export function listOrdersForUser(db: Db, userId: string): Promise<OrderSummary[]> {
  return listOrders(db, userId, undefined, { paymentsThatFailed: false })
}

async function listOrders(
  db: Db,
  userId: string,
  orderId?: string,
  { paymentsThatFailed = true } = {},
): Promise<OrderSummary[]> {
  const rows = await db
    .select({
      ...orderColumns,
      createdAt: orders.createdAt,
      paidAt: orders.paidAt,
      cardBrand: orders.cardBrand,
      cardLast4: orders.cardLast4,
      discountCents: orders.discountCents,
      couponCode: orders.couponCode,
      // Written out: inside a select list Drizzle names a column without its table, and both tables have an id.
      refundedCents: sql<number>`(select coalesce(sum("refund"."amount_cents"), 0)::integer from "order_refunds" as "refund" where "refund"."order_id" = "orders"."id" and "refund"."status" = 'confirmed')`,
      netCents: orders.netCents,
      taxCents: orders.taxCents,
      taxCountry: orders.taxCountry,
      pricesIncludeTax: orders.pricesIncludeTax,
      reverseCharge: orders.reverseCharge,
    })
    .from(orders)
    .where(
      and(
        eq(orders.userId, userId),
        orderId ? eq(orders.id, orderId) : undefined,
        paymentsThatFailed ? undefined : ne(orders.status, 'failed'),
      ),
    )
    .orderBy(desc(orders.createdAt), desc(orders.number))
  if (rows.length === 0) return []
  const lines = await db
    .select({
      orderId: orderItems.orderId,
      bookId: orderItems.bookId,
      slug: books.slug,
      title: orderItems.title,
      coverPath: books.coverPath,
      priceCents: orderItems.priceCents,
      listPriceCents: orderItems.listPriceCents,
      discountCents: orderItems.discountCents,
      taxRateBp: orderItems.taxRateBp,
      netCents: orderItems.netCents,
      taxCents: orderItems.taxCents,
      grossCents: orderItems.grossCents,
      currency: orderItems.currency,
      bundleId: bundles.id,
      bundleSlug: bundles.slug,
      bundleTitle: bundles.title,
    })
    .from(orderItems)
    .innerJoin(books, eq(books.id, orderItems.bookId))
    .leftJoin(bundles, eq(bundles.id, orderItems.bundleId))
    .where(
      inArray(
        orderItems.orderId,
        rows.map((row) => row.id),
      ),
    )
    // A bundle's books together (the order's page shows them as one line), then by title.
    .orderBy(asc(bundles.title), asc(orderItems.title))
  return rows.map((row) => ({
    ...row,
    lines: lines
      .filter((line) => line.orderId === row.id)
      .map(({ orderId: _orderId, bundleId, bundleSlug, bundleTitle, ...line }) => ({
        ...line,
        ...(bundleId ? { bundle: { id: bundleId, slug: bundleSlug!, title: bundleTitle! } } : {}),
      })),
  }))
}

/** What the data export says of a failed payment, which My orders does not list. */
export const FAILED_PAYMENT_NOTE =
  'A payment attempt that did not go through: nothing was charged and no book was granted.'

/**
 * A buyer's orders with their payment and lines, oldest first: their part of the account's data export. It is
 * the reader's data, so failed payment attempts are in it too, each with a note saying what it is.
 */
export async function exportOrdersOf(db: Db, userId: string) {
  const orderRows = await db
    .select({
      ...orderColumns,
      paymentProvider: orders.paymentProvider,
      cardBrand: orders.cardBrand,
      cardLast4: orders.cardLast4,
      createdAt: orders.createdAt,
      paidAt: orders.paidAt,
      refundedAt: orders.refundedAt,
    })
    .from(orders)
    .where(eq(orders.userId, userId))
    .orderBy(asc(orders.createdAt))
  const lines = orderRows.length
    ? await db
        .select({
          orderId: orderItems.orderId,
          title: orderItems.title,
          priceCents: orderItems.priceCents,
          currency: orderItems.currency,
        })
        .from(orderItems)
        .where(
          inArray(
            orderItems.orderId,
            orderRows.map((order) => order.id),
          ),
        )
    : []
  return orderRows.map(({ id, paymentProvider, cardBrand, cardLast4, ...order }) => ({
    ...order,
    ...(order.status === 'failed' ? { note: FAILED_PAYMENT_NOTE } : {}),
    payment: { provider: paymentProvider, cardBrand, cardLast4 },
    lines: lines.filter((line) => line.orderId === id).map(({ orderId: _orderId, ...line }) => line),
  }))
}

/** Who the buyer's newest order with an invoice name or address was made out to: the checkout's starting values. */
export async function lastInvoiceTo(db: Db, userId: string): Promise<{ name: string; address: string }> {
  const [last] = await db
    .select({ name: orders.billingName, address: orders.billingAddress })
    .from(orders)
    .where(
      and(
        eq(orders.userId, userId),
        sql`(${orders.billingName} is not null or ${orders.billingAddress} is not null)`,
      ),
    )
    .orderBy(desc(orders.createdAt))
    .limit(1)
  return { name: last?.name ?? '', address: last?.address ?? '' }
}
