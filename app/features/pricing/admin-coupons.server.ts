import { desc, eq, inArray, sql } from 'drizzle-orm'
import { z } from 'zod'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import {
  books,
  couponBooks,
  couponRedemptions,
  coupons,
  couponTopics,
  orders,
  topics,
} from '#app/server/db/schema/index.server.ts'
import { couponCodePattern } from './coupons.server.ts'

/** The back office's coupons (issue 30): made with their rules, switched off and on, every change audited. */

export const couponFields = [
  'code',
  'kind',
  'value',
  'startsOn',
  'endsOn',
  'maxRedemptions',
  'perAccountLimit',
  'minOrder',
  'firstPurchaseOnly',
  'books',
  'topics',
] as const
export type CouponField = (typeof couponFields)[number]
export type CouponFieldErrors = Partial<Record<CouponField | 'form', string>>

const money = z
  .string()
  .trim()
  .regex(/^\d{1,5}(\.\d{1,2})?$/, 'Enter an amount in dollars, e.g. 5 or 4.99 (at most 99999.99).')
  .transform((value) => Math.round(Number(value) * 100))
const optionalCount = (what: string) =>
  z
    .string()
    .trim()
    .transform((value, context) => {
      if (value === '') return null
      if (!/^\d{1,7}$/.test(value) || Number(value) < 1) {
        context.addIssue({
          code: 'custom',
          message: `Enter a whole number of ${what} (1 or more), or leave it empty.`,
        })
        return z.NEVER
      }
      return Number(value)
    })
const optionalDate = z
  .string()
  .trim()
  .transform((value, context) => {
    if (value === '') return null
    const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : null
    if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
      context.addIssue({ code: 'custom', message: 'Enter a date as YYYY-MM-DD, or leave it empty.' })
      return z.NEVER
    }
    return date
  })
const slugList = z
  .string()
  .trim()
  .max(5000, 'At most 5,000 characters.')
  .transform((value) => [
    ...new Set(
      value
        .split(',')
        .map((slug) => slug.trim().toLowerCase())
        .filter(Boolean),
    ),
  ])

export const CouponFormSchema = z
  .object({
    code: z
      .string()
      .trim()
      .transform((value) => value.toUpperCase())
      .pipe(
        z
          .string()
          .regex(
            couponCodePattern,
            'A code has 3 to 32 letters, digits, - or _, starting with a letter or digit.',
          ),
      ),
    kind: z.enum(['percent', 'amount'], { error: 'Choose a percentage or an amount.' }),
    value: z.string().trim(),
    startsOn: optionalDate,
    endsOn: optionalDate,
    maxRedemptions: optionalCount('orders'),
    perAccountLimit: optionalCount('orders'),
    minOrder: z
      .string()
      .trim()
      .transform((value) => value || '0')
      .pipe(money),
    firstPurchaseOnly: z
      .string()
      .optional()
      .transform((value) => value === 'on'),
    books: slugList,
    topics: slugList,
  })
  .transform((form, context) => {
    let value: number
    if (form.kind === 'percent') {
      if (!/^\d{1,3}$/.test(form.value) || Number(form.value) < 1 || Number(form.value) > 100) {
        context.addIssue({ code: 'custom', path: ['value'], message: 'Enter a percentage from 1 to 100.' })
        return z.NEVER
      }
      value = Number(form.value)
    } else {
      const cents = money.safeParse(form.value)
      if (!cents.success || cents.data < 1) {
        context.addIssue({
          code: 'custom',
          path: ['value'],
          message: 'Enter an amount in dollars above 0, e.g. 5 or 4.99.',
        })
        return z.NEVER
      }
      value = cents.data
    }
    if (form.startsOn && form.endsOn && form.endsOn <= form.startsOn) {
      context.addIssue({
        code: 'custom',
        path: ['endsOn'],
        message: 'The last day must come after the first.',
      })
      return z.NEVER
    }
    return { ...form, value }
  })

export type CouponInput = z.infer<typeof CouponFormSchema>

/** Reads the new-coupon form: the coupon, or each field's problem and what was typed (shown again). */
export function parseCouponForm(
  form: FormData,
):
  | { ok: true; coupon: CouponInput }
  | { ok: false; errors: CouponFieldErrors; values: Record<string, string> } {
  const raw = Object.fromEntries(couponFields.map((field) => [field, String(form.get(field) ?? '')]))
  if (!form.get('firstPurchaseOnly')) raw.firstPurchaseOnly = ''
  const parsed = CouponFormSchema.safeParse(raw)
  if (parsed.success) return { ok: true, coupon: parsed.data }
  const errors: CouponFieldErrors = {}
  for (const issue of parsed.error.issues) {
    const field = (issue.path[0] as CouponField | undefined) ?? 'form'
    errors[field] ??= issue.message
  }
  return { ok: false, errors, values: raw }
}

/**
 * Makes a coupon with its books and topics (named by slug; an unknown one is the field's error) and its audit
 * record, in one transaction. A code that exists already (in any case) is refused.
 */
