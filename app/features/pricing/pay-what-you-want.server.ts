import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books, orderItems, orders } from '#app/server/db/schema/index.server.ts'
import type { PwywBook } from './pay-what-you-want.ts'

/** A book's pay-what-you-want terms (null minimum: a fixed price), or null for an unknown book. */
export async function readPwywBook(
  db: Db,
  bookId: string,
): Promise<(PwywBook & { title: string; slug: string }) | null> {
  const [book] = await db
    .select({
      title: books.title,
      slug: books.slug,
      pwywMinCents: books.pwywMinCents,
      priceCents: books.priceCents,
      currency: books.currency,
    })
    .from(books)
    .where(eq(books.id, bookId))
  return book ?? null
}

/**
 * What readers paid for a book, on average, over its paid orders (each line's paid price: the amount they
 * chose, less any coupon): the back office shows it beside a pay-what-you-want book's minimum (issue 30).
 */
export async function averagePaid(db: Db, bookId: string): Promise<{ orders: number; averageCents: number }> {
  const [row] = await db
    .select({
      orders: sql<number>`count(*)`.mapWith(Number),
      averageCents: sql<number>`coalesce(round(avg(${orderItems.priceCents})), 0)`.mapWith(Number),
    })
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(and(eq(orderItems.bookId, bookId), eq(orders.status, 'paid')))
  return row ?? { orders: 0, averageCents: 0 }
}
