/** Readers' reviews, their helpful votes and reports. */
import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { books } from './catalog.server.ts'
import { user } from './identity.server.ts'

// The same limits as the review form (app/features/reviews/review-form.ts), kept by the database too.
const REVIEW_TITLE_MAX = 120
const REVIEW_BODY_MAX = 5000

/**
 * A reader's review of a book they own: one per (user, book). It is shown (`visible`) while its author still
 * owns the book (`unowned` is set by a trigger when the library item goes, e.g. on a refund, and cleared when
 * it comes back) and no moderator has hidden it (`hidden_at`). Plain text: never rendered as markup.
 */
export const reviews = pgTable(
  'reviews',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    rating: smallint('rating').notNull(),
    title: text('title').notNull().default(''),
    body: text('body').notNull().default(''),
    helpfulCount: integer('helpful_count').notNull().default(0),
    reportCount: integer('report_count').notNull().default(0),
    /** The author no longer owns the book (refunded): hidden, and back if they buy it again. */
    unowned: boolean('unowned').notNull().default(false),
    hiddenAt: timestamp('hidden_at', { withTimezone: true }),
    hiddenBy: text('hidden_by').references(() => user.id, { onDelete: 'set null' }),
    visible: boolean('visible')
      .notNull()
      .generatedAlwaysAs(sql`not unowned and hidden_at is null`),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('reviews_book_user_unique').on(table.bookId, table.userId),
    index('reviews_user_idx').on(table.userId),
    // The book page's four sorts, each one index walk over the book's visible reviews (docs/decisions/016).
    index('reviews_newest_idx')
      .on(table.bookId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst())
      .where(sql`visible`),
    index('reviews_helpful_idx')
      .on(
        table.bookId,
        table.helpfulCount.desc().nullsFirst(),
        table.createdAt.desc().nullsFirst(),
        table.id.desc().nullsFirst(),
      )
      .where(sql`visible`),
    index('reviews_highest_idx')
      .on(
        table.bookId,
        table.rating.desc().nullsFirst(),
        table.createdAt.desc().nullsFirst(),
        table.id.desc().nullsFirst(),
      )
      .where(sql`visible`),
    index('reviews_lowest_idx')
      .on(table.bookId, table.rating.asc(), table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst())
      .where(sql`visible`),
    // The moderation page: reported reviews first, newest first.
    index('reviews_moderation_idx').on(
      table.reportCount.desc().nullsFirst(),
      table.createdAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
    check('reviews_rating_check', sql`${table.rating} between 1 and 5`),
    check('reviews_title_check', sql`char_length(${table.title}) <= ${sql.raw(String(REVIEW_TITLE_MAX))}`),
    check('reviews_body_check', sql`char_length(${table.body}) <= ${sql.raw(String(REVIEW_BODY_MAX))}`),
    check('reviews_counts_check', sql`${table.helpfulCount} >= 0 and ${table.reportCount} >= 0`),
  ],
)

/** 'Helpful' votes: one per reader and review (not on one's own). */
export const reviewVotes = pgTable(
  'review_votes',
  {
    reviewId: uuid('review_id')
      .notNull()
      .references(() => reviews.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.reviewId, table.userId] }),
    index('review_votes_user_idx').on(table.userId),
  ],
)

const REVIEW_REPORT_REASON_MAX = 500

/** A reader's report of a review to the moderators: one per reader and review. */
export const reviewReports = pgTable(
  'review_reports',
  {
    reviewId: uuid('review_id')
      .notNull()
      .references(() => reviews.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    reason: text('reason').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.reviewId, table.userId] }),
    index('review_reports_user_idx').on(table.userId),
    check(
      'review_reports_reason_check',
      sql`char_length(${table.reason}) <= ${sql.raw(String(REVIEW_REPORT_REASON_MAX))}`,
    ),
  ],
)
