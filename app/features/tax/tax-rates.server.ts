/**
 * The rate charged on an eBook in a country at a moment (decision 038): the country's row in `tax_rates` with
 * the latest first day on or before that moment's date in the country's own time.
 */
import { and, desc, eq, lte } from 'drizzle-orm'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { taxRates } from '#app/server/db/schema/index.server.ts'
import { shippedTaxRates, type ShippedCountry } from './tax-rates-data.ts'

const countries = new Map(shippedTaxRates.map((entry) => [entry.country, entry]))

/** The countries the store knows how to tax (their scheme, tax name and time zone). */
export function taxCountry(country: string): Omit<ShippedCountry, 'rates'> | undefined {
  return countries.get(country)
}

export function isTaxedCountry(country: string): boolean {
  return countries.has(country)
}

/** `at`'s calendar date in `timeZone`, as 'YYYY-MM-DD'. */
export function localDate(at: Date, timeZone: string): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at)
}

export type TaxRate = {
  country: string
  /** The eBook rate in basis points. */
  rateBp: number
  taxName: string
  effectiveFrom: string
  scheme: ShippedCountry['scheme']
}

/** The eBook rate in effect in `country` at `at`; null where the store charges no tax. */
export async function findTaxRate(db: Db | Tx, country: string, at: Date): Promise<TaxRate | null> {
  const known = countries.get(country)
  if (!known) return null
  const [row] = await db
    .select({ rateBp: taxRates.ebookRateBp, effectiveFrom: taxRates.effectiveFrom })
    .from(taxRates)
    .where(and(eq(taxRates.country, country), lte(taxRates.effectiveFrom, localDate(at, known.timeZone))))
    .orderBy(desc(taxRates.effectiveFrom))
    .limit(1)
  if (!row) return null
  return {
    country,
    rateBp: row.rateBp,
    taxName: known.taxName,
    effectiveFrom: row.effectiveFrom,
    scheme: known.scheme,
  }
}
