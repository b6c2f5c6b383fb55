import { and, eq } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { orders } from '#app/server/db/schema.server.ts'

/**
 * Marks a paid order refunded, once the money has gone back (by hand, in the provider's dashboard: decision
 * 008). The books it granted leave the buyer's library in the same statement: a trigger on `orders`
 * (migration 0007) does that, so a refund recorded with plain SQL takes them back just the same. A book the
 * buyer also paid for in another order stays theirs, through that order. Only a paid order can be refunded.
 */
export async function refundOrder(
  db: Db,
  orderId: string,
): Promise<'refunded' | 'already-refunded' | 'not-paid' | 'not-found'> {
  const [refunded] = await db
    .update(orders)
    .set({ status: 'refunded' })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'paid')))
    .returning({ id: orders.id })
  if (refunded) return 'refunded'
  const [order] = await db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId))
  if (!order) return 'not-found'
  return order.status === 'refunded' ? 'already-refunded' : 'not-paid'
}
