/** Wishlists (issue 30): the books a reader would like, for themselves, to share, and to hear of a lower price. */
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
import { user } from './identity.server.ts'

/**
 * One wishlist per visitor, like the cart: an account's through user_id; a signed-out visitor's through a
 * signed cookie (user_id null), joined to the account's at sign-in. `share_token` is set while the reader
 * shares it (a public page at /wishlists/<token>); `notify` while they want a mail when a wished book's price
 * drops or a coupon applies to it, at most one a day (`notified_at`), with `unsubscribe_token` in its link.
 */
export const wishlists = pgTable(
  'wishlists',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id')
      .unique()
      .references(() => user.id, { onDelete: 'cascade' }),
    shareToken: text('share_token'),
    notify: boolean('notify').notNull().default(false),
    unsubscribeToken: text('unsubscribe_token').notNull(),
    notifiedAt: timestamp('notified_at', { withTimezone: true }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('wishlists_share_token_unique').on(table.shareToken),
    uniqueIndex('wishlists_unsubscribe_token_unique').on(table.unsubscribeToken),
    index('wishlists_anonymous_updated_at_idx')
      .on(table.updatedAt)
      .where(sql`${table.userId} is null`),
  ],
)

/**
 * A book on a wishlist, with the lowest price its reader has been told of (`seen_price_cents`: its price when
 * added, then the price of each mail), so a mail names only prices below what they knew.
 */
export const wishlistItems = pgTable(
  'wishlist_items',
  {
    wishlistId: uuid('wishlist_id')
      .notNull()
      .references(() => wishlists.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
    seenPriceCents: integer('seen_price_cents').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.wishlistId, table.bookId] }),
    index('wishlist_items_book_id_idx').on(table.bookId),
    check('wishlist_items_seen_price_check', sql`${table.seenPriceCents} >= 0`),
  ],
)
