import { and, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  bookTopics,
  couponBooks,
  couponRedemptions,
  coupons,
  couponTopics,
  orders,
} from '#app/server/db/schema/index.server.ts'
import { hitRateLimit, ipSubject, peekRateLimit, type RateLimitRule } from '#app/server/rate-limit.server.ts'
import { priceCart, type CouponTerms, type PricedCart, type PricingLine } from './price-cart.ts'

/**
 * Coupons (issue 30): found by their code (any case), checked against their dates, limits and the buyer, and
 * claimed inside the order's transaction — `redeemed < max_redemptions` in the same UPDATE that counts the claim,
 * so two buyers racing for the last use get one order and one message. A claim is given back when its order
 * fails unpaid.
 */

/** Codes are letters, digits, '-' and '_', 3 to 32 of them, compared in upper case. */
export const couponCodePattern = /^[A-Z0-9][A-Z0-9_-]{2,31}$/

export function normalizeCouponCode(raw: unknown): string | null {
  if (typeof raw !== 'string') return null
  const code = raw.trim().toUpperCase()
  return couponCodePattern.test(code) ? code : null
}

export type Coupon = {
  id: string
  code: string
  terms: CouponTerms
  startsAt: Date | null
  endsAt: Date | null
  maxRedemptions: number | null
  perAccountLimit: number | null
  firstPurchaseOnly: boolean
  redeemed: number
  active: boolean
}

export type CouponRefusal =
  'unknown' | 'not-started' | 'expired' | 'used-up' | 'per-account' | 'first-purchase' | 'too-many-tries'

export const couponMessages: Record<CouponRefusal, string> = {
  unknown: 'We do not know that coupon code. Please check its spelling.',
  'not-started': 'That coupon is not valid yet.',
  expired: 'That coupon has expired.',
  'used-up': 'That coupon has been used as many times as it can be.',
  'per-account': 'You have already used that coupon as many times as it allows.',
  'first-purchase': 'That coupon is for a first purchase only.',
  'too-many-tries': 'Too many coupon codes tried. Please wait a few minutes and try again.',
}

export const notAppliedMessages = {
  'below-minimum': (minimum: string) => `This coupon needs an order of at least ${minimum}.`,
  'no-eligible-books': 'This coupon is not for the books in your cart.',
  'other-currency': 'This coupon is not for the currency of your cart.',
} as const

/** Unknown codes tried from one address: 20 in 15 minutes, then refused, so codes cannot be guessed. */
export const couponGuesses: RateLimitRule = { name: 'coupon-guesses', limit: 20, windowMs: 15 * 60 * 1000 }

/**
 * The coupon with this code, with its books and topics, in one query; given a buyer, also how often they used it
 * and whether they have bought before (for `checkCouponFor`), in the same query: checkout reads it on every
 * page, and a coupon must not make that page slower (`npm run bench -- --checkout`).
 */
export async function findCoupon(
  db: Db | Transaction,
  code: string,
  userId: string | null = null,
): Promise<FoundCoupon | null> {
  const [row] = await db.select(couponColumns(userId)).from(coupons).where(eq(coupons.code, code))
  return row ? couponOfRow(row, userId) : null
}

export type FoundCoupon = Coupon & { buyer: BuyerHistory | null }

/**
 * The columns `findCoupon` reads, for a query that joins `coupons` (the checkout page reads the cart and its
 * coupon in one query); each subquery only when there is a coupon (a left join's missing row reads nothing).
 */
export function couponColumns(userId: string | null) {
  const when = (query: SQL, otherwise: SQL) =>
    sql`case when ${coupons.id} is null then ${otherwise} else ${query} end`
  return {
    coupon: coupons,
    bookIds: sql<string[]>`${when(
      sql`coalesce((select array_agg(${couponBooks.bookId}::text) from ${couponBooks} where ${couponBooks.couponId} = ${coupons.id}), '{}')`,
      sql`'{}'::text[]`,
    )}`,
    topicIds: sql<string[]>`${when(
      sql`coalesce((select array_agg(${couponTopics.topicId}::text) from ${couponTopics} where ${couponTopics.couponId} = ${coupons.id}), '{}')`,
      sql`'{}'::text[]`,
    )}`,
    usedByBuyer: userId
      ? sql<number>`${when(
          sql`(select count(*) from ${couponRedemptions} where ${couponRedemptions.couponId} = ${coupons.id} and ${couponRedemptions.userId} = ${userId})`,
          sql`0`,
        )}`.mapWith(Number)
      : sql<number>`0`.mapWith(Number),
    buyerHasBought: userId
      ? sql<boolean>`${when(
          sql`exists (select 1 from ${orders} where ${orders.userId} = ${userId} and ${orders.status} in ('paid', 'refunded'))`,
          sql`false`,
        )}`
      : sql<boolean>`false`,
  }
}

type CouponRow = {
  coupon: typeof coupons.$inferSelect | null
  bookIds: string[]
  topicIds: string[]
  usedByBuyer: number
  buyerHasBought: boolean
}

/** The coupon a row of `couponColumns` holds, or null (a left join found none). */
export function couponOfRow(row: CouponRow, userId: string | null): FoundCoupon | null {
  const { coupon } = row
  if (!coupon) return null
  return {
    id: coupon.id,
    code: coupon.code,
    terms: {
      kind: coupon.kind,
      value: coupon.value,
      currency: coupon.currency,
      bookIds: row.bookIds,
      topicIds: row.topicIds,
      minOrderCents: coupon.minOrderCents,
    },
    startsAt: coupon.startsAt,
    endsAt: coupon.endsAt,
    maxRedemptions: coupon.maxRedemptions,
    perAccountLimit: coupon.perAccountLimit,
    firstPurchaseOnly: coupon.firstPurchaseOnly,
    redeemed: coupon.redeemed,
    active: coupon.active,
    buyer: userId ? { uses: row.usedByBuyer, hasBought: row.buyerHasBought } : null,
  }
}

