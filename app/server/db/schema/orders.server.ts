/** Orders and their lines as bought. */
import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { books } from './catalog.server.ts'
import { bundles } from './bundles.server.ts'
import { user } from './identity.server.ts'

export const ORDER_STATUSES = ['pending', 'paid', 'failed', 'refunded'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

/**
 * One checkout. Prices and the total are copied from the catalogue when the order is made (order_items keep
 * each line as paid). Two keys from the checkout form make it one order per checkout, whatever happens:
 * - `attempt_id`, fresh in every rendering of the form: a double click or a retried post of that form finds
 *   the order it made, paid or declined, and is never charged again (unique per buyer, whatever the status);
 * - `idempotency_key`, naming the cart as it was shown: a second tab on the same cart finds the order already
 *   made (unique per buyer, except for failed attempts: after a decline the page may try another card).
 * Card data is never stored: only the brand and last 4 digits.
 */
export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The number the buyer sees ('Order #1042'). */
    number: integer('number').notNull().generatedAlwaysAsIdentity({ startWith: 1001 }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'restrict' }),
    status: text('status', { enum: ORDER_STATUSES }).notNull().default('pending'),
    /** What the buyer paid: the sum of the lines' paid prices (features/pricing). */
    totalCents: integer('total_cents').notNull(),
    /** What the coupon took off the lines' list prices (0 without one). */
    discountCents: integer('discount_cents').notNull().default(0),
    /** The coupon code the order was priced with, as it was (coupon_redemptions has the claim). */
    couponCode: text('coupon_code'),
    currency: text('currency').notNull(),
    /**
     * Tax (features/tax, decision 038): the sums of the lines' net and tax (total = net + tax), the country
     * taxed (null: none, e.g. orders made before tax was recorded, or a country the store does not tax in),
     * whether the prices included tax, and reverse charge for an EU business buyer's valid VAT number.
     */
    netCents: integer('net_cents').notNull().default(0),
    taxCents: integer('tax_cents').notNull().default(0),
    taxCountry: text('tax_country'),
    pricesIncludeTax: boolean('prices_include_tax').notNull().default(true),
    reverseCharge: boolean('reverse_charge').notNull().default(false),
    buyerVatNumber: text('buyer_vat_number'),
    /**
     * Where the buyer is (Art. 24f of Regulation 282/2011): the billing country they chose, their IP address's
     * country, their card's country (Stripe, once paid), and how they were judged (features/tax/evidence.ts).
     */
    billingCountry: text('billing_country'),
    /** Who the invoice is made out to, as the buyer typed it at checkout (optional; a business's is required). */
    billingName: text('billing_name'),
    billingAddress: text('billing_address'),
    ipCountry: text('ip_country'),
    cardCountry: text('card_country'),
    evidenceStatus: text('evidence_status', { enum: ['two-agree', 'untaxed', 'buyer-confirmed'] }),
    idempotencyKey: text('idempotency_key').notNull(),
    /** Orders made before attempts were recorded carry their own id here (migration 0006). */
    attemptId: text('attempt_id').notNull(),
    paymentProvider: text('payment_provider').notNull(),
    /** The provider's id for the payment: a test charge id, or a Stripe Checkout Session id. */
    paymentReference: text('payment_reference'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    failureReason: text('failure_reason'),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    /** An admin asked the provider for a refund (Stripe: the order is marked refunded when its webhook confirms). */
    refundRequestedAt: timestamp('refund_requested_at', { withTimezone: true }),
    /** The provider's id for the refund (a test refund id, or a Stripe refund id). */
    refundReference: text('refund_reference'),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('orders_number_unique').on(table.number),
    uniqueIndex('orders_idempotency_unique')
      .on(table.userId, table.idempotencyKey)
      .where(sql`${table.status} <> 'failed'`),
    uniqueIndex('orders_attempt_unique').on(table.userId, table.attemptId),
    uniqueIndex('orders_payment_reference_unique').on(table.paymentProvider, table.paymentReference),
    index('orders_user_created_at_idx').on(table.userId, table.createdAt),
    // The back office's front page: revenue since a day or a month, and refunds asked and not yet confirmed.
    index('orders_paid_at_idx')
      .on(table.paidAt)
      .where(sql`${table.paidAt} is not null`),
    index('orders_refund_pending_idx')
      .on(table.refundRequestedAt)
      .where(sql`${table.refundRequestedAt} is not null and ${table.refundedAt} is null`),
    check('orders_status_check', sql`${table.status} in ('pending', 'paid', 'failed', 'refunded')`),
    check('orders_total_check', sql`${table.totalCents} >= 0`),
    check('orders_discount_check', sql`${table.discountCents} >= 0`),
    check('orders_currency_check', sql`${table.currency} ~ '^[A-Z]{3}$'`),
    check(
      'orders_tax_check',
      sql`${table.taxCents} >= 0 and ${table.netCents} >= 0 and ${table.netCents} + ${table.taxCents} = ${table.totalCents}`,
    ),
    check('orders_card_last4_check', sql`${table.cardLast4} is null or ${table.cardLast4} ~ '^[0-9]{4}$'`),
    check(
      'orders_paid_at_check',
      sql`(${table.status} in ('paid', 'refunded')) = (${table.paidAt} is not null)`,
    ),
  ],
)

