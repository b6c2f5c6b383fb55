import crypto from 'node:crypto'
import { and, asc, eq, sql, type SQL } from 'drizzle-orm'
import { cartLineColumns, deleteOwnedCartItems } from '#app/features/cart/cart.server.ts'
import { listCartBundleBooks, type CartBundleRow } from '#app/features/cart/cart-bundles.server.ts'
import { bundleLinesOf } from '#app/features/pricing/cart-bundles.server.ts'
import { findGiftDraft, giftLines, linkGiftOrder } from '#app/features/gifts/gifts.server.ts'
import { priceLines, type PricedLines } from '#app/features/pricing/cart-pricing.server.ts'
import {
  claimCoupon,
  couponColumns,
  couponOfRow,
  recordRedemption,
  type FoundCoupon,
} from '#app/features/pricing/coupons.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import {
  books,
  cartItems,
  carts,
  coupons,
  libraryItems,
  orderItems,
  orders,
  type OrderStatus,
} from '#app/server/db/schema/index.server.ts'
import type { BookLine } from '#app/features/cart/book-line.ts'
import { taxCheckout, type BuyerTax, type CheckoutTax } from '#app/features/tax/checkout-tax.server.ts'

/**
 * The cart's lines priced (`PricedLines`: the lines to pay for, their list prices, the coupon and what it did)
 * and taxed for the buyer's country (`tax`: each line's net, tax and gross, in the lines' order); `totalCents`
 * is what the buyer pays, tax included.
 */
export type Checkout = PricedLines & {
  tax: CheckoutTax
  /** Books in the cart the buyer already owns: taken out at checkout, never charged twice. */
  alreadyOwned: BookLine[]
  /** Books withdrawn from sale since they were put in the cart: not sold, left in the cart. */
  unavailable: BookLine[]
  /**
   * Names this cart as it is now (its id, books and last change): the form carries it, so a double click,
   * a retried post or a second tab on the same cart all name the same order.
   */
  idempotencyKey: string
  /** A gift's checkout (issue 30): for whom, and when it is delivered; its lines are the gift's, not the cart's. */
  gift?: { id: string; recipientEmail: string; recipientName: string; deliverOn: Date }
}

/**
 * What a buyer is about to pay for, and a fresh attempt id for this rendering of the checkout form: posting
 * that form twice (a double click, a retried post) names the same attempt, which is charged at most once.
 * With `giftId`, the buyer's gift (its book or bundle) instead of their cart.
 */
export async function getCheckout(
  db: Db,
  userId: string,
  /** `currency`: the buyer's (features/currency), used where every line has a price in it. */
  options: { giftId?: string; buyer?: BuyerTax | null; currency?: string } = {},
): Promise<Checkout & { attemptId: string }> {
  const attemptId = crypto.randomUUID()
  const buyer = options.buyer ?? null
  const { currency } = options
  if (options.giftId) {
    const gift = await findGiftDraft(db, options.giftId, userId)
    if (!gift) return { ...(await summarize(db, userId, buyer, currency, [], [], null, 'empty')), attemptId }
    return { ...(await summarizeGift(db, userId, buyer, currency, gift)), attemptId }
  }
  // The cart and its coupon (with the buyer's use of it) in one query: a coupon must not slow this page.
  const [cart] = await db
    .select({
      id: carts.id,
      updatedAt: carts.updatedAt,
      couponCode: carts.couponCode,
      ...couponColumns(userId),
    })
    .from(carts)
    .leftJoin(coupons, eq(coupons.code, carts.couponCode))
    .where(eq(carts.userId, userId))
    .limit(1)
  if (!cart) return { ...(await summarize(db, userId, buyer, currency, [], [], null, 'empty')), attemptId }
  const [rows, bundleRows] = await Promise.all([
    readLines(db, userId, cart.id),
    listCartBundleBooks(db, cart.id, userId),
  ])
  return {
    ...(await summarize(
      db,
      userId,
      buyer,
      currency,
      rows,
      bundleRows,
      cart.couponCode,
      (checkout) => idempotencyKeyOf(cart, checkout),
      couponOfRow(cart, userId),
    )),
    attemptId,
  }
}

async function readLines(db: Db | Tx, userId: string, cartId: string) {
  return db
    .select({
      ...cartLineColumns,
      // A book archived (or put back to draft) since it was added is not sold either.
      available: sql<boolean>`${books.available} and ${books.status} = 'published'`,
      owned: sql<boolean>`exists (select 1 from ${libraryItems} where ${libraryItems.userId} = ${userId} and ${libraryItems.bookId} = ${books.id})`,
    })
    .from(cartItems)
    .innerJoin(books, eq(books.id, cartItems.bookId))
    .where(eq(cartItems.cartId, cartId))
    .orderBy(asc(cartItems.addedAt), asc(books.title))
}

type CartRow = BookLine & { owned: boolean; available: boolean }

