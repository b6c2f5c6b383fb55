import crypto from 'node:crypto'
import { eq } from 'drizzle-orm'
import { forgetCarts } from '#app/features/cart/cart.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { orders } from '#app/server/db/schema/index.server.ts'
import {
  refusedCheckout,
  reserveCheckout,
  type CheckoutResult,
  type NothingToBuy,
} from './checkout.server.ts'
import { releaseCoupon } from '#app/features/pricing/coupons.server.ts'
import { markPaidWithoutPayment } from './free-checkout.server.ts'
import { orderUrl } from './order-history.server.ts'
import { afterPaid, markPaid } from './payment-events.server.ts'
import { paymentMessages, type CardDetails, type PaymentProvider } from './payments.server.ts'
import type { BuyerTax } from '#app/features/tax/checkout-tax.server.ts'

type CardFormProvider = Extract<PaymentProvider, { kind: 'card-form' }>

export type PlaceOrderResult =
  | { outcome: 'paid' | 'existing'; orderId: string }
  | { outcome: 'declined'; reason: 'declined' | 'insufficient-funds'; message: string }
  | { outcome: NothingToBuy }

/**
 * Checkout with the card-form provider, in one transaction: the checkout is reserved (`reserveCheckout`), the
 * card is charged, and on success the payment is recorded, the books granted, the cart emptied and the
 * receipt queued (`markPaid`). A declined card leaves the cart as it was, grants nothing, and keeps the
 * failed attempt on record. The same attempt posted again (a double click, a retried post) is answered with
 * its order's outcome, paid or declined, and charges nothing; a new attempt on the same cart (the page
 * rendered again after a decline) may try another card.
 *
 * The charge happens inside the transaction, holding the cart's lock: that is what makes a second post wait
 * and never charge twice, and it is only right for a provider that answers in-process (payments.server.ts).
 */
export async function placeOrderWithCard(
  db: Db,
  input: {
    userId: string
    idempotencyKey: string
    /** The form's attempt id (getCheckout); a caller without a form (a script) may leave it to be made up. */
    attemptId?: string
    /** A gift's checkout: the gift the order pays for (getCheckout with `giftId`). */
    giftId?: string
    /** Where the buyer is (features/tax): the order is taxed for it. */
    buyer?: BuyerTax | null
    /** The buyer's currency (features/currency): the order is in it if every line has a price in it. */
    currency?: string
    card: CardDetails
    provider: CardFormProvider
    orderUrl: (orderId: string) => string
  },
): Promise<PlaceOrderResult> {
  const attemptId = input.attemptId ?? crypto.randomUUID()
  const { result, changedCartId } = await db.transaction(async (tx) => {
    const reservation = await reserveCheckout(tx, { ...input, attemptId, providerName: input.provider.name })
    const answer = (result: PlaceOrderResult) => ({ result, changedCartId: reservation.changedCartId })
    if (reservation.outcome === 'existing') {
      if (reservation.status !== 'failed')
        return answer({ outcome: 'existing', orderId: reservation.orderId })
      const reason = reservation.failureReason === 'insufficient-funds' ? 'insufficient-funds' : 'declined'
      return answer({ outcome: 'declined', reason, message: paymentMessages[reason] })
    }
    if (reservation.outcome !== 'reserved') return answer({ outcome: reservation.outcome })

    const { orderId, checkout } = reservation
    if (checkout.totalCents === 0) {
      // Nothing to pay (a 100 % coupon): no card is charged.
      await markPaidWithoutPayment(tx, orderId, input.orderUrl(orderId))
      return answer({ outcome: 'paid', orderId })
    }
    const charge = await input.provider.charge({
      card: input.card,
      amountCents: checkout.totalCents,
      currency: checkout.currency,
    })
    if (!charge.ok) {
      // The coupon's use, if any, is free for another order.
      await releaseCoupon(tx, orderId)
      await tx
        .update(orders)
        .set({
          status: 'failed',
          failureReason: charge.reason,
          cardBrand: charge.brand,
          cardLast4: charge.last4,
        })
        .where(eq(orders.id, orderId))
      return answer({ outcome: 'declined', reason: charge.reason, message: charge.message })
    }
    await markPaid(tx, orderId, {
      reference: charge.reference,
      card: { brand: charge.brand, last4: charge.last4, country: charge.country },
      orderUrl: input.orderUrl(orderId),
    })
    return answer({ outcome: 'paid', orderId })
  })
  if (changedCartId) forgetCarts(db, changedCartId)
  return result
}

/** The checkout form posted with a card (the test provider): the order placed, and once paid, `afterPaid`. */
export async function checkoutWithCard(
  app: Pick<AppContext, 'db' | 'env' | 'logger' | 'kickOutbox' | 'analytics'>,
  provider: CardFormProvider,
  input: {
    userId: string
    idempotencyKey: string
    attemptId: string
    giftId?: string
    buyer?: BuyerTax | null
    currency?: string
    card: CardDetails
  },
): Promise<CheckoutResult> {
  const placed = await placeOrderWithCard(app.db, {
    ...input,
    provider,
    orderUrl: (orderId) => orderUrl(app.env.publicUrl, orderId),
  })
  if (placed.outcome === 'paid') afterPaid(app, placed.orderId)
  if (placed.outcome === 'paid' || placed.outcome === 'existing')
    return { outcome: 'order', orderId: placed.orderId }
  if (placed.outcome === 'declined')
    return { outcome: 'refused', reason: 'declined', message: placed.message }
  return refusedCheckout(placed.outcome)
}
