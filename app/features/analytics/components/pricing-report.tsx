import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { formatPrice } from '#app/features/catalog/format.ts'
import { PRICING_REPORT_ROWS, type PricingReport } from '../pricing-report.ts'
import { Block, cellClass, count, numberClass, rowClass, Table } from './analytics-table.tsx'

const linkClass = 'text-blue-700 underline underline-offset-2 dark:text-blue-300'

/**
 * The dashboard's pricing panel (issue 30): revenue by coupon and by bundle, what readers paid for the
 * pay-what-you-want books, and the gifts bought in the period. Each amount in its own currency.
 */
export function PricingReportPanel({ report }: { report: PricingReport }) {
  const { byCoupon, byBundle, payWhatYouWant, gifts } = report
  return (
    <Block title="Pricing: coupons, bundles, pay what you want and gifts">
      <p className="mb-4 text-sm text-slate-700 dark:text-slate-300">
        Orders paid in this period and not refunded, as they were bought. Net revenue is what they paid less
        tax, less any part of them refunded since; the {PRICING_REPORT_ROWS} largest of each table.
      </p>
      <div className="grid gap-8 lg:grid-cols-2">
        <Part
          title="Net revenue by coupon"
          empty={byCoupon.length === 0 ? 'No coupon used in this period.' : null}
        >
          <Table caption="Net revenue by coupon" head={['Coupon', 'Orders', 'Net revenue', 'Discount given']}>
            {byCoupon.map((row) => (
              <tr key={`${row.code}:${row.currency}`} className={rowClass}>
                <th scope="row" className={`${cellClass} font-mono break-all`}>
                  {row.code}
                </th>
                <td className={numberClass}>{count.format(row.orders)}</td>
                <td className={numberClass}>{formatPrice(row.revenueCents, row.currency)}</td>
                <td className={numberClass}>{formatPrice(row.discountCents, row.currency)}</td>
              </tr>
            ))}
          </Table>
        </Part>
        <Part
          title="Net revenue by bundle"
          empty={byBundle.length === 0 ? 'No bundle sold in this period.' : null}
        >
          <Table caption="Net revenue by bundle" head={['Bundle', 'Orders', 'Net revenue']}>
            {byBundle.map((row) => (
              <tr key={`${row.bundleId}:${row.currency}`} className={rowClass}>
                <th scope="row" className={cellClass}>
                  <Link to={`/bundles/${row.slug}`} className={linkClass}>
                    {row.title}
                  </Link>
                </th>
                <td className={numberClass}>{count.format(row.orders)}</td>
                <td className={numberClass}>{formatPrice(row.revenueCents, row.currency)}</td>
              </tr>
            ))}
          </Table>
        </Part>
        <Part
          title="Pay what you want: paid on average"
          empty={payWhatYouWant.length === 0 ? 'No pay-what-you-want book sold in this period.' : null}
        >
          <Table
            caption="Pay what you want: paid on average"
            head={['Book', 'Copies', 'Average paid', 'Minimum', 'Suggested']}
          >
            {payWhatYouWant.map((row) => (
              <tr key={`${row.bookId}:${row.currency}`} className={rowClass}>
                <th scope="row" className={cellClass}>
                  <Link to={`/books/${row.slug}`} className={linkClass}>
                    {row.title}
                  </Link>
                </th>
                <td className={numberClass}>{count.format(row.copies)}</td>
                <td className={numberClass}>{formatPrice(row.averageCents, row.currency)}</td>
                <td className={numberClass}>{formatPrice(row.minimumCents, row.currency)}</td>
                <td className={numberClass}>{formatPrice(row.suggestedCents, row.currency)}</td>
              </tr>
            ))}
          </Table>
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            Copies bought on their own (a copy in a bundle was priced by the bundle), after any coupon.
          </p>
        </Part>
        <Part title="Gifts" empty={gifts.bought === 0 ? 'No gift bought in this period.' : null}>
          <Table caption="Gifts bought in this period" head={['Gifts', 'Count']}>
            {(
              [
                ['Bought', gifts.bought],
                ['Mail sent', gifts.sent],
                ['Claimed', gifts.claimed],
                ['Taken back (refunded before the claim)', gifts.revoked],
              ] as const
            ).map(([label, value]) => (
              <tr key={label} className={rowClass}>
                <th scope="row" className={cellClass}>
                  {label}
                </th>
                <td className={numberClass}>{count.format(value)}</td>
              </tr>
            ))}
          </Table>
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            Gifts whose order was paid in this period, refunded ones included; sent, claimed and taken back so
            far.
          </p>
        </Part>
      </div>
    </Block>
  )
}

function Part({ title, empty, children }: { title: string; empty: string | null; children: ReactNode }) {
  return (
    <section className="min-w-0">
      <h3 className="mb-2 font-semibold">{title}</h3>
      {empty === null ? children : <p className="text-sm">{empty}</p>}
    </section>
  )
}
