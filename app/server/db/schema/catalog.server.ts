/** The catalogue: books, their old slugs, their topics. */
import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { authors } from './authors.server.ts'
import { timestamps } from './columns.server.ts'

export const BOOK_STATUSES = ['draft', 'published', 'archived'] as const
export type BookStatus = (typeof BOOK_STATUSES)[number]
export const BOOK_LEVELS = ['beginner', 'intermediate', 'advanced'] as const
export type BookLevel = (typeof BOOK_LEVELS)[number]

/**
 * An uploaded cover, resized into `widths` in each of `formats` (storage keys `<keyPrefix>-<width>.<format>`);
 * `width`/`height` are the original's, for the aspect ratio the page reserves (no layout shift).
 */
export type CoverImage = {
  keyPrefix: string
  widths: number[]
  formats: ('avif' | 'webp' | 'jpeg')[]
  width: number
  height: number
}

export const books = pgTable(
  'books',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    /**
     * Derived: the author's name, copied from `authors` by the `books_copy_author_name` triggers (migration
     * `authors`) for the search document's index and the many lists that show it. A book inserted with a name
     * and no `author_id` is filed under the author of that name (created if none). Read the author from `authors`.
     */
    author: text('author').notNull(),
    /** Optional on insert: left out, the trigger files the book under the author named `author`. */
    authorId: uuid('author_id')
      .notNull()
      .references(() => authors.id)
      .$defaultFn(() => sql`null`),
    description: text('description').notNull(),
    /** The price; for a pay-what-you-want book, the suggested price. */
    priceCents: integer('price_cents').notNull(),
    /**
     * Set: the book is pay what you want (issue 30), from this minimum (possibly 0) up; the reader chooses the
     * amount, `price_cents` suggested. Null: a fixed price.
     */
    pwywMinCents: integer('pwyw_min_cents'),
    currency: text('currency').notNull().default('USD'),
    coverPath: text('cover_path').notNull(),
    coverAlt: text('cover_alt').notNull(),
    rating: smallint('rating').notNull(),
    bestSeller: boolean('best_seller').notNull().default(false),
    available: boolean('available').notNull().default(true),
    fileSizeBytes: integer('file_size_bytes').notNull(),
    featured: boolean('featured').notNull().default(false),
    featuredPosition: smallint('featured_position'),
    /**
     * Derived, never written by the store: the names of the book's topics in their order, copied from
     * `book_topics` and `topics` by the `book_topics_copy_names` triggers (migration `topics`), because the search
     * document's index (migration `search`) can only read the book's own row. Read the topics from `book_topics`.
     */
    topics: text('topics')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** 'draft' (being prepared, not in the store), 'published', or 'archived' (out of the store; owners keep it). */
    status: text('status', { enum: BOOK_STATUSES }).notNull().default('published'),
    level: text('level', { enum: BOOK_LEVELS }),
    /** The uploaded cover's variants (admin upload); null: `cover_path` (the seed's SVG covers). */
    cover: jsonb('cover').$type<CoverImage>(),
    /** Optimistic concurrency for the back office: every edit bumps it; an edit of an older version is a 409. */
    version: integer('version').notNull().default(1),
    /**
     * Readers' ratings, maintained on write by the `reviews_maintain_book_ratings` trigger (migration
     * `reviews`): how many visible reviews, the sum of their stars, and how many of each star (index 0 is one
     * star). `rating` above is the seed's prior, shown only while `rating_count` is 0 (docs/decisions/016).
     */
    ratingCount: integer('rating_count').notNull().default(0),
    ratingSum: integer('rating_sum').notNull().default(0),
    ratingHistogram: integer('rating_histogram')
      .array()
      .notNull()
      .default(sql`'{0,0,0,0,0}'::integer[]`),
    /**
     * Bumped by trigger (migration `reviews-version`) on every change to the book's reviews or their authors'
     * names: the key under which each instance keeps the book's public review pages (docs/decisions/016).
     */
    reviewsVersion: integer('reviews_version').notNull().default(0),
    /**
     * Copies sold: the book's lines in paid orders (a refunded order no longer counts), maintained on write by
     * the `order_items_maintain_book_sales` triggers (migration `catalog-sales-count`) for the catalogue's
     * best-selling sort (docs/decisions/019).
     */
    salesCount: integer('sales_count').notNull().default(0),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('books_slug_unique').on(table.slug),
    check('books_sales_count_check', sql`${table.salesCount} >= 0`),
    check('books_rating_count_check', sql`${table.ratingCount} >= 0 and ${table.ratingSum} >= 0`),
    index('books_status_created_at_idx').on(table.status, table.createdAt),
    check('books_status_check', sql`${table.status} in ('draft', 'published', 'archived')`),
    check(
      'books_level_check',
      sql`${table.level} is null or ${table.level} in ('beginner', 'intermediate', 'advanced')`,
    ),
    uniqueIndex('books_featured_position_unique').on(table.featuredPosition),
    index('books_title_idx').on(table.title),
    index('books_author_id_idx').on(table.authorId),
    // The back office's list pages by keyset in each of its sorts (title, newest, price, status).
    index('books_title_id_idx').on(table.title, table.id),
    index('books_created_at_id_idx').on(table.createdAt, table.id),
    index('books_price_id_idx').on(table.priceCents, table.id),
    index('books_status_created_at_id_idx').on(table.status, table.createdAt, table.id),
    check('books_price_cents_check', sql`${table.priceCents} >= 0`),
    check(
      'books_pwyw_min_check',
      sql`${table.pwywMinCents} is null or (${table.pwywMinCents} >= 0 and ${table.pwywMinCents} <= ${table.priceCents})`,
    ),
    check('books_currency_check', sql`${table.currency} ~ '^[A-Z]{3}$'`),
    check('books_rating_check', sql`${table.rating} between 0 and 5`),
    check('books_file_size_check', sql`${table.fileSizeBytes} >= 0`),
    check('books_slug_check', sql`${table.slug} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`),
    // A featured book has a position, any other book none (written so that NULL cannot slip through).
    check(
      'books_featured_position_check',
      sql`${table.featured} = (${table.featuredPosition} is not null) and coalesce(${table.featuredPosition}, 0) >= 0`,
    ),
  ],
)