/** A line of an order as it was bought: the title and price are a snapshot, whatever the catalogue says later. */
export const orderItems = pgTable(
  'order_items',
  {
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'restrict' }),
    title: text('title').notNull(),
    /** The price paid for the line: its list price less its discount. */
    priceCents: integer('price_cents').notNull(),
    /** The book's price in the catalogue when it was bought. */
    listPriceCents: integer('list_price_cents').notNull(),
    discountCents: integer('discount_cents').notNull().default(0),
    currency: text('currency').notNull(),
    /**
     * Tax on the line (features/tax/compute-tax.ts): the rate charged in basis points, and the line's net, tax
     * and gross (what the buyer paid for it: `price_cents` when the prices include tax, `price_cents` plus the
     * tax when they do not).
     */
    taxRateBp: integer('tax_rate_bp').notNull().default(0),
    netCents: integer('net_cents').notNull().default(0),
    taxCents: integer('tax_cents').notNull().default(0),
    grossCents: integer('gross_cents').notNull().default(0),
    /**
     * The bundle the book was bought in (null: bought on its own). A bundle's lines share its price in
     * proportion to the books' prices (features/pricing/bundle-price.ts), so revenue by bundle is their sum.
     */
    bundleId: uuid('bundle_id').references(() => bundles.id, { onDelete: 'restrict' }),
  },
  (table) => [
    primaryKey({ columns: [table.orderId, table.bookId] }),
    index('order_items_bundle_id_idx')
      .on(table.bundleId)
      .where(sql`${table.bundleId} is not null`),
    index('order_items_book_id_idx').on(table.bookId),
    check('order_items_price_check', sql`${table.priceCents} >= 0`),
    check(
      'order_items_discount_check',
      sql`${table.discountCents} >= 0 and ${table.priceCents} + ${table.discountCents} = ${table.listPriceCents}`,
    ),
    check(
      'order_items_tax_check',
      sql`${table.taxCents} >= 0 and ${table.netCents} >= 0 and ${table.netCents} + ${table.taxCents} = ${table.grossCents} and ${table.taxRateBp} between 0 and 10000`,
    ),
  ],
)

export const REFUND_STATUSES = ['requested', 'confirmed', 'failed'] as const

/**
 * Money given back on an order (issue 31): the whole order, some of its lines, or an amount. Each refund says
 * how much of each line it gives back (`lines`: net, tax and gross per book, all ≥ 0), so tax and net revenue
 * can be told apart, and which credit note it was issued with. A refund counts once it is `confirmed` (the test
 * provider at once; Stripe when its signed event says so); `requested` waits on the provider, `failed` never
 * counts. A line's book leaves the library when its refunds have given back its whole gross. Refunds made
 * before this table (whole orders, `orders.status = 'refunded'`) were copied into it by migration 0034.
 */
export const orderRefunds = pgTable(
  'order_refunds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'restrict' }),
    status: text('status', { enum: REFUND_STATUSES }).notNull().default('requested'),
    /** What goes back to the buyer: net + tax. */
    amountCents: integer('amount_cents').notNull(),
    netCents: integer('net_cents').notNull(),
    taxCents: integer('tax_cents').notNull(),
    currency: text('currency').notNull(),
    /** Per line: `[{ bookId, netCents, taxCents, grossCents }]`, summing to the refund's amounts. */
    lines: jsonb('lines').$type<RefundLine[]>().notNull(),
    reason: text('reason').notNull().default(''),
    /** The provider's id for this refund (a test refund id, or a Stripe refund id). */
    providerReference: text('provider_reference'),
    /** The credit note issued for it (features/invoices); null where the order had no invoice. */
    creditNoteId: uuid('credit_note_id'),
    /** Who asked: an admin's email, 'cli', or 'stripe' for a refund made in Stripe's dashboard. */
    requestedBy: text('requested_by').notNull(),
    /**
     * The key of the back office form that asked for it (fresh in every rendering of the form): the same form
     * posted twice (a double click, a retried post) finds this refund and makes no second one.
     */
    idempotencyKey: text('idempotency_key'),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  },
  (table) => [
    index('order_refunds_order_id_idx').on(table.orderId),
    index('order_refunds_confirmed_at_idx')
      .on(table.confirmedAt)
      .where(sql`${table.confirmedAt} is not null`),
    uniqueIndex('order_refunds_provider_reference_unique')
      .on(table.providerReference)
      .where(sql`${table.providerReference} is not null`),
    uniqueIndex('order_refunds_idempotency_unique')
      .on(table.orderId, table.idempotencyKey)
      .where(sql`${table.idempotencyKey} is not null`),
    check('order_refunds_status_check', sql`${table.status} in ('requested', 'confirmed', 'failed')`),
    check(
      'order_refunds_amount_check',
      sql`${table.amountCents} > 0 and ${table.netCents} >= 0 and ${table.taxCents} >= 0 and ${table.netCents} + ${table.taxCents} = ${table.amountCents}`,
    ),
    check(
      'order_refunds_confirmed_check',
      sql`(${table.status} = 'confirmed') = (${table.confirmedAt} is not null)`,
    ),
  ],
)

export type RefundLine = { bookId: string; netCents: number; taxCents: number; grossCents: number }
