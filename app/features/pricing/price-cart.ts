/**
 * The one price computation (issue 30): the lines of a cart at their list prices, and a coupon's terms, give
 * each line's discount and paid price and the order's total, in integer cents. Checkout stores what this
 * returns on the order (each line's list price, discount and paid price); receipts, the library, refunds and
 * analytics read those and never compute a price again.
 *
 * The rules (decision 033):
 * 1. A coupon applies to its eligible lines: every line, or those whose book it names or which are in a topic
 *    it names. Lines it does not apply to are paid at list price.
 * 2. A minimum order is compared with the list price of the whole cart; below it, nothing is discounted. The
 *    minimum is an amount in the coupon's currency: a cart with a line in another currency (an EUR cart and a
 *    coupon for orders of $20 or more) is not compared with it, and nothing is discounted (decision 040).
 * 3. A percentage coupon takes that percentage of each eligible line, rounded to the nearest cent, halves up
 *    (a 15 % coupon on $9.99 takes $1.50). At most 100 %, so a line is never below 0.
 * 4. An amount coupon takes its amount from the eligible lines together, never more than their sum, shared in
 *    proportion to their list prices: each line first gets the whole cents of its share, and the cents left
 *    over go one each to the lines with the largest remainders (the earlier line first on a tie). It applies
 *    only to lines priced in its currency.
 * 5. One coupon per order: discounts never stack. Every line's discount is between 0 and its list price, and
 *    the total is the sum of the paid lines.
 */
import { shareInProportion } from './share.ts'

export type PricingLine = {
  bookId: string
  listCents: number
  currency: string
  /** The ids of the book's topics, for a coupon on topics. */
  topicIds?: readonly string[]
}

export type CouponTerms = {
  kind: 'percent' | 'amount'
  /** A percentage (1–100) or an amount in cents. */
  value: number
  /** For an amount coupon: its currency. */
  currency: string
  /** The books and topics it is limited to; both empty: every book. */
  bookIds: readonly string[]
  topicIds: readonly string[]
  minOrderCents: number
}

export type PricedLine = {
  bookId: string
  listCents: number
  discountCents: number
  paidCents: number
}

/** Why a coupon took nothing off this cart (the cart page says it next to the code). */
export type NotApplied = 'below-minimum' | 'no-eligible-books' | 'other-currency'

export type PricedCart = {
  lines: PricedLine[]
  listCents: number
  discountCents: number
  totalCents: number
  /** Set when a coupon was given and took nothing off. */
  notApplied?: NotApplied
}

export function priceCart(lines: readonly PricingLine[], coupon?: CouponTerms | null): PricedCart {
  const discounts = coupon ? discountsOf(lines, coupon) : { cents: lines.map(() => 0) }
  const priced = lines.map((line, index) => {
    const discountCents = discounts.cents[index]!
    return {
      bookId: line.bookId,
      listCents: line.listCents,
      discountCents,
      paidCents: line.listCents - discountCents,
    }
  })
  const sum = (pick: (line: PricedLine) => number) => priced.reduce((total, line) => total + pick(line), 0)
  return {
    lines: priced,
    listCents: sum((line) => line.listCents),
    discountCents: sum((line) => line.discountCents),
    totalCents: sum((line) => line.paidCents),
    ...('notApplied' in discounts && discounts.notApplied ? { notApplied: discounts.notApplied } : {}),
  }
}

function discountsOf(
  lines: readonly PricingLine[],
  coupon: CouponTerms,
): { cents: number[]; notApplied?: NotApplied } {
  const none = (notApplied: NotApplied) => ({ cents: lines.map(() => 0), notApplied })
  const listTotal = lines.reduce((total, line) => total + line.listCents, 0)
  if (coupon.minOrderCents > 0 && lines.some((line) => line.currency !== coupon.currency))
    return none('other-currency')
  if (listTotal < coupon.minOrderCents) return none('below-minimum')
  const eligible = lines.map((line) => isEligible(line, coupon))
  if (!eligible.some(Boolean)) return none('no-eligible-books')

  if (coupon.kind === 'percent') {
    const percent = Math.min(100, Math.max(0, coupon.value))
    return {
      cents: lines.map((line, index) =>
        eligible[index] ? Math.min(line.listCents, Math.floor((line.listCents * percent + 50) / 100)) : 0,
      ),
    }
  }

  const inCurrency = lines.map((line, index) => eligible[index]! && line.currency === coupon.currency)
  if (!inCurrency.some(Boolean)) return none('other-currency')
  const base = lines.reduce((total, line, index) => total + (inCurrency[index] ? line.listCents : 0), 0)
  const amount = Math.min(Math.max(0, coupon.value), base)
  if (base === 0 || amount === 0) return { cents: lines.map(() => 0) }
  return {
    cents: shareInProportion(
      amount,
      lines.map((line, index) => (inCurrency[index] ? line.listCents : 0)),
    ),
  }
}

function isEligible(line: PricingLine, coupon: CouponTerms): boolean {
  if (coupon.bookIds.length === 0 && coupon.topicIds.length === 0) return true
  if (coupon.bookIds.includes(line.bookId)) return true
  return (line.topicIds ?? []).some((topicId) => coupon.topicIds.includes(topicId))
}