/** What a coupon's per-account rules need to know of a buyer. */
type BuyerHistory = { uses: number; hasBought: boolean }

/**
 * A code typed or followed from a link, looked up for a visitor: unknown codes count against the address's
 * guesses (`couponGuesses`), and once those are used up every code is refused for a while.
 */
export async function lookUpCoupon(
  db: Db,
  rawCode: unknown,
  clientIp: string,
  now = new Date(),
): Promise<{ ok: true; coupon: Coupon } | { ok: false; reason: CouponRefusal }> {
  // Checked first: once the guesses are used up every code is refused alike, so a right guess looks like a
  // wrong one.
  const subject = ipSubject(clientIp)
  if (!(await peekRateLimit(db, couponGuesses, subject, now)).allowed)
    return { ok: false, reason: 'too-many-tries' }
  const code = normalizeCouponCode(rawCode)
  const coupon = code ? await findCoupon(db, code) : null
  if (!coupon || !coupon.active) {
    await hitRateLimit(db, couponGuesses, subject, now)
    return { ok: false, reason: 'unknown' }
  }
  const refusal = checkDates(coupon, now) ?? (isUsedUp(coupon) ? 'used-up' : null)
  return refusal ? { ok: false, reason: refusal } : { ok: true, coupon }
}

function checkDates(coupon: Coupon, now: Date): CouponRefusal | null {
  if (coupon.startsAt && now < coupon.startsAt) return 'not-started'
  if (coupon.endsAt && now >= coupon.endsAt) return 'expired'
  return null
}

function isUsedUp(coupon: Coupon) {
  return coupon.maxRedemptions !== null && coupon.redeemed >= coupon.maxRedemptions
}

/**
 * Whether the buyer `findCoupon` was given may use the coupon now: active, within its dates, not used up,
 * within its per-account limit (orders paid or waiting to be, with it), and for a first-purchase coupon, no
 * paid order yet. Without a buyer (a signed-out visitor's cart) the per-account rules wait for checkout.
 */
export function checkCouponFor(coupon: FoundCoupon, now = new Date()): CouponRefusal | null {
  if (!coupon.active) return 'unknown'
  const refusal = checkDates(coupon, now) ?? (isUsedUp(coupon) ? 'used-up' : null)
  if (refusal || !coupon.buyer) return refusal
  if (coupon.perAccountLimit !== null && coupon.buyer.uses >= coupon.perAccountLimit) return 'per-account'
  if (coupon.firstPurchaseOnly && coupon.buyer.hasBought) return 'first-purchase'
  return null
}

/** The cart's lines priced with the coupon: the topics of its books read when the coupon names topics. */
export async function priceWithCoupon(
  db: Db | Transaction,
  lines: readonly Omit<PricingLine, 'topicIds'>[],
  coupon: Coupon | null,
): Promise<PricedCart> {
  if (!coupon) return priceCart(lines)
  const topicsOf = new Map<string, string[]>()
  if (coupon.terms.topicIds.length > 0 && lines.length > 0) {
    const rows = await db
      .select({ bookId: bookTopics.bookId, topicId: bookTopics.topicId })
      .from(bookTopics)
      .where(
        inArray(
          bookTopics.bookId,
          lines.map((line) => line.bookId),
        ),
      )
    for (const row of rows) topicsOf.set(row.bookId, [...(topicsOf.get(row.bookId) ?? []), row.topicId])
  }
  return priceCart(
    lines.map((line) => ({ ...line, topicIds: topicsOf.get(line.bookId) ?? [] })),
    coupon.terms,
  )
}

/**
 * Claims one use of the coupon, inside the order's transaction and before the order is written: the count goes
 * up only while it is below the maximum (the row's lock makes a racing claim wait, then see the new count).
 * False when the last use went to someone else first.
 */
export async function claimCoupon(tx: Transaction, couponId: string): Promise<boolean> {
  const claimed = await tx
    .update(coupons)
    .set({ redeemed: sql`${coupons.redeemed} + 1` })
    .where(
      and(
        eq(coupons.id, couponId),
        eq(coupons.active, true),
        or(isNull(coupons.maxRedemptions), lt(coupons.redeemed, coupons.maxRedemptions)),
      ),
    )
    .returning({ id: coupons.id })
  return claimed.length > 0
}

/** The order that claimed a use, recorded once it is written (per-account limits count these). */
export async function recordRedemption(
  tx: Transaction,
  redemption: { couponId: string; orderId: string; userId: string; discountCents: number },
): Promise<void> {
  await tx.insert(couponRedemptions).values(redemption)
}

/** Gives back an order's claim (the order failed unpaid): the use is free for another order. */
export async function releaseCoupon(tx: Db | Transaction, orderId: string): Promise<void> {
  const released = await tx
    .delete(couponRedemptions)
    .where(eq(couponRedemptions.orderId, orderId))
    .returning({ couponId: couponRedemptions.couponId })
  for (const { couponId } of released) {
    await tx
      .update(coupons)
      .set({ redeemed: sql`greatest(${coupons.redeemed} - 1, 0)` })
      .where(eq(coupons.id, couponId))
  }
}