/**
 * A book's prices in other currencies than its own (issue 31, decision 040): set by the owner in the back
 * office, never converted by the store. A book without a row for a currency is not sold in it: a buyer of that
 * currency pays the book's own price (`books.price_cents` in `books.currency`), which stays its base price.
 */
export const bookPrices = pgTable(
  'book_prices',
  {
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    currency: text('currency').notNull(),
    priceCents: integer('price_cents').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.bookId, table.currency] }),
    check('book_prices_currency_check', sql`${table.currency} ~ '^[A-Z]{3}$'`),
    check('book_prices_price_cents_check', sql`${table.priceCents} >= 0`),
  ],
)

/** A book's old slugs: its page under an old URL answers 301 to the current one (slugs change in the back office). */
export const bookSlugRedirects = pgTable('book_slug_redirects', {
  slug: text('slug').primaryKey(),
  bookId: uuid('book_id')
    .notNull()
    .references(() => books.id, { onDelete: 'cascade' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

/**
 * A topic books are filed under: a name as the owner writes it ('Systems Programming'), unique in any case, and
 * the slug of its page (/topics/<slug>). Renaming a topic changes its slug; the old one redirects.
 */
export const topics = pgTable(
  'topics',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('topics_slug_unique').on(table.slug),
    uniqueIndex('topics_name_lower_unique').on(sql`lower(${table.name})`),
    check('topics_slug_check', sql`${table.slug} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`),
  ],
)

/** A book's topics, in the order the owner typed them (`position` from 0). */
export const bookTopics = pgTable(
  'book_topics',
  {
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    topicId: uuid('topic_id')
      .notNull()
      .references(() => topics.id, { onDelete: 'cascade' }),
    position: smallint('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.bookId, table.topicId] }),
    uniqueIndex('book_topics_book_position_unique').on(table.bookId, table.position),
    index('book_topics_topic_idx').on(table.topicId),
  ],
)

/** A topic's old slugs: its page under an old URL answers 301 to the current one (a rename or a merge). */
export const topicSlugRedirects = pgTable('topic_slug_redirects', {
  slug: text('slug').primaryKey(),
  topicId: uuid('topic_id')
    .notNull()
    .references(() => topics.id, { onDelete: 'cascade' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})
