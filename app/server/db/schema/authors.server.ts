/** The catalogue's authors: a page each (/authors/<slug>), a bio and a photo the owner edits. */
import { sql } from 'drizzle-orm'
import { check, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'

/**
 * An uploaded author photo, resized into `widths` in each of `formats` (storage keys
 * `<keyPrefix>-<width>.<format>`); `width`/`height` are the original's, for the aspect ratio the page reserves.
 */
export type AuthorPhoto = {
  keyPrefix: string
  widths: number[]
  formats: ('webp' | 'jpeg')[]
  width: number
  height: number
}

/**
 * An author: a name as the owner writes it, unique in any case (the book form picks an author by name), and
 * the slug of their page, which follows the name (the old one redirects). Books point to it with
 * `books.author_id`; `books.author` is a copy of the name, written by trigger (migration `authors`).
 */
export const authors = pgTable(
  'authors',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    /** Markdown, rendered like a book's description (features/catalog/markdown.ts). */
    bio: text('bio').notNull().default(''),
    photo: jsonb('photo').$type<AuthorPhoto>(),
    /** Optimistic concurrency for the back office: every edit bumps it; an edit of an older version is a 409. */
    version: integer('version').notNull().default(1),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('authors_slug_unique').on(table.slug),
    uniqueIndex('authors_name_lower_unique').on(sql`lower(${table.name})`),
    check('authors_slug_check', sql`${table.slug} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`),
  ],
)

/** An author's old slugs: their page under an old URL answers 301 to the current one (a rename). */
export const authorSlugRedirects = pgTable('author_slug_redirects', {
  slug: text('slug').primaryKey(),
  authorId: uuid('author_id')
    .notNull()
    .references(() => authors.id, { onDelete: 'cascade' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})
