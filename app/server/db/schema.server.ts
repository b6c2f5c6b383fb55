/**
 * The store's one database schema. drizzle-kit generates the SQL migrations in `drizzle/` from this file;
 * Better Auth's tables live here too so that there is one migration history (docs/decisions/002).
 */
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
  bigint,
  date,
} from 'drizzle-orm/pg-core'

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
}

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
    author: text('author').notNull(),
    description: text('description').notNull(),
    priceCents: integer('price_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    coverPath: text('cover_path').notNull(),
    coverAlt: text('cover_alt').notNull(),
    rating: smallint('rating').notNull(),
    bestSeller: boolean('best_seller').notNull().default(false),
    available: boolean('available').notNull().default(true),
    fileSizeBytes: integer('file_size_bytes').notNull(),
    featured: boolean('featured').notNull().default(false),
    featuredPosition: smallint('featured_position'),
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
    // The back office's list pages by keyset in each of its sorts (title, newest, price, status).
    index('books_title_id_idx').on(table.title, table.id),
    index('books_created_at_id_idx').on(table.createdAt, table.id),
    index('books_price_id_idx').on(table.priceCents, table.id),
    index('books_status_created_at_id_idx').on(table.status, table.createdAt, table.id),
    check('books_price_cents_check', sql`${table.priceCents} >= 0`),
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

export const USER_ROLES = ['customer', 'admin'] as const
export type UserRole = (typeof USER_ROLES)[number]

// Better Auth (email + password, anonymous plugin), with its default model and field names in snake_case.
export const user = pgTable(
  'user',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull().unique(),
    emailVerified: boolean('email_verified').notNull().default(false),
    image: text('image'),
    isAnonymous: boolean('is_anonymous').notNull().default(false),
    /** 'customer' or 'admin' (the back office). Never set through sign-up: `npm run admin -- grant`, ADMIN_EMAILS. */
    role: text('role', { enum: USER_ROLES }).notNull().default('customer'),
    ...timestamps,
  },
  (table) => [check('user_role_check', sql`${table.role} in ('customer', 'admin')`)],
)

export const session = pgTable(
  'session',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    token: text('token').notNull().unique(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    ...timestamps,
  },
  (table) => [index('session_user_id_idx').on(table.userId)],
)

export const account = pgTable(
  'account',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    idToken: text('id_token'),
    accessTokenExpiresAt: timestamp('access_token_expires_at', { withTimezone: true }),
    refreshTokenExpiresAt: timestamp('refresh_token_expires_at', { withTimezone: true }),
    scope: text('scope'),
    password: text('password'),
    ...timestamps,
  },
  (table) => [index('account_user_id_idx').on(table.userId)],
)

export const verification = pgTable(
  'verification',
  {
    id: text('id').primaryKey(),
    identifier: text('identifier').notNull(),
    value: text('value').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    ...timestamps,
  },
  (table) => [index('verification_identifier_idx').on(table.identifier)],
)

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
  },
  (table) => [
    primaryKey({ columns: [table.cartId, table.bookId] }),
    index('cart_items_book_id_idx').on(table.bookId),
  ],
)

/**
 * Rate-limit counters (fixed windows), in the database so that every app instance counts the same
 * attempts: one row per key ('login-failed:<email>:<ip>', 'auth:<ip>', …) until its window ends.
 */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull(),
    resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('rate_limits_reset_at_idx').on(table.resetAt)],
)

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
    totalCents: integer('total_cents').notNull(),
    currency: text('currency').notNull(),
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
    check('orders_status_check', sql`${table.status} in ('pending', 'paid', 'failed', 'refunded')`),
    check('orders_total_check', sql`${table.totalCents} >= 0`),
    check('orders_currency_check', sql`${table.currency} ~ '^[A-Z]{3}$'`),
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
    priceCents: integer('price_cents').notNull(),
    currency: text('currency').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.orderId, table.bookId] }),
    index('order_items_book_id_idx').on(table.bookId),
    check('order_items_price_check', sql`${table.priceCents} >= 0`),
  ],
)

