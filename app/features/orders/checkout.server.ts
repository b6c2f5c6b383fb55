import { and, eq, sql, type SQL } from 'drizzle-orm'
import { deleteOwnedCartItems } from '#app/features/cart/cart.server.ts'
import { linkGiftOrder, findGiftDraft } from '#app/features/gifts/gifts.server.ts'
import { claimCoupon, recordRedemption } from '#app/features/pricing/coupons.server.ts'
import type { BuyerTax, CheckoutTax } from '#app/features/tax/checkout-tax.server.ts'
import type { Transaction as Tx } from '#app/server/db/database.server.ts'
import { carts, orderItems, orders, type OrderStatus } from '#app/server/db/schema/index.server.ts'
import { summarizeCart, summarizeGift, type Checkout } from './checkout-summary.server.ts'

/*
 * A checkout becomes an order (`reserveCheckout`, whichever the provider: card-checkout, redirect-checkout and
 * free-checkout call it): the cart or gift locked, summarized again (checkout-summary.server.ts) and compared
 * with the key its page showed, then the order and its lines written, not yet paid.
 */

/**
 * A gift's order, inside the caller's transaction: the gift's row is locked (a second post waits, then finds
 * the order made), and the order made only if the gift still gives the key its page showed.
 */
async function reserveGift(
  tx: Tx,
  input: Parameters<typeof reserveCheckout>[1] & { giftId: string },
): Promise<Reservation> {
  const gift = await findGiftDraft(tx, input.giftId, input.userId, true)
  const existing = await findOrderOfCheckout(tx, input)
  if (existing) return { outcome: 'existing', ...existing, changedCartId: null }
  if (!gift) return { outcome: 'empty-cart', changedCartId: null }
  // Paid already, or waiting on its payment page: that order, never a second one for the same gift.
  if (gift.orderId && gift.orderStatus !== 'failed') {
    const made = await findOrder(tx, input.userId, eq(orders.id, gift.orderId))
    if (made) return { outcome: 'existing', ...made, changedCartId: null }
  }
  const checkout = await summarizeGift(tx, input.userId, input.buyer ?? null, input.currency, gift)
  const refused = (outcome: NothingToBuy) => ({ outcome, changedCartId: null })
  if (checkout.lines.length === 0) return refused('empty-cart')
  if (checkout.idempotencyKey !== input.idempotencyKey) return refused('cart-changed')
  if (input.onlyIfFree && checkout.totalCents > 0) return refused('cart-changed')
  if (checkout.totalCents > 0 && checkout.totalCents < (input.minimumChargeCents ?? 0))
    return refused('below-minimum-charge')
  const orderId = await insertOrder(tx, input.userId, checkout, input.attemptId, input.providerName)
  await linkGiftOrder(tx, gift.id, orderId)
  return { outcome: 'reserved', orderId, checkout, changedCartId: null }
}

/** Why a checkout made no order: nothing left to pay for, not the cart the page showed, or two currencies. */
export type NothingToBuy =
  'empty-cart' | 'cart-changed' | 'mixed-currencies' | 'coupon-used-up' | 'below-minimum-charge'

/** Why a checkout post was refused: the route answers each with its status and the message. */
export type CheckoutRefusal = NothingToBuy | 'declined' | 'closed-unpaid' | 'provider-unreachable'

/** How a checkout post ends, whichever the provider (card-checkout.server.ts, redirect-checkout.server.ts). */
export type CheckoutResult =
  /** Paid now, or made by this attempt or this cart already: the order's page. */
  | { outcome: 'order'; orderId: string }
  /** The provider's own payment page (Stripe Checkout). */
  | { outcome: 'payment-page'; url: string }
  | { outcome: 'refused'; reason: CheckoutRefusal; message: string }