/**
 * The cart's rows as a checkout: the lines to pay for (not owned, still for sale) priced by `features/pricing`
 * with the cart's coupon, if this buyer may use it now.
 */
async function summarize(
  db: Db | Tx,
  userId: string,
  buyer: BuyerTax | null,
  currency: string | undefined,
  rows: CartRow[],
  bundleRows: CartBundleRow[],
  couponCode: string | null,
  idempotencyKey: string | ((checkout: Omit<Checkout, 'idempotencyKey'>) => string),
  /** The cart's coupon, when its query read it already. */
  found?: FoundCoupon | null,
): Promise<Checkout> {
  const strip = ({ owned: _owned, available: _available, ...line }: CartRow): BookLine => line
  const forSale = rows.filter((row) => !row.owned && row.available).map(strip)
  // A bundle's books at their shares of what it costs this buyer (a book a line of its own brings counts as theirs).
  const bundled = bundleLinesOf(bundleRows, new Set(forSale.map((line) => line.bookId)))
  const priced = await priceLines(db, userId, [...forSale, ...bundled.lines], couponCode, { found, currency })
  const tax = await taxCheckout(
    db,
    priced.lines.map((line) => line.priceCents),
    buyer,
    new Date(),
  )
  const checkout = {
    ...priced,
    totalCents: tax.grossCents,
    tax,
    alreadyOwned: [...rows.filter((row) => row.owned).map(strip), ...bundled.covered],
    unavailable: [...rows.filter((row) => !row.owned && !row.available).map(strip), ...bundled.unavailable],
  }
  return {
    ...checkout,
    idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : idempotencyKey(checkout),
  }
}

/**
 * The checkout's identity: the cart, the books to be paid for with their prices (as paid, after the coupon),
 * the coupon, and the cart's last change. The form carries it; an order is made only if the cart still gives
 * the same key, so a buyer is never charged for another cart or price than the page showed (a book added in
 * another tab, a price changed, a coupon that no longer applies).
 */
function idempotencyKeyOf(
  cart: { id: string; updatedAt: Date },
  checkout: Pick<Checkout, 'lines' | 'couponId' | 'tax'>,
) {
  const books = checkout.lines.map((line) => `${line.bookId}:${line.priceCents}:${line.currency}`).toSorted()
  return crypto
    .createHash('sha256')
    .update(
      `${cart.id}|${books.join(',')}|${checkout.couponId ?? ''}|${cart.updatedAt.toISOString()}|${taxKeyOf(checkout.tax)}`,
    )
    .digest('base64url')
}

/**
 * The tax a page showed, as part of its checkout's key: a rate that changed at midnight since, another billing
 * country, or the owner switching prices to before tax makes the post a changed cart, never another charge.
 */
function taxKeyOf(tax: CheckoutTax) {
  return `${tax.country ?? '-'}:${tax.rateBp}:${tax.pricesIncludeTax ? 'incl' : 'excl'}:${tax.reverseCharge ? 'rc' : ''}`
}

type GiftDraftRow = NonNullable<Awaited<ReturnType<typeof findGiftDraft>>>

/** A gift's checkout: its lines at today's prices (no coupon: a coupon is for the buyer's own cart). */
async function summarizeGift(
  db: Db | Tx,
  userId: string,
  buyer: BuyerTax | null,
  currency: string | undefined,
  gift: GiftDraftRow,
): Promise<Checkout> {
  const priced = await priceLines(db, userId, await giftLines(db, gift), null, { found: null, currency })
  // The buyer pays, so the buyer's country is taxed (the recipient's is not known).
  const tax = await taxCheckout(
    db,
    priced.lines.map((line) => line.priceCents),
    buyer,
    new Date(),
  )
  const books = priced.lines.map((line) => `${line.bookId}:${line.priceCents}:${line.currency}`).toSorted()
  const idempotencyKey = crypto
    .createHash('sha256')
    .update(`gift|${gift.id}|${books.join(',')}|${gift.updatedAt.toISOString()}|${taxKeyOf(tax)}`)
    .digest('base64url')
  const { id, recipientEmail, recipientName, deliverOn } = gift
  return {
    ...priced,
    totalCents: tax.grossCents,
    tax,
    alreadyOwned: [],
    unavailable: [],
    idempotencyKey,
    gift: { id, recipientEmail, recipientName, deliverOn },
  }
}

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
  const checkout = await summarize(
    tx,
    input.userId,
    input.buyer ?? null,
    input.currency,
    await readLines(tx, input.userId, cart.id),
    await listCartBundleBooks(tx, cart.id, input.userId),
    cart.couponCode,
    input.idempotencyKey,
  )
  await deleteOwnedCartItems(tx, cart.id)
  const refused = (outcome: NothingToBuy) => ({ outcome, changedCartId: cart.id })
  if (checkout.lines.length === 0) return refused('empty-cart')
  if (idempotencyKeyOf(cart, checkout) !== input.idempotencyKey) {
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