/** The books a reader owns, each once: the (user, book) key is what stops a book being charged twice. */
export const libraryItems = pgTable(
  'library_items',
  {
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'restrict' }),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'restrict' }),
    acquiredAt: timestamp('acquired_at', { withTimezone: true }).notNull().defaultNow(),
    /** Downloads of any format of this book by its owner ('downloaded N times' in the library). */
    downloadCount: integer('download_count').notNull().default(0),
    lastDownloadedAt: timestamp('last_downloaded_at', { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.bookId] }),
    index('library_items_order_id_idx').on(table.orderId),
  ],
)

/**
 * A book's files as sold (the PDF and the EPUB) and its free sample, kept in file storage
 * (app/server/storage.server.ts) under `storageKey`. `sha256` is the file's version: stamped copies are cached
 * under it, so a new edition is stamped afresh. `sourceHash` is the sha256 of the manuscript the file was
 * rendered from, kept as a record only: nothing reads it. Whether start-up renders a book again is decided by
 * a fingerprint file in storage (`books/<slug>/edition.sha256`: the renderer's version, the book's title and
 * author and its manuscript; editions/build-editions.server.ts).
 */
export const bookFiles = pgTable(
  'book_files',
  {
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    format: text('format', { enum: ['pdf', 'epub', 'sample'] }).notNull(),
    storageKey: text('storage_key').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    sourceHash: text('source_hash').notNull(),
    /** The edition these files are (book_editions.number); 1 for books published before editions existed. */
    edition: integer('edition').notNull().default(1),
    ...timestamps,
  },
  (table) => [
    primaryKey({ columns: [table.bookId, table.format] }),
    check('book_files_format_check', sql`${table.format} in ('pdf', 'epub', 'sample')`),
    check('book_files_size_check', sql`${table.sizeBytes} > 0`),
  ],
)

