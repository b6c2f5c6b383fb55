import { DataTable } from '#app/components/ui/data-table.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'
import { formatRate } from '#app/features/tax/compute-tax.ts'
import type { TaxReturnRow, TaxRowKind } from '../tax-return.server.ts'

const amountClass = 'whitespace-nowrap text-right tabular-nums'
const money = (cents: number, currency: string) => formatPrice(cents, currency)

const PARTS: Array<{ kind: TaxRowKind; title: string; note: string }> = [
  {
    kind: 'taxed',
    title: 'Tax charged, per country and rate',
    note: 'What the VAT returns declare: for EU countries (scheme EU), the One-Stop Shop return’s figures.',
  },
  {
    kind: 'reverse-charge',
    title: 'Reverse-charged sales (net only)',
    note: 'Sold to EU businesses with a valid VAT number: they account for the tax (EC Sales List).',
  },
  {
    kind: 'untaxed',
    title: 'Sales without tax',
    note: 'Countries the store charges no tax in, and orders from before tax was recorded.',
  },
]

/**
 * The period's tax per country and rate (tax-return.server.ts): sales less refunds, each row in its currency.
 * A part without rows is left out.
 */
export function TaxReturnTables({ rows }: { rows: TaxReturnRow[] }) {
  if (rows.length === 0) return <p className="text-sm">No sale and no refund in this period.</p>
  return (
    <div className="flex flex-col gap-6">
      {PARTS.map(({ kind, title, note }) => {
        const part = rows.filter((row) => row.kind === kind)
        if (part.length === 0) return null
        const taxed = kind === 'taxed'
        return (
          <section key={kind} aria-labelledby={`tax-${kind}`}>
            <h3 id={`tax-${kind}`} className="mb-1 font-semibold">
              {title}
            </h3>
            <p className="mb-2 text-sm text-slate-700 dark:text-slate-300">{note}</p>
            <DataTable
              caption={title}
              rowKey={(row) => `${row.country}:${row.rateBp}:${row.currency}`}
              rows={part}
              columns={[
                {
                  header: 'Country',
                  rowHeader: true,
                  cell: (row) => (row.country ? `${row.countryName} (${row.country})` : row.countryName),
                },
                { header: 'Scheme', cell: (row) => row.scheme ?? '—' },
                ...(taxed ? [{ header: 'Rate', cell: (row: TaxReturnRow) => formatRate(row.rateBp) }] : []),
                { header: 'Currency', cell: (row) => row.currency },
                {
                  header: 'Sales (net)',
                  cell: (row) => money(row.salesNetCents, row.currency),
                  className: amountClass,
                },
                {
                  header: 'Refunds (net)',
                  cell: (row) => money(row.refundsNetCents, row.currency),
                  className: amountClass,
                },
                {
                  header: 'Taxable net',
                  cell: (row) => money(row.netCents, row.currency),
                  className: `${amountClass} font-semibold`,
                },
                ...(taxed
                  ? [
                      {
                        header: 'Tax',
                        cell: (row: TaxReturnRow) => money(row.taxCents, row.currency),
                        className: `${amountClass} font-semibold`,
                      },
                    ]
                  : []),
              ]}
            />
          </section>
        )
      })}
    </div>
  )
}
