import { sql } from 'drizzle-orm'
import { countryName } from '#app/features/tax/countries.ts'
import { taxCountry } from '#app/features/tax/tax-rates.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { startOfDay, type DayBounds } from './revenue.server.ts'

/**
 * How a row of the tax table was taxed: tax charged at the rate of the buyer's country ('taxed': what the OSS
 * return and the other countries' returns declare), reverse-charged to an EU business buyer (net only: the
 * buyer accounts for the tax; listed apart, as the return and the EC Sales List want them), or not taxed at all
 * (a country the store charges no tax in, or an order from before tax was recorded).
 */
export const TAX_ROW_KINDS = ['taxed', 'reverse-charge', 'untaxed'] as const
export type TaxRowKind = (typeof TAX_ROW_KINDS)[number]

export type TaxReturnRow = {
  kind: TaxRowKind
  /** The country whose tax was charged (ISO 3166-1 alpha-2); null for untaxed sales. */
  country: string | null
  countryName: string
  /** 'EU' (One-Stop Shop), 'GB', 'NO'…; null where none. */
  scheme: string | null
  rateBp: number
  currency: string
  /** The lines of orders paid in the period. */
  salesNetCents: number
  salesTaxCents: number
  /** The lines given back by refunds confirmed in the period. */
  refundsNetCents: number
  refundsTaxCents: number
  /** Sales less refunds: the taxable amount and the tax to declare. */
  netCents: number
  taxCents: number
}

type Sums = {
  tax_country: string | null
  reverse_charge: boolean
  rate_bp: number
  currency: string
  net_cents: string | number
  tax_cents: string | number
}

/**
 * Tax per country, rate and currency for a period: the lines of orders paid in it less the lines given back by
 * refunds confirmed in it (each refund line at the rate its order line was charged). Read from the lines as
 * stored at checkout: nothing is taxed again here.
 */
export async function getTaxReturn(db: Db, bounds: DayBounds): Promise<TaxReturnRow[]> {
  const start = startOfDay(bounds.from, bounds.timeZone)
  const end = startOfDay(bounds.to, bounds.timeZone, 1)
  const [sales, refunds] = (await Promise.all([
    db.execute(sql`
      select o.tax_country, o.reverse_charge, i.tax_rate_bp as rate_bp, o.currency,
        sum(i.net_cents) as net_cents, sum(i.tax_cents) as tax_cents
      from orders o join order_items i on i.order_id = o.id
      where o.paid_at >= ${start} and o.paid_at < ${end}
      group by 1, 2, 3, 4`),
    db.execute(sql`
      select o.tax_country, o.reverse_charge, coalesce(i.tax_rate_bp, 0) as rate_bp, r.currency,
        sum(line."netCents") as net_cents, sum(line."taxCents") as tax_cents
      from order_refunds r
        join orders o on o.id = r.order_id
        cross join lateral jsonb_to_recordset(r.lines) as line("bookId" uuid, "netCents" integer, "taxCents" integer)
        left join order_items i on i.order_id = r.order_id and i.book_id = line."bookId"
      where r.status = 'confirmed' and r.confirmed_at >= ${start} and r.confirmed_at < ${end}
      group by 1, 2, 3, 4`),
  ])) as unknown as [{ rows: Sums[] }, { rows: Sums[] }]
  const rows = new Map<string, TaxReturnRow>()
  const rowOf = (sums: Sums) => {
    const kind: TaxRowKind = sums.reverse_charge ? 'reverse-charge' : sums.tax_country ? 'taxed' : 'untaxed'
    const country = kind === 'untaxed' ? null : sums.tax_country
    const rateBp = kind === 'taxed' ? Number(sums.rate_bp) : 0
    const key = `${kind}:${country}:${rateBp}:${sums.currency}`
    let row = rows.get(key)
    if (!row) {
      row = {
        kind,
        country,
        countryName: country ? countryName(country) : 'No tax charged',
        scheme: country ? (taxCountry(country)?.scheme ?? null) : null,
        rateBp,
        currency: sums.currency,
        salesNetCents: 0,
        salesTaxCents: 0,
        refundsNetCents: 0,
        refundsTaxCents: 0,
        netCents: 0,
        taxCents: 0,
      }
      rows.set(key, row)
    }
    return row
  }
  for (const sale of sales.rows) {
    const row = rowOf(sale)
    row.salesNetCents += Number(sale.net_cents)
    row.salesTaxCents += Number(sale.tax_cents)
  }
  for (const refund of refunds.rows) {
    const row = rowOf(refund)
    row.refundsNetCents += Number(refund.net_cents)
    row.refundsTaxCents += Number(refund.tax_cents)
  }
  const kindOrder = (kind: TaxRowKind) => TAX_ROW_KINDS.indexOf(kind)
  return [...rows.values()]
    .map((row) => ({
      ...row,
      netCents: row.salesNetCents - row.refundsNetCents,
      taxCents: row.salesTaxCents - row.refundsTaxCents,
    }))
    .toSorted(
      (a, b) =>
        kindOrder(a.kind) - kindOrder(b.kind) ||
        (a.country ?? '').localeCompare(b.country ?? '') ||
        b.rateBp - a.rateBp ||
        a.currency.localeCompare(b.currency),
    )
}