/**
 * Mail waiting to go out (receipts). A receipt is queued inside the purchase's transaction, so it exists
 * exactly when the purchase does (decision 008), and is sent after the commit by a worker that retries with
 * backoff: a mail server being down never fails a purchase, and no receipt is lost on a restart.
 */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').notNull(),
    /** What the mail is about, e.g. an order id: one receipt per order. */
    subjectKey: text('subject_key').notNull(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('email_outbox_kind_subject_unique').on(table.kind, table.subjectKey),
    index('email_outbox_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.sentAt} is null`),
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

/** The manuscript being worked on in the back office (Markdown as in content/books/), before it is published. */
export const bookManuscripts = pgTable('book_manuscripts', {
  bookId: uuid('book_id')
    .primaryKey()
    .references(() => books.id, { onDelete: 'cascade' }),
  source: text('source').notNull(),
  updatedBy: text('updated_by').references(() => user.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

/**
 * Every published edition of a book: its number, date, changelog and the manuscript it was rendered from.
 * The newest is what `book_files` holds and owners download.
 */
export const bookEditions = pgTable(
  'book_editions',
  {
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    changelog: text('changelog').notNull().default(''),
    manuscript: text('manuscript').notNull(),
    sourceHash: text('source_hash').notNull(),
    publishedBy: text('published_by').references(() => user.id, { onDelete: 'set null' }),
    publishedAt: timestamp('published_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.bookId, table.number] }),
    check('book_editions_number_check', sql`${table.number} >= 1`),
  ],
)

/**
 * What admins changed, who and when, with the row before and after as JSON: written in the same transaction
 * as the change, never updated or deleted by the store.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    actorId: text('actor_id').references(() => user.id, { onDelete: 'set null' }),
    /** Kept as it was: the actor's account may be deleted or change its email later. 'cli' for the command line. */
    actorEmail: text('actor_email').notNull(),
    /** What was done, as '<entity>.<verb>': 'book.create', 'book.update', 'order.refund', 'user.grant-admin', … */
    action: text('action').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('audit_log_created_at_idx').on(table.createdAt, table.id),
    index('audit_log_entity_idx').on(table.entityType, table.entityId),
  ],
)

/** The store events the first-party analytics records (docs/decisions/015-first-party-analytics.md). */
export const ANALYTICS_EVENT_NAMES = [
  'page_view',
  'view_item',
  'add_to_cart',
  'remove_from_cart',
  'begin_checkout',
  'purchase',
  'search',
  'download',
] as const
export type AnalyticsEventName = (typeof ANALYTICS_EVENT_NAMES)[number]

/**
 * Raw store events, kept ANALYTICS_RETENTION_DAYS (400 by default) and then deleted: the daily aggregates
 * below are updated in the same transaction as each batch is written, so they already hold everything.
 * No IP address and no user agent: `visitor` is a keyed hash whose key is thrown away after its UTC day.
 */
export const analyticsEvents = pgTable(
  'analytics_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    name: text('name', { enum: ANALYTICS_EVENT_NAMES }).notNull(),
    visitor: text('visitor'),
    /** page_view: the route's path template ('/books/:slug'), never the URL itself. */
    path: text('path'),
    /** page_view: the host of an external referrer, nothing else of it. */
    referrerHost: text('referrer_host'),
    bookId: uuid('book_id'),
    orderId: uuid('order_id'),
    /** purchase: the order's total. */
    valueCents: integer('value_cents'),
    currency: text('currency'),
    /** purchase: what each book brought in, [{ bookId, cents }]. */
    items: jsonb('items').$type<Array<{ bookId: string; cents: number }>>(),
    query: text('query'),
    resultCount: integer('result_count'),
  },
  (table) => [
    index('analytics_events_occurred_at_idx').on(table.occurredAt),
    // A payment confirmed twice (a webhook delivered again) is one purchase.
    uniqueIndex('analytics_events_purchase_unique')
      .on(table.orderId)
      .where(sql`${table.name} = 'purchase'`),
    check(
      'analytics_events_name_check',
      sql`${table.name} in ('page_view', 'view_item', 'add_to_cart', 'remove_from_cart', 'begin_checkout', 'purchase', 'search', 'download')`,
    ),
  ],
)

/** The key of each UTC day's visitor hashes; deleted once the day is over, so old ids cannot be recomputed. */
export const analyticsSalts = pgTable('analytics_salts', {
  day: date('day', { mode: 'string' }).primaryKey(),
  salt: text('salt').notNull(),
})

/** Events per day and name; purchases per currency with their value ('' for every other event). */
export const analyticsDaily = pgTable(
  'analytics_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    name: text('name', { enum: ANALYTICS_EVENT_NAMES }).notNull(),
    currency: text('currency').notNull().default(''),
    events: bigint('events', { mode: 'number' }).notNull(),
    valueCents: bigint('value_cents', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.name, table.currency] })],
)

/** Distinct visitors per day (a visitor id only lives one day, so this is the only visitor count there is). */
export const analyticsDailyVisitors = pgTable('analytics_daily_visitors', {
  day: date('day', { mode: 'string' }).primaryKey(),
  visitors: bigint('visitors', { mode: 'number' }).notNull(),
})

/** The visitor ids already counted for a day; kept only while that day's events may still arrive. */
export const analyticsVisitorDays = pgTable(
  'analytics_visitor_days',
  {
    day: date('day', { mode: 'string' }).notNull(),
    visitor: text('visitor').notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.visitor] })],
)

/** Per book and day: item views, purchases and revenue (in the book's currency). */
export const analyticsDailyBooks = pgTable(
  'analytics_daily_books',
  {
    day: date('day', { mode: 'string' }).notNull(),
    bookId: uuid('book_id').notNull(),
    views: bigint('views', { mode: 'number' }).notNull().default(0),
    purchases: bigint('purchases', { mode: 'number' }).notNull().default(0),
    revenueCents: bigint('revenue_cents', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.bookId] })],
)

/** Searches that found nothing, per day and (normalised) query. */
export const analyticsDailyZeroSearches = pgTable(
  'analytics_daily_zero_searches',
  {
    day: date('day', { mode: 'string' }).notNull(),
    query: text('query').notNull(),
    searches: bigint('searches', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.query] })],
)

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
