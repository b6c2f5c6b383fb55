import { and, eq } from 'drizzle-orm'
import { forgetCarts } from '#app/features/cart/cart.server.ts'
import { orders } from '#app/server/db/schema/index.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Transaction } from '#app/server/db/database.server.ts'
import {
  FREE_ORDER_PROVIDER,
  refusedCheckout,
  reserveCheckout,
  type CheckoutResult,
} from './checkout.server.ts'
import { orderUrl } from './order-history.server.ts'
import { afterPaid, markPaid } from './payment-events.server.ts'
import type { BuyerTax } from '#app/features/tax/checkout-tax.server.ts'

/**
 * A checkout with nothing to pay (a 100 % coupon, issue 30): the order is made and completed in one
 * transaction, the books granted and the receipt queued, without asking any payment provider — so it works the
 * same with the test provider and with Stripe (which cannot take a payment of 0). Its form carries no card.
 * The cart must still be the one the page showed (the key names its paid prices): if it now costs something,
 * nothing is made and the page shows the new price.
 */
export async function checkoutFree(
  app: Pick<AppContext, 'db' | 'env' | 'logger' | 'kickOutbox' | 'analytics'>,
  input: {
    userId: string
    idempotencyKey: string
    attemptId: string
    giftId?: string
    buyer?: BuyerTax | null
    /** The buyer's currency (features/currency). */
    currency?: string
  },
): Promise<CheckoutResult> {
  const { result, changedCartId } = await app.db.transaction(async (tx) => {
    const reservation = await reserveCheckout(tx, {
      ...input,
      providerName: FREE_ORDER_PROVIDER,
      onlyIfFree: true,
    })
    const answer = (result: CheckoutResult | { outcome: 'paid'; orderId: string }) => ({
      result,
      changedCartId: reservation.changedCartId,
    })
    if (reservation.outcome === 'existing') return answer({ outcome: 'order', orderId: reservation.orderId })
    if (reservation.outcome !== 'reserved') return answer(refusedCheckout(reservation.outcome))
    const { orderId } = reservation
    await markPaidWithoutPayment(tx, orderId, orderUrl(app.env.publicUrl, orderId))
    return answer({ outcome: 'paid', orderId })
  })
  if (changedCartId) forgetCarts(app.db, changedCartId)
  if (result.outcome === 'paid') {
    afterPaid(app, result.orderId)
    return { outcome: 'order', orderId: result.orderId }
  }
  return result
}

/**
 * An order made with nothing to pay through another form (the payment page's, posted for a cart a coupon had
 * just made free): completed now, as `checkoutFree` would have. False if it was not pending any more.
 */
export async function completeFreeOrder(
  app: Pick<AppContext, 'db' | 'env' | 'logger' | 'kickOutbox' | 'analytics'>,
  orderId: string,
): Promise<boolean> {
  const completed = await app.db.transaction(async (tx) => {
    const [pending] = await tx
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.id, orderId), eq(orders.status, 'pending'), eq(orders.totalCents, 0)))
      .for('update')
    if (!pending) return false
    await markPaidWithoutPayment(tx, orderId, orderUrl(app.env.publicUrl, orderId))
    return true
  })
  if (completed) afterPaid(app, orderId)
  return completed
}

/** An order of 0 paid, inside its transaction: no provider was asked, so its reference is its own. */
export function markPaidWithoutPayment(tx: Transaction, orderId: string, url: string) {
  return markPaid(tx, orderId, { reference: `free-${orderId}`, orderUrl: url })
}
