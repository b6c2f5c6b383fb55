import { and, eq, isNotNull, ne, sql } from 'drizzle-orm'
import { forgetCarts } from '#app/features/cart/cart.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { gifts, orders, type OrderStatus } from '#app/server/db/schema/index.server.ts'
import {
  refusedCheckout,
  reserveCheckout,
  type CheckoutResult,
  type NothingToBuy,
} from './checkout.server.ts'
import { getOrderForUser, orderUrl } from './order-history.server.ts'
import { completeFreeOrder } from './free-checkout.server.ts'
import { failPendingOrder } from './payment-events.server.ts'
import type { PaymentProvider } from './payments.server.ts'
import type { BuyerTax } from '#app/features/tax/checkout-tax.server.ts'

type RedirectProvider = Extract<PaymentProvider, { kind: 'redirect' }>

/**
 * Checkout with a redirect provider (Stripe Checkout, decision 009): a pending order made from the cart, a
 * payment page for it at the provider, the page's reference recorded on the order, and the buyer's older
 * payment pages closed; the buyer is then sent to pay. A webhook marks the order paid later
 * (payment-events.server.ts). The cart stays as it is until then.
 */
export async function checkoutWithRedirect(
  app: Pick<AppContext, 'db' | 'env' | 'logger' | 'kickOutbox' | 'analytics'>,
  provider: RedirectProvider,
  input: {
    user: { id: string; email: string }
    idempotencyKey: string
    attemptId: string
    giftId?: string
    buyer?: BuyerTax | null
    /** The buyer's currency (features/currency). */
    currency?: string
  },
): Promise<CheckoutResult> {
  const pending = await createPendingOrder(app.db, {
    userId: input.user.id,
    idempotencyKey: input.idempotencyKey,
    attemptId: input.attemptId,
    giftId: input.giftId,
    buyer: input.buyer,
    currency: input.currency,
    providerName: provider.name,
    minimumChargeCents: provider.minimumChargeCents,
  })
  if (pending.outcome !== 'created' && pending.outcome !== 'existing') return refusedCheckout(pending.outcome)
  // This page's order was closed unpaid (its Stripe page expired or was replaced): the page, loaded again,
  // offers a new attempt.
  if (pending.status === 'failed') return refusedCheckout('closed-unpaid')
  if (pending.status !== 'pending') return { outcome: 'order', orderId: pending.orderId }
  const order = (await getOrderForUser(app.db, input.user.id, pending.orderId))!
  if (order.totalCents === 0) {
    // Nothing to pay (a 100 % coupon): no payment page; the order is completed here.
    await completeFreeOrder(app, order.id)
    return { outcome: 'order', orderId: order.id }
  }
  let session: { reference: string; url: string }
  try {
    session = await provider.startCheckout({
      orderId: order.id,
      orderNumber: order.number,
      customerEmail: input.user.email,
      lines: order.lines,
      successUrl: orderUrl(app.env.publicUrl, order.id),
      // Back to the page the buyer came from: the cart's checkout, or the gift's.
      cancelUrl: new URL(
        input.giftId ? `/checkout?${new URLSearchParams({ gift: input.giftId })}` : '/checkout',
        app.env.publicUrl,
      ).toString(),
    })
  } catch (error) {
    // The order stays pending and the cart as it was: the next attempt reuses both.
    // Stripe's error messages may quote the request (the buyer's email): log what identifies the failure.
    const { type, code, requestId } = (error ?? {}) as { type?: string; code?: string; requestId?: string }
    app.logger.error(
      { type, code, requestId, orderId: order.id },
      'could not start a Stripe Checkout session',
    )
    return refusedCheckout('provider-unreachable')
  }
  await setPaymentReference(app.db, order.id, session.reference)
  // A gift's page shares no book with the buyer's cart or other gifts: only a cart checkout replaces an
  // older one of the cart.
  if (!input.giftId) await closeOtherCheckouts(app, provider, input.user.id, order.id)
  return { outcome: 'payment-page', url: session.url }
}

/**
 * Step one: a pending order made from the cart (`reserveCheckout`), or the one this attempt or this cart's
 * key already made (whatever its status now: a pending one is sent on to its payment page again, the others
 * answered). The cart stays as it is until the provider says the order is paid.
 */
export async function createPendingOrder(
  db: Db,
  input: {
    userId: string
    idempotencyKey: string
    attemptId: string
    providerName: string
    minimumChargeCents?: number
    giftId?: string
    buyer?: BuyerTax | null
    currency?: string
  },
): Promise<
  { outcome: 'created' | 'existing'; orderId: string; status: OrderStatus } | { outcome: NothingToBuy }
> {
  const reservation = await db.transaction((tx) => reserveCheckout(tx, input))
  if (reservation.changedCartId) forgetCarts(db, reservation.changedCartId)
  if (reservation.outcome === 'reserved')
    return { outcome: 'created', orderId: reservation.orderId, status: 'pending' }
  if (reservation.outcome === 'existing')
    return { outcome: 'existing', orderId: reservation.orderId, status: reservation.status }
  return { outcome: reservation.outcome }
}

/** Records the provider's reference for a pending order (e.g. the Stripe Checkout Session id). */
export async function setPaymentReference(db: Db, orderId: string, reference: string): Promise<void> {
  await db
    .update(orders)
    .set({ paymentReference: reference })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'pending')))
}

/**
 * The buyer's other cart orders still waiting on a provider's page (a checkout left open in another tab); a
 * gift's order is not one of them.
 */
export async function listOpenPayments(
  db: Db,
  userId: string,
  exceptOrderId: string,
): Promise<{ orderId: string; reference: string }[]> {
  const rows = await db
    .select({ orderId: orders.id, reference: orders.paymentReference })
    .from(orders)
    .where(
      and(
        eq(orders.userId, userId),
        eq(orders.status, 'pending'),
        ne(orders.id, exceptOrderId),
        isNotNull(orders.paymentReference),
        sql`not exists (select 1 from ${gifts} where ${gifts.orderId} = ${orders.id})`,
      ),
    )
  return rows.flatMap((row) => (row.reference ? [{ orderId: row.orderId, reference: row.reference }] : []))
}

/**
 * A buyer who changed the cart and checked out again may still have the older Stripe page open in another
 * tab: it is expired, so the same book cannot be paid for twice. One that was paid meanwhile is left to its
 * webhook; a failure here is logged and never stops this checkout.
 */
async function closeOtherCheckouts(
  app: Pick<AppContext, 'db' | 'logger'>,
  provider: RedirectProvider,
  userId: string,
  orderId: string,
) {
  for (const open of await listOpenPayments(app.db, userId, orderId)) {
    try {
      if ((await provider.expireCheckout(open.reference)) === 'expired')
        await failPendingOrder(app.db, { ...open, reason: 'replaced by a newer checkout' })
    } catch (error) {
      const { type, code } = (error ?? {}) as { type?: string; code?: string }
      app.logger.warn({ type, code, orderId: open.orderId }, 'could not expire an older Checkout Session')
    }
  }
}
