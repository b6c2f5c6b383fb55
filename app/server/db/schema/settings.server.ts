/** The owner's settings of the store and the site pages' texts. */
import { integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'

/**
 * The store's settings (name, seller's identity, social links, home page texts) as one JSON document under the
 * key 'store', read through a zod schema that fills in the defaults (features/settings): a missing row or field
 * means 'as a fresh store shows it'. `version` counts saves, so two admins cannot overwrite each other unseen.
 */
export const storeSettings = pgTable('store_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  version: integer('version').notNull().default(1),
  ...timestamps,
})

/**
 * The site pages (About, Contact, Terms, Privacy, Refund policy, Imprint) as the owner wrote them, in Markdown.
 * A page without a row shows its starting text (features/site-pages).
 */
export const sitePages = pgTable('site_pages', {
  slug: text('slug').primaryKey(),
  title: text('title').notNull(),
  body: text('body').notNull(),
  version: integer('version').notNull().default(1),
  ...timestamps,
})
