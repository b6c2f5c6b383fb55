import { eq, sql } from 'drizzle-orm'
import { recordPurchase } from '#app/features/analytics/record.server.ts'
import { clearCartCoupon, forgetCarts, removeBooks } from '#app/features/cart/cart.server.ts'
import { grantBooks } from '#app/features/library/library.server.ts'
import { activatePaidGift } from '#app/features/gifts/gift-delivery.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { bundles, orderItems, orders, user, type OrderStatus } from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { orderUrl } from './order-history.server.ts'
import type { PaidCard, PaymentProvider } from './payments.server.ts'
import { readSeller } from '#app/features/settings/store-settings.server.ts'
import { receiptEmail } from './receipt.ts'
import { releaseCoupon } from '#app/features/pricing/coupons.server.ts'
import { confirmRefund, failRefund } from './refund-events.server.ts'
import { explainMissingInvoice, invoiceAttachment, invoiceOrder } from './order-invoice.server.ts'

/**
 * An order is paid, inside the payment's transaction: the payment recorded, the books granted (the library's
 * `grantBooks`), the cart emptied of them (the cart's `removeBooks`), the invoice issued (dated now, numbered in
 * this transaction: decision 037) and the receipt queued with the invoice's PDF attached. An order the seller's
 * identity is not set up to invoice yet is paid all the same, without an invoice (`afterPaid` warns; the back
 * office can issue it later). An order of 0 (a 100 % coupon) is invoiced too: the invoice records the sale at
 * 0 with its VAT of 0, the buyer gets the same papers as any other, and the series stays one record of every
 * sale (the invoices feature accepts 0). Once the transaction has committed, the caller forgets the cart
 * (`forgetCarts`) and calls `afterPaid`.
 */
export async function markPaid(
  tx: Tx,
  orderId: string,
  payment: { reference: string; card?: PaidCard | null; orderUrl: string },
) {
  const paidAt = new Date()
  const [order] = await tx
    .update(orders)
    .set({
      status: 'paid',
      paidAt,
      paymentReference: payment.reference,
      ...(payment.card && {
        cardBrand: payment.card.brand,
        cardLast4: payment.card.last4,
        cardCountry: payment.card.country,
        // The card's country is the third piece of evidence (features/tax/evidence.ts): a buyer who confirmed
        // a billing country their connection did not suggest is settled by a card from that country.
        ...(payment.card.country && {
          evidenceStatus: sql`case when ${orders.evidenceStatus} = 'buyer-confirmed' and ${orders.billingCountry} = ${payment.card.country} then 'two-agree' else ${orders.evidenceStatus} end`,
        }),
      }),
    })
    .where(eq(orders.id, orderId))
    .returning({
      userId: orders.userId,
      number: orders.number,
      totalCents: orders.totalCents,
      currency: orders.currency,
      couponCode: orders.couponCode,
      discountCents: orders.discountCents,
    })
  const lines = await tx
    .select({
      bookId: orderItems.bookId,
      title: orderItems.title,
      priceCents: orderItems.priceCents,
      listPriceCents: orderItems.listPriceCents,
      discountCents: orderItems.discountCents,
      bundleTitle: bundles.title,
    })
    .from(orderItems)
    .leftJoin(bundles, eq(bundles.id, orderItems.bundleId))
    .where(eq(orderItems.orderId, orderId))
  const bookIds = lines.map((line) => line.bookId)
  // A gift's books go to nobody yet: the recipient's mail is queued for its day, with the claim link.
  const gift = await activatePaidGift(tx, orderId, payment.orderUrl)
  const granted = gift ? bookIds : await grantBooks(tx, { userId: order!.userId, orderId, bookIds })
  const cartId = gift ? undefined : await removeBooks(tx, order!.userId, bookIds)
  // The coupon did its work: the next order does not try it again.
  if (cartId && order!.couponCode) await clearCartCoupon(tx, cartId)
  const [buyer] = await tx.select({ email: user.email }).from(user).where(eq(user.id, order!.userId))
  // Last but the receipt that carries it: the invoice series stays locked until the commit.
  const invoiced = await invoiceOrder(tx, orderId, paidAt)
  const invoice = invoiced.ok ? await invoiceAttachment(tx, invoiced.invoice.id) : null
  await enqueueEmail(tx, {
    kind: 'receipt',
    subjectKey: orderId,
    to: buyer!.email,
    ...receiptEmail(
      {
        number: order!.number,
        lines,
        totalCents: order!.totalCents,
        discountCents: order!.discountCents,
        couponCode: order!.couponCode,
        currency: order!.currency,
        orderUrl: payment.orderUrl,
        giftFor: gift ? gift.recipientEmail : null,
        invoiceFile: invoice?.fileName ?? null,
      },
      await readSeller(tx),
    ),
    attachments: invoice ? [invoice] : [],
  })
  return {
    /** Books of this order the buyer owned already (paid for twice: only a redirect provider can get here). */
    alreadyOwned: lines.length - granted.length,
    /** The buyer's cart, which the caller forgets (`forgetCarts`) once the transaction has committed. */
    cartId,
  }
}

