/** Tax rates by country (features/tax, decision 038). */
import { sql } from 'drizzle-orm'
import { check, date, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'

/**
 * A country's rates from a day on, until a later row of the same country takes over: the eBook rate and the
 * standard rate, in basis points (1900 = 19 %). Migration 0031 copies the rates the store ships with
 * (features/tax/tax-rates-data.ts); the owner adds and corrects rows in the back office (audited). A row in
 * effect for an order that was made is never changed: the order keeps the rate it was charged.
 */
export const taxRates = pgTable(
  'tax_rates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    country: text('country').notNull(),
    /** The first day the rates apply, in the country's own time (features/tax/tax-rates-data.ts). */
    effectiveFrom: date('effective_from', { mode: 'string' }).notNull(),
    ebookRateBp: integer('ebook_rate_bp').notNull(),
    standardRateBp: integer('standard_rate_bp').notNull(),
    note: text('note').notNull().default(''),
    /** 'shipped' (from the store's data) or 'owner' (added or changed in the back office). */
    source: text('source', { enum: ['shipped', 'owner'] })
      .notNull()
      .default('owner'),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('tax_rates_country_from_unique').on(table.country, table.effectiveFrom),
    check('tax_rates_country_check', sql`${table.country} ~ '^[A-Z]{2}$'`),
    check(
      'tax_rates_rate_check',
      sql`${table.ebookRateBp} between 0 and 10000 and ${table.standardRateBp} between 0 and 10000`,
    ),
    check('tax_rates_source_check', sql`${table.source} in ('shipped', 'owner')`),
  ],
)
