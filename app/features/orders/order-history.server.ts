import { and, asc, desc, eq, inArray } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books, orderItems, orders } from '#app/server/db/schema/index.server.ts'
import type { OrderLine } from './order-line.ts'

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
  lines: OrderLine[]
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

/** The buyer's orders, newest first. */
export function listOrdersForUser(db: Db, userId: string): Promise<OrderSummary[]> {
  return listOrders(db, userId)
}

async function listOrders(db: Db, userId: string, orderId?: string): Promise<OrderSummary[]> {
  const rows = await db
    .select({
      ...orderColumns,
      createdAt: orders.createdAt,
      paidAt: orders.paidAt,
      cardBrand: orders.cardBrand,
      cardLast4: orders.cardLast4,
    })
    .from(orders)
    .where(and(eq(orders.userId, userId), orderId ? eq(orders.id, orderId) : undefined))
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
      currency: orderItems.currency,
    })
    .from(orderItems)
    .innerJoin(books, eq(books.id, orderItems.bookId))
    .where(
      inArray(
        orderItems.orderId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(orderItems.title))
  return rows.map((row) => ({
    ...row,
    lines: lines.filter((line) => line.orderId === row.id).map(({ orderId: _orderId, ...line }) => line),
  }))
}

/** A buyer's orders with their payment and lines, oldest first: their part of the account's data export. */
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
    payment: { provider: paymentProvider, cardBrand, cardLast4 },
    lines: lines.filter((line) => line.orderId === id).map(({ orderId: _orderId, ...line }) => line),
  }))
}
