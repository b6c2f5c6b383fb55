/** What readers own, and the books' files and editions they download. */
import { sql } from 'drizzle-orm'
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { books } from './catalog.server.ts'
import { user } from './identity.server.ts'
import { orders } from './orders.server.ts'
import { emailOutbox } from './outbox.server.ts'

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
    /**
     * The PDF's (or the sample's) number of pages, counted from the file when it is listed; null for the EPUB
     * (it reflows). Rows listed before the column existed get theirs at the next start-up (publishBookFiles).
     */
    pageCount: integer('page_count'),
    ...timestamps,
  },
  (table) => [
    primaryKey({ columns: [table.bookId, table.format] }),
    check('book_files_format_check', sql`${table.format} in ('pdf', 'epub', 'sample')`),
    check('book_files_size_check', sql`${table.sizeBytes} > 0`),
    check('book_files_page_count_check', sql`${table.pageCount} is null or ${table.pageCount} > 0`),
  ],
)

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

/** A chapter of the table of contents: its title and its sections' titles (the manuscript's `#` and `##`). */
export type ContentsChapter = { title: string; sections: string[] }

/**
 * What the live edition (the one `book_files` lists) holds, for the book page: its table of contents and its
 * words (the reading time), taken from the manuscript whenever the files are listed (publishBookFiles at
 * start-up, publishEdition in the back office). One row per book, read by its key.
 */
export const bookContents = pgTable(
  'book_contents',
  {
    bookId: uuid('book_id')
      .primaryKey()
      .references(() => books.id, { onDelete: 'cascade' }),
    edition: integer('edition').notNull(),
    /** The sha256 of the manuscript this was read from: start-up reads it again only when that changes. */
    sourceHash: text('source_hash').notNull(),
    wordCount: integer('word_count').notNull(),
    chapters: jsonb('chapters').$type<ContentsChapter[]>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check('book_contents_word_count_check', sql`${table.wordCount} >= 0`)],
)

/** Where a reader's books go when they send them to their Kindle (issue 33): their @kindle.com address. */
export const kindleAddresses = pgTable('kindle_addresses', {
  userId: text('user_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  address: text('address').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

/**
 * Each time a reader sent a book to their Kindle: the mail in the outbox says whether it is queued, sent or
 * failed; the newest row of a book is what once-an-hour is counted from.
 */
export const kindleDeliveries = pgTable(
  'kindle_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    emailId: uuid('email_id').references(() => emailOutbox.id, { onDelete: 'set null' }),
    address: text('address').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('kindle_deliveries_user_book_idx').on(table.userId, table.bookId, table.createdAt)],
)