const refusalMessages: Record<Exclude<CheckoutRefusal, 'declined'>, string> = {
  'empty-cart': 'Your cart is empty: there is nothing to pay for.',
  'cart-changed':
    'Your cart or its prices changed since this page was opened, so nothing was charged. Please check your order below and pay again.',
  'mixed-currencies': 'These eBooks are priced in different currencies and cannot be bought together.',
  'below-minimum-charge':
    'Our payment service cannot take a payment under $0.50, and nothing was charged. Please choose a higher amount, or add a book to your order.',
  'coupon-used-up':
    'The last use of your coupon went to another order a moment ago, so nothing was charged. Please check your order below: it is shown without the coupon.',
  'closed-unpaid':
    'That payment page was closed before it was paid, so nothing was charged. Please check your order below and pay again.',
  'provider-unreachable':
    'We could not reach the payment service, and nothing was charged. Please try again.',
}

export function refusedCheckout(reason: Exclude<CheckoutRefusal, 'declined'>): CheckoutResult {
  return { outcome: 'refused', reason, message: refusalMessages[reason] }
}

/** The provider name of an order with nothing to pay: completed at once, no payment asked for. */
export const FREE_ORDER_PROVIDER = 'none'

export type Reservation = {
  /**
   * The cart the books the buyer owns were taken out of: the caller forgets it (`forgetCarts`) once the
   * transaction has committed.
   */
  changedCartId: string | null
} & (
  | /** A new order, not yet paid, made from the cart at today's prices. */
    { outcome: 'reserved'; orderId: string; checkout: Checkout }
    /** The order this attempt, or this cart as it is now, made already: whatever became of it. */
  | { outcome: 'existing'; orderId: string; status: OrderStatus; failureReason: string | null }
  | { outcome: NothingToBuy }
)

/**
 * The one way a checkout becomes an order, whichever the provider, inside the caller's transaction. The
 * buyer's cart is locked (a second checkout of the same cart waits, then finds the order made); the order
 * this attempt or this cart's key made already is answered as it is; books the buyer owns leave the cart; and
 * an order is made, not yet paid, from the catalogue's prices at this moment, only if the cart still gives
 * the key its page showed and is priced in one currency.
 */
export async function reserveCheckout(
  tx: Tx,
  input: {
    userId: string
    idempotencyKey: string
    attemptId: string
    providerName: string
    /** The free checkout's form (no card): refused as changed if the cart now costs something. */
    onlyIfFree?: boolean
    /** The provider's least charge: a total above 0 and below it cannot be paid there (Stripe: $0.50). */
    minimumChargeCents?: number
    /** A gift's checkout: the order pays for this gift of the buyer's, not for their cart. */
    giftId?: string
    /** Where the buyer is (features/tax): the order is taxed for it. None: no tax charged. */
    buyer?: BuyerTax | null
    /** The buyer's currency (features/currency): the order is in it if every line has a price in it. */
    currency?: string
  },
): Promise<Reservation> {
  if (input.giftId) return reserveGift(tx, { ...input, giftId: input.giftId })
  const [cart] = await tx
    .select({ id: carts.id, updatedAt: carts.updatedAt, couponCode: carts.couponCode })
    .from(carts)
    .where(eq(carts.userId, input.userId))
    .for('update')
  const existing = await findOrderOfCheckout(tx, input)
  if (existing) return { outcome: 'existing', ...existing, changedCartId: null }
  if (!cart) return { outcome: 'empty-cart', changedCartId: null }
  const checkout = await summarizeCart(tx, input.userId, cart, {
    buyer: input.buyer ?? null,
    currency: input.currency,
  })
  await deleteOwnedCartItems(tx, cart.id)
  const refused = (outcome: NothingToBuy) => ({ outcome, changedCartId: cart.id })
  if (checkout.lines.length === 0) return refused('empty-cart')
  if (checkout.idempotencyKey !== input.idempotencyKey) {
    // The coupon's last use went to another order since the page was shown: say so, not just 'changed'.
    return refused(checkout.coupon?.reason === 'used-up' ? 'coupon-used-up' : 'cart-changed')
  }
  if (input.onlyIfFree && checkout.totalCents > 0) return refused('cart-changed')
  if (checkout.totalCents > 0 && checkout.totalCents < (input.minimumChargeCents ?? 0))
    return refused('below-minimum-charge')
  if (checkout.lines.some((line) => line.currency !== checkout.currency)) return refused('mixed-currencies')
  // The coupon's use is claimed before anything is written: the last use raced for goes to one order.
  if (checkout.couponId && !(await claimCoupon(tx, checkout.couponId))) return refused('coupon-used-up')
  const orderId = await insertOrder(tx, input.userId, checkout, input.attemptId, input.providerName)
  if (checkout.couponId) {
    await recordRedemption(tx, {
      couponId: checkout.couponId,
      orderId,
      userId: input.userId,
      discountCents: checkout.discountCents,
    })
  }
  return { outcome: 'reserved', orderId, checkout, changedCartId: cart.id }
}

