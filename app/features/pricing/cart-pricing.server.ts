import type { BookLine } from '#app/features/cart/book-line.ts'
import type { CartCoupon } from './cart-coupon.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { CurrencyFallback } from '#app/features/currency/currencies.ts'
import { priceInCurrency } from '#app/features/currency/cart-currency.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  checkCouponFor,
  couponMessages,
  findCoupon,
  type FoundCoupon,
  notAppliedMessages,
  priceWithCoupon,
  type Coupon,
} from './coupons.server.ts'

/** A line to pay for: `priceCents` is what is paid, its list price less the coupon's discount. */
export type PricedBookLine = BookLine & { listPriceCents: number; discountCents: number }

export type { CartCoupon }

export type PricedLines = {
  lines: PricedBookLine[]
  listCents: number
  discountCents: number
  totalCents: number
  currency: string
  coupon: CartCoupon | null
  /** The coupon that priced the lines (null when none took anything off): claimed when the order is made. */
  couponId: string | null
  /** Set when the buyer's currency could not price every line, so they are in their own (decision 040). */
  currencyFallback: CurrencyFallback | null
}

/**
 * A cart's books for sale, priced with its coupon if the visitor may use it now: the cart page (a guest's
 * too: the per-account rules wait for checkout) and the checkout show, and the order stores, these prices.
 * With `currency` (the buyer's, features/currency), in that currency if every line has a price in it.
 */
export async function priceLines(
  db: Db | Transaction,
  userId: string | null,
  cartLines: readonly BookLine[],
  couponCode: string | null,
  options: { now?: Date; found?: FoundCoupon | null; currency?: string } = {},
): Promise<PricedLines> {
  const now = options.now ?? new Date()
  const inCurrency = options.currency
    ? await priceInCurrency(db, cartLines, options.currency)
    : { lines: cartLines, fallback: null }
  const forSale = inCurrency.lines
  const currency = forSale[0]?.currency ?? options.currency ?? 'USD'
  // Read with the cart already (the checkout page's one query), or here.
  const found =
    options.found !== undefined ? options.found : couponCode ? await findCoupon(db, couponCode, userId) : null
  const refusal = couponCode ? (found ? checkCouponFor(found, now) : 'unknown') : null
  const usable: Coupon | null = found && !refusal ? found : null
  const priced = await priceWithCoupon(
    db,
    forSale.map((line) => ({ bookId: line.bookId, listCents: line.priceCents, currency: line.currency })),
    usable,
  )
  const lines = forSale.map((line, index) => {
    const { listCents, discountCents, paidCents } = priced.lines[index]!
    return { ...line, priceCents: paidCents, listPriceCents: listCents, discountCents }
  })
  const message = refusal
    ? couponMessages[refusal]
    : priced.notApplied === 'below-minimum'
      ? notAppliedMessages['below-minimum'](formatPrice(usable!.terms.minOrderCents, usable!.terms.currency))
      : priced.notApplied
        ? notAppliedMessages[priced.notApplied]
        : null
  return {
    lines,
    listCents: priced.listCents,
    discountCents: priced.discountCents,
    totalCents: priced.totalCents,
    currency,
    coupon: couponCode
      ? {
          code: couponCode,
          applied: priced.discountCents > 0,
          message,
          reason: refusal ?? priced.notApplied ?? null,
        }
      : null,
    couponId: usable && priced.discountCents > 0 ? usable.id : null,
    currencyFallback: inCurrency.fallback,
  }
}