/**
 * What follows a payment once it has committed, whichever way it came (the card form, a provider's webhook,
 * an order of 0): the outbox is asked to send the receipt now, the purchase is counted for the analytics, and
 * an order paid without an invoice is logged for the operator, once (this runs once per order paid).
 */
export function afterPaid(
  app: Pick<AppContext, 'db' | 'logger' | 'kickOutbox' | 'analytics'>,
  orderId: string,
) {
  app.kickOutbox()
  recordPurchase(app, orderId)
  void explainMissingInvoice(app.db, orderId).then(
    (missing) => {
      if (missing) app.logger.warn({ orderId, ...missing }, 'order paid without an invoice')
    },
    (error: unknown) =>
      app.logger.error({ err: error, orderId }, 'could not tell whether a paid order has its invoice'),
  )
}

/**
 * A redirect provider confirmed the payment (Stripe's signed webhook): the order is marked paid, its books
 * granted, the cart emptied of them and the receipt queued, in one transaction. Only the payment this order
 * was sent to pay counts: a reference other than the one recorded by `setPaymentReference` (an unknown or
 * older Checkout Session) changes nothing. Idempotent: a replayed confirmation finds the order paid and
 * changes nothing.
 */
export async function completePaidOrder(
  db: Db,
  input: { orderId: string; reference: string; orderUrl: string; card?: PaidCard | null },
): Promise<'paid' | 'paid-twice' | 'already-paid' | 'not-pending' | 'not-found' | 'unknown-reference'> {
  let cartId: string | undefined
  const outcome = await db.transaction(async (tx) => {
    const status = await lockOrderStatus(tx, input)
    if (status === 'not-found' || status === 'unknown-reference') return status
    if (status === 'paid') return 'already-paid' as const
    if (status !== 'pending') return 'not-pending' as const
    const paid = await markPaid(tx, input.orderId, {
      reference: input.reference,
      card: input.card,
      orderUrl: input.orderUrl,
    })
    cartId = paid.cartId
    // Two Checkout Sessions for the same book, both paid (two tabs): the order stands, someone must refund.
    return paid.alreadyOwned > 0 ? ('paid-twice' as const) : ('paid' as const)
  })
  if (cartId) forgetCarts(db, cartId)
  return outcome
}

/**
 * A redirect provider says a pending order will not be paid (its Checkout Session expired, or a delayed
 * payment failed): the order is marked failed, so that the same cart may be checked out again as a new
 * order. Nothing else changes: the cart was never touched. As with `completePaidOrder`, only the payment
 * this order was sent to pay counts.
 */
export async function failPendingOrder(
  db: Db,
  input: { orderId: string; reference: string; reason: string },
): Promise<'failed' | 'not-pending' | 'not-found' | 'unknown-reference'> {
  return db.transaction(async (tx) => {
    const status = await lockOrderStatus(tx, input)
    if (status === 'not-found' || status === 'unknown-reference') return status
    if (status !== 'pending') return 'not-pending' as const
    await tx
      .update(orders)
      .set({ status: 'failed', failureReason: input.reason })
      .where(eq(orders.id, input.orderId))
    // Closed unpaid: the coupon's use, if any, is free for another order.
    await releaseCoupon(tx, input.orderId)
    return 'failed' as const
  })
}

/**
 * The order a redirect provider's event names, locked until the transaction ends, and its status: or
 * 'unknown-reference' when the event is about another payment than the one this order was sent to pay (an
 * unknown or older Checkout Session, see `setPaymentReference`).
 */