export async function createCoupon(
  db: Db,
  actor: Actor,
  input: CouponInput,
): Promise<{ ok: true; id: string } | { ok: false; errors: CouponFieldErrors }> {
  const bookRows = input.books.length
    ? await db.select({ id: books.id, slug: books.slug }).from(books).where(inArray(books.slug, input.books))
    : []
  const unknownBooks = input.books.filter((slug) => !bookRows.some((row) => row.slug === slug))
  if (unknownBooks.length)
    return { ok: false, errors: { books: `No book has the slug ${unknownBooks.join(', ')}.` } }
  const topicRows = input.topics.length
    ? await db
        .select({ id: topics.id, slug: topics.slug })
        .from(topics)
        .where(inArray(topics.slug, input.topics))
    : []
  const unknownTopics = input.topics.filter((slug) => !topicRows.some((row) => row.slug === slug))
  if (unknownTopics.length)
    return { ok: false, errors: { topics: `No topic has the slug ${unknownTopics.join(', ')}.` } }

  return db.transaction(async (tx) => {
    const [made] = await tx
      .insert(coupons)
      .values({
        code: input.code,
        kind: input.kind,
        value: input.value,
        startsAt: input.startsOn,
        endsAt: input.endsOn,
        maxRedemptions: input.maxRedemptions,
        perAccountLimit: input.perAccountLimit,
        minOrderCents: input.minOrder,
        firstPurchaseOnly: input.firstPurchaseOnly,
        createdBy: actor.id,
      })
      .onConflictDoNothing({ target: coupons.code })
      .returning({ id: coupons.id })
    if (!made) return { ok: false as const, errors: { code: `A coupon ${input.code} exists already.` } }
    if (bookRows.length)
      await tx.insert(couponBooks).values(bookRows.map((row) => ({ couponId: made.id, bookId: row.id })))
    if (topicRows.length)
      await tx.insert(couponTopics).values(topicRows.map((row) => ({ couponId: made.id, topicId: row.id })))
    await recordAudit(tx, {
      actor,
      action: 'coupon.create',
      entityType: 'coupon',
      entityId: made.id,
      after: input,
    })
    return { ok: true as const, id: made.id }
  })
}

/** Switches a coupon off (no longer accepted; its orders keep it) or on again; audited. False if unknown. */
export async function setCouponActive(
  db: Db,
  actor: Actor,
  couponId: string,
  active: boolean,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [changed] = await tx
      .update(coupons)
      .set({ active })
      .where(eq(coupons.id, couponId))
      .returning({ id: coupons.id, code: coupons.code })
    if (!changed) return false
    await recordAudit(tx, {
      actor,
      action: active ? 'coupon.activate' : 'coupon.deactivate',
      entityType: 'coupon',
      entityId: couponId,
      after: { code: changed.code, active },
    })
    return true
  })
}

/**
 * Every coupon, newest first, with its uses and what its paid orders brought in (after the discount) and gave
 * away: the back office's revenue by coupon.
 */
export async function listAdminCoupons(db: Db) {
  const revenue = db
    .select({
      couponId: couponRedemptions.couponId,
      paidOrders: sql<number>`count(*) filter (where ${orders.status} = 'paid')`
        .mapWith(Number)
        .as('paid_orders'),
      revenueCents:
        sql<number>`coalesce(sum(${orders.totalCents}) filter (where ${orders.status} = 'paid'), 0)`
          .mapWith(Number)
          .as('revenue_cents'),
      discountCents:
        sql<number>`coalesce(sum(${couponRedemptions.discountCents}) filter (where ${orders.status} = 'paid'), 0)`
          .mapWith(Number)
          .as('discount_cents'),
    })
    .from(couponRedemptions)
    .innerJoin(orders, eq(orders.id, couponRedemptions.orderId))
    .groupBy(couponRedemptions.couponId)
    .as('revenue')
  return db
    .select({
      id: coupons.id,
      code: coupons.code,
      kind: coupons.kind,
      value: coupons.value,
      currency: coupons.currency,
      startsAt: coupons.startsAt,
      endsAt: coupons.endsAt,
      maxRedemptions: coupons.maxRedemptions,
      perAccountLimit: coupons.perAccountLimit,
      minOrderCents: coupons.minOrderCents,
      firstPurchaseOnly: coupons.firstPurchaseOnly,
      redeemed: coupons.redeemed,
      active: coupons.active,
      createdAt: coupons.createdAt,
      bookCount:
        sql<number>`(select count(*) from ${couponBooks} where ${couponBooks.couponId} = ${coupons.id})`.mapWith(
          Number,
        ),
      topicCount:
        sql<number>`(select count(*) from ${couponTopics} where ${couponTopics.couponId} = ${coupons.id})`.mapWith(
          Number,
        ),
      paidOrders: sql<number>`coalesce(${revenue.paidOrders}, 0)`.mapWith(Number),
      revenueCents: sql<number>`coalesce(${revenue.revenueCents}, 0)`.mapWith(Number),
      discountCents: sql<number>`coalesce(${revenue.discountCents}, 0)`.mapWith(Number),
    })
    .from(coupons)
    .leftJoin(revenue, eq(revenue.couponId, coupons.id))
    .orderBy(desc(coupons.createdAt))
}
