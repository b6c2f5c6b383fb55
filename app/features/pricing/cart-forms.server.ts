import { eq } from 'drizzle-orm'
import type { BookLine } from '#app/features/cart/book-line.ts'
import { listCartBundleBooks } from '#app/features/cart/cart-bundles.server.ts'
import { recordEvent } from '#app/features/analytics/record.server.ts'
import {
  CartError,
  cartProblemMessages,
  chooseAmount,
  listCartLines,
  setCartCoupon,
} from '#app/features/cart/cart.server.ts'
import { findExistingVisitorCart, requireVisitorCart } from '#app/features/cart/visitor-cart.server.ts'
import { isUuid } from '#app/features/catalog/admin-books.server.ts'
import { listOwnedBookIds } from '#app/features/library/library.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { carts, coupons } from '#app/server/db/schema/index.server.ts'
import { bundleLinesOf } from './cart-bundles.server.ts'
import { priceLines, type PricedLines } from './cart-pricing.server.ts'
import {
  couponColumns,
  couponMessages,
  couponOfRow,
  lookUpCoupon,
  type CouponRefusal,
} from './coupons.server.ts'
import { parseChosenAmount } from './pay-what-you-want.ts'
import { readPwywBook } from './pay-what-you-want.server.ts'

/**
 * The cart page's pricing (issue 30): its lines priced with its coupon, and the forms that change them — a
 * coupon code applied or taken off, a pay-what-you-want book's amount chosen on its page. Each form comes to an
 * answer the route sends as it is: data with a status, or a redirect; with the visitor's new cart cookie.
 */

export type FormAnswer = { setCookie?: string } & (
  { kind: 'data'; status: number; body: Record<string, unknown> } | { kind: 'redirect'; location: string }
)

type Visitor = { request: Request; app: AppContext; userId: string | undefined }

/**
 * The visitor's cart (`cartId`, if they have one) priced with its coupon: the coupon and the buyer's use of it
 * read with the cart's row, in one query. In the buyer's `currency` (features/currency) where every line has a
 * price in it.
 */
export async function readCartPricing(
  db: Db,
  cartId: string | undefined,
  userId: string | null,
  currency?: string,
): Promise<CartPricing> {
  if (!cartId)
    return { ...(await priceLines(db, userId, [], null, { found: null, currency })), bundlesNotSold: [] }
  const [[cart], lines, bundleRows] = await Promise.all([
    db
      .select({ couponCode: carts.couponCode, ...couponColumns(userId) })
      .from(carts)
      .leftJoin(coupons, eq(coupons.code, carts.couponCode))
      .where(eq(carts.id, cartId)),
    listCartLines(db, cartId),
    listCartBundleBooks(db, cartId, userId),
  ])
  // What the buyer owns changes what a bundle costs them (decision 033).
  const bundled = bundleLinesOf(bundleRows, new Set(lines.map((line) => line.bookId)))
  const priced = await priceLines(db, userId, [...lines, ...bundled.lines], cart?.couponCode ?? null, {
    found: cart ? couponOfRow(cart, userId) : null,
    currency,
  })
  return {
    ...priced,
    bundlesNotSold: [
      ...bundled.unavailable.map((line) => ({ ...line, why: 'unavailable' as const })),
      ...bundled.covered.map((line) => ({ ...line, why: 'owned' as const })),
    ],
  }
}

/** A cart's pricing, and its bundles that are not sold: out of the store, or all their books the buyer's. */
export type CartPricing = PricedLines & { bundlesNotSold: (BookLine & { why: 'unavailable' | 'owned' })[] }

/** Why a coupon link (`/c/<CODE>`, sent back with `?couponError=`) could not be used, or null. */
export function couponLinkMessage(reason: string | null): string | null {
  return reason && reason in couponMessages ? couponMessages[reason as CouponRefusal] : null
}

/** The cart's coupon form: a code applied to the visitor's cart (made if need be), or taken off it. */
export async function answerCouponForm(visitor: Visitor, form: FormData): Promise<FormAnswer> {
  const { request, app, userId } = visitor
  if (form.get('intent') === 'remove-coupon') {
    const cart = await findExistingVisitorCart(request, app, userId)
    if (cart) await setCartCoupon(app.db, cart.cartId, null)
    return { kind: 'data', status: 200, body: { couponNotice: 'The coupon was removed from your cart.' } }
  }
  const found = await lookUpCoupon(app.db, form.get('couponCode'), app.clientIp)
  if (!found.ok) {
    return {
      kind: 'data',
      status: found.reason === 'too-many-tries' ? 429 : 400,
      body: {
        couponError: couponMessages[found.reason],
        couponCode: String(form.get('couponCode') ?? '').slice(0, 40),
      },
    }
  }
  const { cartId, setCookie } = await requireVisitorCart(request, app, userId)
  await setCartCoupon(app.db, cartId, found.coupon.code)
  return {
    kind: 'data',
    status: 200,
    body: { couponNotice: `Coupon ${found.coupon.code} is on your cart.` },
    setCookie,
  }
}

/**
 * A pay-what-you-want book's form (its page, with or without JavaScript): the book goes in the cart at the
 * amount chosen (or its amount changes) and the reader lands on the cart; an amount that cannot be taken sends
 * them back to the book's form with the reason and what they typed, nothing written.
 */
export async function answerChosenAmount(visitor: Visitor, form: FormData): Promise<FormAnswer> {
  const { request, app, userId } = visitor
  const bookId = String(form.get('bookId') ?? '')
  const book = isUuid(bookId) ? await readPwywBook(app.db, bookId) : null
  if (!book) return { kind: 'data', status: 400, body: { error: cartProblemMessages['unknown-book'] } }
  const chosen = parseChosenAmount(form.get('amount'), book)
  if (!chosen.ok) {
    const typed = String(form.get('amount') ?? '').slice(0, 12)
    const query = new URLSearchParams({ pwywError: chosen.problem, amount: typed })
    return { kind: 'redirect', location: `/books/${book.slug}?${query}#pay-what-you-want` }
  }
  if (userId && (await listOwnedBookIds(app.db, userId)).includes(bookId))
    return {
      kind: 'data',
      status: 400,
      body: { error: 'You already own this eBook: it is in your library.' },
    }
  let setCookie: string | undefined
  try {
    const cart = await requireVisitorCart(request, app, userId)
    setCookie = cart.setCookie
    await chooseAmount(app.db, cart.cartId, bookId, chosen.cents)
  } catch (error) {
    if (error instanceof CartError) return { kind: 'data', status: 400, body: { error: error.message } }
    throw error
  }
  recordEvent(app, request, { name: 'add_to_cart', bookId })
  return { kind: 'redirect', location: `/cart#book-${bookId}`, setCookie }
}