async function lockOrderStatus(
  tx: Tx,
  event: { orderId: string; reference: string },
): Promise<OrderStatus | 'not-found' | 'unknown-reference'> {
  const [order] = await tx
    .select({ status: orders.status, paymentReference: orders.paymentReference })
    .from(orders)
    .where(eq(orders.id, event.orderId))
    .for('update')
  if (!order) return 'not-found'
  if (order.paymentReference !== event.reference) return 'unknown-reference'
  return order.status
}

/**
 * A redirect provider's webhook (docs/decisions/009-stripe-checkout.md): only a correctly signed, recent
 * event is read: anything else is 'refused' and changes nothing. A verified event is applied and logged
 * whatever it names: an order paid, one that ended unpaid, a refund confirmed or failed, or nothing the store
 * acts on. A failure of our own (the database down) is thrown.
 */
export async function receivePaymentWebhook(
  app: Pick<AppContext, 'db' | 'env' | 'logger' | 'kickOutbox' | 'analytics'>,
  provider: Extract<PaymentProvider, { kind: 'redirect' }>,
  payload: string,
  signature: string | null,
): Promise<'refused' | 'received'> {
  const webhook = await provider.readWebhook(payload, signature)
  if (!webhook.ok) {
    app.logger.warn({ reason: webhook.message }, 'stripe webhook refused')
    return 'refused'
  }
  const { effect, eventId, eventType } = webhook
  const log = { eventId, eventType, ...effect }
  if (effect.kind === 'ignored') {
    app.logger.info(log, 'stripe webhook ignored')
  } else if (effect.kind === 'paid') {
    const outcome = await completePaidOrder(app.db, {
      orderId: effect.orderId,
      reference: effect.reference,
      card: effect.card,
      orderUrl: orderUrl(app.env.publicUrl, effect.orderId),
    })
    if (outcome === 'paid' || outcome === 'paid-twice') afterPaid(app, effect.orderId)
    // Paid all the same; the order lacks the card's brand and country (tax evidence) for the owner to see.
    if (!effect.card) app.logger.warn(log, 'stripe payment: the card could not be read')
    if (outcome === 'paid' || outcome === 'already-paid')
      app.logger.info({ ...log, outcome }, 'stripe payment')
    // The buyer paid for a book they already owned (two Checkout tabs paid): refund it by hand.
    else if (outcome === 'paid-twice')
      app.logger.error({ ...log, outcome }, 'stripe payment for books the buyer already owns: refund needed')
    // Money was taken for an order we will not fulfil as it stands: someone must grant or refund it by hand.
    else if (outcome === 'not-pending')
      app.logger.error({ ...log, outcome }, 'stripe payment for an order that is not pending')
    else app.logger.warn({ ...log, outcome }, 'stripe payment for an unknown order or session ignored')
  } else if (effect.kind === 'refunded') {
    // A refund asked for in the back office, or made in Stripe's dashboard (decision 014).
    const outcome = await confirmRefund(app.db, {
      ...effect,
      orderUrl: orderUrl(app.env.publicUrl, effect.orderId),
    })
    if (outcome === 'refunded') app.kickOutbox()
    if (outcome === 'not-paid')
      app.logger.error({ ...log, outcome }, 'stripe refund for an order that is not paid: check it by hand')
    // Stripe gave back more than the store recorded, and the event does not say which refund: the refund's own
    // event (refund.created) records it; without that event subscribed, or for more than is left, nothing does.
    else if (outcome === 'partial')
      app.logger.error(
        { ...log, outcome },
        'stripe refund of part of an order not recorded: check that refund.created is sent, or record it by hand',
      )
    else app.logger.info({ ...log, outcome }, 'stripe refund')
  } else if (effect.kind === 'refund-failed') {
    const outcome = await failRefund(app.db, effect)
    // The buyer still has the books and has not had the money: someone should look at it.
    app.logger.error({ ...log, outcome }, 'stripe refund failed; the order can be refunded again')
  } else {
    const outcome = await failPendingOrder(app.db, effect)
    app.logger.info({ ...log, outcome }, 'stripe checkout ended unpaid')
  }
  return 'received'
}
