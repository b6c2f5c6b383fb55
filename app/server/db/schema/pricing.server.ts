/** Coupons and their redemptions (issue 30): how an order's price differs from the books' list prices. */
import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { books, topics } from './catalog.server.ts'
import { user } from './identity.server.ts'
import { orders } from './orders.server.ts'

export const COUPON_KINDS = ['percent', 'amount'] as const

/**
 * A code made in the back office: a percentage or an amount off, on every book or on the books and topics of
 * `coupon_books` / `coupon_topics`, between two dates, for a number of orders in all and per account, above a
 * minimum order, or for a first purchase only. `redeemed` counts the orders that claimed it (paid, or waiting
 * on the payment page); it is claimed inside the order's transaction with `redeemed < max_redemptions`.
 */
export const coupons = pgTable(
  'coupons',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** As typed in the back office, in upper case: buyers' codes are compared in upper case. */
    code: text('code').notNull(),
    kind: text('kind', { enum: COUPON_KINDS }).notNull(),
    /** A percentage (1–100) or an amount in cents. */
    value: integer('value').notNull(),
    currency: text('currency').notNull().default('USD'),
    startsAt: timestamp('starts_at', { withTimezone: true }),
    endsAt: timestamp('ends_at', { withTimezone: true }),
    maxRedemptions: integer('max_redemptions'),
    perAccountLimit: integer('per_account_limit'),
    minOrderCents: integer('min_order_cents').notNull().default(0),
    firstPurchaseOnly: boolean('first_purchase_only').notNull().default(false),
    redeemed: integer('redeemed').notNull().default(0),
    /** Switched off in the back office: no longer accepted, its redemptions kept. */
    active: boolean('active').notNull().default(true),
    createdBy: text('created_by').references(() => user.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('coupons_code_unique').on(table.code),
    check('coupons_kind_check', sql`${table.kind} in ('percent', 'amount')`),
    check(
      'coupons_value_check',
      sql`${table.value} > 0 and (${table.kind} <> 'percent' or ${table.value} <= 100)`,
    ),
    check('coupons_code_check', sql`${table.code} ~ '^[A-Z0-9][A-Z0-9_-]{2,31}$'`),
    check('coupons_redeemed_check', sql`${table.redeemed} >= 0`),
    check(
      'coupons_max_check',
      sql`${table.maxRedemptions} is null or (${table.maxRedemptions} > 0 and ${table.redeemed} <= ${table.maxRedemptions})`,
    ),
    check('coupons_per_account_check', sql`${table.perAccountLimit} is null or ${table.perAccountLimit} > 0`),
    check('coupons_min_order_check', sql`${table.minOrderCents} >= 0`),
    check(
      'coupons_dates_check',
      sql`${table.startsAt} is null or ${table.endsAt} is null or ${table.startsAt} < ${table.endsAt}`,
    ),
  ],
)

export const couponBooks = pgTable(
  'coupon_books',
  {
    couponId: uuid('coupon_id')
      .notNull()
      .references(() => coupons.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
  },
  (table) => [primaryKey({ columns: [table.couponId, table.bookId] })],
)

export const couponTopics = pgTable(
  'coupon_topics',
  {
    couponId: uuid('coupon_id')
      .notNull()
      .references(() => coupons.id, { onDelete: 'cascade' }),
    topicId: uuid('topic_id')
      .notNull()
      .references(() => topics.id, { onDelete: 'cascade' }),
  },
  (table) => [primaryKey({ columns: [table.couponId, table.topicId] })],
)

/**
 * One order's claim on a coupon, made in the order's transaction; given back (deleted, `redeemed` lowered) when
 * the order fails unpaid. A paid order keeps it, refunded or not.
 */
export const couponRedemptions = pgTable(
  'coupon_redemptions',
  {
    orderId: uuid('order_id')
      .primaryKey()
      .references(() => orders.id, { onDelete: 'cascade' }),
    couponId: uuid('coupon_id')
      .notNull()
      .references(() => coupons.id, { onDelete: 'restrict' }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    discountCents: integer('discount_cents').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('coupon_redemptions_coupon_user_idx').on(table.couponId, table.userId),
    check('coupon_redemptions_discount_check', sql`${table.discountCents} >= 0`),
  ],
)