/**
 * The order this attempt made already (whatever became of it), or the live one (not failed) made from the
 * same cart or gift as it is now, from whichever tab: what a repeated checkout post is answered with.
 */
async function findOrderOfCheckout(
  tx: Tx,
  input: { userId: string; attemptId: string; idempotencyKey: string },
) {
  return (
    (await findOrder(tx, input.userId, eq(orders.attemptId, input.attemptId))) ??
    (await findOrder(
      tx,
      input.userId,
      and(eq(orders.idempotencyKey, input.idempotencyKey), sql`${orders.status} <> 'failed'`),
    ))
  )
}

async function findOrder(tx: Tx, userId: string, which: SQL | undefined) {
  const [order] = await tx
    .select({ orderId: orders.id, status: orders.status, failureReason: orders.failureReason })
    .from(orders)
    .where(and(eq(orders.userId, userId), which))
    .limit(1)
  return order
}

async function insertOrder(
  tx: Tx,
  userId: string,
  checkout: Checkout,
  attemptId: string,
  providerName: string,
) {
  const [order] = await tx
    .insert(orders)
    .values({
      userId,
      totalCents: checkout.totalCents,
      discountCents: checkout.discountCents,
      couponCode: checkout.couponId ? checkout.coupon!.code : null,
      currency: checkout.currency,
      netCents: checkout.tax.netCents,
      taxCents: checkout.tax.taxCents,
      taxCountry: checkout.tax.country,
      pricesIncludeTax: checkout.tax.pricesIncludeTax,
      reverseCharge: checkout.tax.reverseCharge,
      buyerVatNumber: checkout.tax.buyer?.reverseChargeVatNumber ?? null,
      billingCountry: checkout.tax.buyer?.billingCountry ?? null,
      billingName: checkout.tax.buyer?.billingName ?? null,
      billingAddress: checkout.tax.buyer?.billingAddress ?? null,
      ipCountry: checkout.tax.buyer?.ipCountry ?? null,
      evidenceStatus: checkout.tax.buyer?.evidenceStatus ?? null,
      idempotencyKey: checkout.idempotencyKey,
      attemptId,
      // Nothing to pay (a 100 % coupon): no provider is asked (card-checkout, redirect-checkout).
      paymentProvider: checkout.totalCents === 0 ? FREE_ORDER_PROVIDER : providerName,
    })
    .returning({ id: orders.id })
  await tx.insert(orderItems).values(
    checkout.lines.map((line, index) => ({
      ...taxColumnsOf(checkout.tax, index),
      orderId: order!.id,
      bookId: line.bookId,
      title: line.title,
      priceCents: line.priceCents,
      listPriceCents: line.listPriceCents,
      discountCents: line.discountCents,
      currency: line.currency,
      bundleId: line.bundle?.id ?? null,
    })),
  )
  return order!.id
}

function taxColumnsOf(tax: CheckoutTax, index: number) {
  const { rateBp, netCents, taxCents, grossCents } = tax.lines[index]!
  return { taxRateBp: rateBp, netCents, taxCents, grossCents }
}
