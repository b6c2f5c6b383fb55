/** Gifts (issue 30): a book or a bundle bought for someone else's email, claimed into their library. */
import { sql } from 'drizzle-orm'
import { check, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { books } from './catalog.server.ts'
import { bundles } from './bundles.server.ts'
import { user } from './identity.server.ts'
import { orders } from './orders.server.ts'

/**
 * A gift: one book or one bundle, for an email address, with a message and the day it is delivered. Written
 * when the buyer fills the gift form (no order yet); its checkout makes the order (`order_id`). Paid, the
 * books go to nobody yet: the recipient's mail (queued for `deliver_on`) carries a claim link whose token's
 * SHA-256 is `claim_token_hash` (a new token on each re-send: the newest link works). Claimed, the books go to
 * `claimed_by`'s library through the gift's order. Refunded before the claim: `revoked_at`, the mail withdrawn.
 */
export const gifts = pgTable(
  'gifts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    buyerId: text('buyer_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id').references(() => books.id, { onDelete: 'restrict' }),
    bundleId: uuid('bundle_id').references(() => bundles.id, { onDelete: 'restrict' }),
    recipientEmail: text('recipient_email').notNull(),
    recipientName: text('recipient_name').notNull().default(''),
    message: text('message').notNull().default(''),
    deliverOn: timestamp('deliver_on', { withTimezone: true }).notNull(),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'restrict' }),
    claimTokenHash: text('claim_token_hash'),
    /** When its mail was last queued (paid, or re-sent). */
    sentAt: timestamp('sent_at', { withTimezone: true }),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    claimedBy: text('claimed_by').references(() => user.id, { onDelete: 'set null' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('gifts_order_id_unique').on(table.orderId),
    uniqueIndex('gifts_claim_token_hash_unique').on(table.claimTokenHash),
    index('gifts_buyer_id_idx').on(table.buyerId, table.createdAt),
    check('gifts_item_check', sql`(${table.bookId} is null) <> (${table.bundleId} is null)`),
    check('gifts_message_check', sql`length(${table.message}) <= 1000`),
  ],
)
