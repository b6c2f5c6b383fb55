import crypto from 'node:crypto'
import { asc, eq, sql } from 'drizzle-orm'
import { cartLineColumns } from '#app/features/cart/cart.server.ts'
import { listCartBundleBooks, type CartBundleRow } from '#app/features/cart/cart-bundles.server.ts'
import type { BookLine } from '#app/features/cart/book-line.ts'
import { findGiftDraft, giftLines } from '#app/features/gifts/gifts.server.ts'
import { bundleLinesOf } from '#app/features/pricing/cart-bundles.server.ts'
import { priceLines, type PricedLines } from '#app/features/pricing/cart-pricing.server.ts'
import { couponColumns, couponOfRow, type FoundCoupon } from '#app/features/pricing/coupons.server.ts'
import { taxCheckout, type BuyerTax, type CheckoutTax } from '#app/features/tax/checkout-tax.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { books, cartItems, carts, coupons, libraryItems } from '#app/server/db/schema/index.server.ts'

/*
 * What a buyer is about to pay for (the checkout page, and the order reserved from it: checkout.server.ts): the
 * cart's or a gift's lines priced (features/pricing), taxed for the buyer's country (features/tax), with the
 * key that names them as they are.
 */

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

/**
 * The buyer's cart as a checkout now, inside the caller's transaction (reserving it as an order): its key is
 * the cart's as it is, which the caller compares with the key the page showed.
 */
export async function summarizeCart(
  tx: Tx,
  userId: string,
  cart: { id: string; updatedAt: Date; couponCode: string | null },
  options: { buyer: BuyerTax | null; currency?: string },
): Promise<Checkout> {
  return summarize(
    tx,
    userId,
    options.buyer,
    options.currency,
    await readLines(tx, userId, cart.id),
    await listCartBundleBooks(tx, cart.id, userId),
    cart.couponCode,
    (checkout) => idempotencyKeyOf(cart, checkout),
  )
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
export async function summarizeGift(
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
