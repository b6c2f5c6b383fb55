/** Carts: one per visitor. */
import { sql } from 'drizzle-orm'
import { check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { books } from './catalog.server.ts'
import { user } from './identity.server.ts'

/**
 * One cart per visitor: an anonymous cart is found through its signed cookie (user_id null); an account's
 * cart through user_id. updated_at is the last activity: abandoned anonymous carts are deleted after 30 days.
 */
export const carts = pgTable(
  'carts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id')
      .unique()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** The coupon code the buyer entered or followed a link with (upper case); checked again at checkout. */
    couponCode: text('coupon_code'),
    ...timestamps,
  },
  (table) => [
    index('carts_anonymous_updated_at_idx')
      .on(table.updatedAt)
      .where(sql`${table.userId} is null`),
  ],
)

/** eBooks are bought once: a book is in a cart or not, so (cart, book) is the key — two tabs cannot add it twice. */
export const cartItems = pgTable(
  'cart_items',
  {
    cartId: uuid('cart_id')
      .notNull()
      .references(() => carts.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
    /** A pay-what-you-want book's amount as the reader chose it (checked against the book's minimum). */
    chosenCents: integer('chosen_cents'),
  },
  (table) => [
    primaryKey({ columns: [table.cartId, table.bookId] }),
    index('cart_items_book_id_idx').on(table.bookId),
    check('cart_items_chosen_check', sql`${table.chosenCents} is null or ${table.chosenCents} >= 0`),
  ],
)
