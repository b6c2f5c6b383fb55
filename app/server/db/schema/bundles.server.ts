/** Bundles (issue 30): several books sold together at one price. */
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
import { books } from './catalog.server.ts'
import { carts } from './cart.server.ts'

/**
 * A bundle: its own page (/bundles/<slug>), a price for all its books together, in their currency. Made in
 * the back office; switched off (`active` false), it leaves the store and its orders stay as they were.
 */
export const bundles = pgTable(
  'bundles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    priceCents: integer('price_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    active: boolean('active').notNull().default(true),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('bundles_slug_unique').on(table.slug),
    check('bundles_slug_check', sql`${table.slug} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`),
    check('bundles_price_check', sql`${table.priceCents} > 0`),
    check('bundles_currency_check', sql`${table.currency} ~ '^[A-Z]{3}$'`),
  ],
)

/** The books of a bundle, in the order its page shows them. */
export const bundleBooks = pgTable(
  'bundle_books',
  {
    bundleId: uuid('bundle_id')
      .notNull()
      .references(() => bundles.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'restrict' }),
    position: integer('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.bundleId, table.bookId] }),
    index('bundle_books_book_id_idx').on(table.bookId),
  ],
)

/** A bundle in a cart: one line, whose books are granted together when the order is paid. */
export const cartBundles = pgTable(
  'cart_bundles',
  {
    cartId: uuid('cart_id')
      .notNull()
      .references(() => carts.id, { onDelete: 'cascade' }),
    bundleId: uuid('bundle_id')
      .notNull()
      .references(() => bundles.id, { onDelete: 'cascade' }),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.cartId, table.bundleId] }),
    index('cart_bundles_bundle_id_idx').on(table.bundleId),
  ],
)
