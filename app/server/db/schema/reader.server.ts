/** The online reader: where each reader is in each book, their bookmarks and highlights, and errata reports. */
import { sql } from 'drizzle-orm'
import {
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { books } from './catalog.server.ts'
import { user } from './identity.server.ts'

/**
 * Where a reader last was in a book, one row per (reader, book), synced between their devices. `cfi` is the
 * EPUB location in `edition`; `fraction` (0–1) and `quote` (the words there) find the place again in another
 * edition. `readAt` is when the reader was there, by their device: the newest wins (a device that was offline
 * does not pull the reader back).
 */
export const readingPositions = pgTable(
  'reading_positions',
  {
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    edition: integer('edition').notNull(),
    cfi: text('cfi').notNull(),
    fraction: doublePrecision('fraction').notNull(),
    quote: text('quote').notNull().default(''),
    readAt: timestamp('read_at', { withTimezone: true }).notNull(),
    ...timestamps,
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.bookId] }),
    check('reading_positions_fraction_check', sql`${table.fraction} >= 0 and ${table.fraction} <= 1`),
  ],
)

/**
 * A reader's bookmark or highlight (with an optional note) in an edition of a book. `quote` is the text it
 * marks (for a bookmark, the words where it was set): in a new edition it is placed again by that quote, and
 * `cfi`/`edition` move with it; one that cannot be placed keeps its old edition and is listed as such.
 */
export const annotations = pgTable(
  'annotations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['bookmark', 'highlight'] }).notNull(),
    edition: integer('edition').notNull(),
    cfi: text('cfi').notNull(),
    quote: text('quote').notNull().default(''),
    note: text('note').notNull().default(''),
    ...timestamps,
  },
  (table) => [
    index('annotations_reader_book_idx').on(table.userId, table.bookId, table.createdAt),
    check('annotations_kind_check', sql`${table.kind} in ('bookmark', 'highlight')`),
  ],
)

/**
 * A mistake a reader reported in a book: the words (`quote`) at `location` (a CFI and/or a chapter) of
 * `edition`, what is wrong and a suggested fix. The back office confirms or rejects it (with a reason);
 * publishing an edition marks the confirmed ones fixed in it. The reporter is credited by `credit` (empty:
 * anonymous); `reporterId` is kept to mail them when it is fixed, and forgotten with their account.
 */
export const errata = pgTable(
  'errata',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    bookId: uuid('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    edition: integer('edition').notNull(),
    reporterId: text('reporter_id').references(() => user.id, { onDelete: 'set null' }),
    credit: text('credit').notNull().default(''),
    quote: text('quote').notNull(),
    location: text('location').notNull().default(''),
    description: text('description').notNull(),
    suggestion: text('suggestion').notNull().default(''),
    status: text('status', { enum: ['open', 'confirmed', 'rejected', 'fixed'] })
      .notNull()
      .default('open'),
    /** Why it was rejected: mailed to the reporter (the book page lists no rejected errata). */
    reason: text('reason').notNull().default(''),
    fixedInEdition: integer('fixed_in_edition'),
    ...timestamps,
  },
  (table) => [
    index('errata_book_idx').on(table.bookId, table.edition, table.createdAt),
    index('errata_status_idx').on(table.status, table.createdAt),
    check('errata_status_check', sql`${table.status} in ('open', 'confirmed', 'rejected', 'fixed')`),
    check('errata_fixed_check', sql`(${table.status} = 'fixed') = (${table.fixedInEdition} is not null)`),
  ],
)
