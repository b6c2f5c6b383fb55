import { useMemo } from 'react'
import { MONEY_LABELS, MoneyTable } from '#app/features/accounts/components/money-table.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { AnalyticsDashboard, PeriodTotals } from '../dashboard.server.ts'
import { AnalyticsChart } from './analytics-chart.tsx'
import {
  Block,
  cellClass,
  count,
  numberClass,
  percent,
  rowClass,
  ScrollTable,
  Table,
} from './analytics-table.tsx'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { useFormatDate } from '#app/features/locale/date-format.ts'

/**
 * The dashboard for one period: the totals against the period before, revenue and visitors per day (a chart
 * and the same figures as a table), the funnel, the top books and the searches that found nothing.
 */
export function AnalyticsFigures({ dashboard, today }: { dashboard: AnalyticsDashboard; today: string }) {
  return (
    <>
      <Summary dashboard={dashboard} />
      <DailyCharts dashboard={dashboard} today={today} />
      <Funnel dashboard={dashboard} />
      <div className="grid gap-8 lg:grid-cols-2">
        <TopBooks title="Top books by revenue" books={dashboard.topByRevenue} />
        <TopBooks title="Top books by views" books={dashboard.topByViews} />
      </div>
      <p className="-mt-4 text-sm text-slate-700 dark:text-slate-300">
        A book&rsquo;s gross sales are what its copies sold for when they were bought (tax included, before
        refunds).
      </p>
      <ZeroResultSearches searches={dashboard.zeroResultSearches} />
    </>
  )
}

function change(current: number, previous: number): string {
  if (previous === 0) return current === 0 ? 'no change' : 'new'
  const ratio = (current - previous) / previous
  return `${ratio > 0 ? '+' : ''}${percent.format(ratio)}`
}

function Summary({ dashboard }: { dashboard: AnalyticsDashboard }) {
  const { totals, previous, currency, range } = dashboard
  const formatDate = useFormatDate()
  const day = (value: string) => formatDate(value, 'date')
  const money = (cents: number) => formatPrice(cents, currency)
  const rows: Array<[string, keyof PeriodTotals, (value: number) => string]> = [
    [MONEY_LABELS.grossCents, 'grossCents', money],
    [MONEY_LABELS.refundsCents, 'refundsCents', money],
    [MONEY_LABELS.taxCents, 'taxCents', money],
    [MONEY_LABELS.netCents, 'netCents', money],
    ['Orders', 'orders', count.format],
    ['Visitors', 'visitors', count.format],
    ['Page views', 'pageViews', count.format],
    ['Book views', 'bookViews', count.format],
    ['Searches', 'searches', count.format],
    ['Downloads', 'downloads', count.format],
  ]
  return (
    <Block
      title={`${day(range.from)} to ${day(range.to)} (${range.days} days), compared with ${day(range.previous.from)} to ${day(range.previous.to)}`}
    >
      <Table head={['Measure', 'This period', 'Previous period', 'Change']}>
        {rows.map(([label, key, format]) => (
          <tr key={key} className={rowClass}>
            <th scope="row" className={cellClass}>
              {label}
            </th>
            <td className={numberClass}>{format(totals[key])}</td>
            <td className={numberClass}>{format(previous[key])}</td>
            <td className={numberClass}>{change(totals[key], previous[key])}</td>
          </tr>
        ))}
      </Table>
      <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
        Money in {currency}, from the orders themselves: gross sales are orders paid in the period (tax
        included), refunds those confirmed in it (whenever their order was paid), tax is what the orders
        charged less what the refunds gave back, and net revenue is gross sales less refunds less tax.
        Visitors are counted per day and added up: a visitor&rsquo;s id changes every day, so someone who
        comes on three days counts three times.
      </p>
      {dashboard.money.some((money) => money.currency !== currency) ? (
        <div className="mt-4">
          <h3 className="mb-2 font-semibold">Every currency sold in this period</h3>
          <MoneyTable money={dashboard.money} caption="Money in this period, per currency" />
        </div>
      ) : null}
    </Block>
  )
}

function DailyCharts({ dashboard, today }: { dashboard: AnalyticsDashboard; today: string }) {
  const { days: figures, currency } = dashboard
  const days = useMemo(() => figures.map((figure) => figure.day), [figures])
  const revenue = useMemo(
    () => [
      {
        label: `${MONEY_LABELS.grossCents} (${currency})`,
        values: figures.map((figure) => figure.grossCents / 100),
        color: '#2563eb',
        format: (value: number) => formatPrice(Math.round(value * 100), currency),
      },
      {
        label: `${MONEY_LABELS.netCents} (${currency})`,
        values: figures.map((figure) => figure.netCents / 100),
        color: '#059669',
        format: (value: number) => formatPrice(Math.round(value * 100), currency),
      },
      { label: 'Orders', values: figures.map((figure) => figure.orders), color: '#d97706', secondAxis: true },
    ],
    [figures, currency],
  )
  const visitors = useMemo(
    () => [
      { label: 'Visitors', values: figures.map((figure) => figure.visitors), color: '#059669' },
      { label: 'Page views', values: figures.map((figure) => figure.pageViews), color: '#7c3aed' },
    ],
    [figures],
  )
  const dayLabel = (day: string) => (
    <>
      <FormattedDate value={day} />
      {day === today ? ' (so far)' : null}
    </>
  )
  return (
    <div className="grid gap-8 xl:grid-cols-2">
      <Block title={`Sales and orders per day (${currency})`}>
        <AnalyticsChart days={days} series={revenue} />
        <ScrollTable
          label="Sales and orders per day"
          head={[
            'Day',
            MONEY_LABELS.grossCents,
            MONEY_LABELS.refundsCents,
            MONEY_LABELS.taxCents,
            MONEY_LABELS.netCents,
            'Orders',
          ]}
        >
          {figures.map((figure) => (
            <tr key={figure.day} className={rowClass}>
              <th scope="row" className={cellClass}>
                {dayLabel(figure.day)}
              </th>
              <td className={numberClass}>{formatPrice(figure.grossCents, currency)}</td>
              <td className={numberClass}>{formatPrice(figure.refundsCents, currency)}</td>
              <td className={numberClass}>{formatPrice(figure.taxCents, currency)}</td>
              <td className={numberClass}>{formatPrice(figure.netCents, currency)}</td>
              <td className={numberClass}>{count.format(figure.orders)}</td>
            </tr>
          ))}
        </ScrollTable>
      </Block>
      <Block title="Visitors per day">
        <AnalyticsChart days={days} series={visitors} />
        <ScrollTable label="Visitors per day" head={['Day', 'Visitors', 'Page views']}>
          {figures.map((figure) => (
            <tr key={figure.day} className={rowClass}>
              <th scope="row" className={cellClass}>
                {dayLabel(figure.day)}
              </th>
              <td className={numberClass}>{count.format(figure.visitors)}</td>
              <td className={numberClass}>{count.format(figure.pageViews)}</td>
            </tr>
          ))}
        </ScrollTable>
      </Block>
    </div>
  )
}

function Funnel({ dashboard }: { dashboard: AnalyticsDashboard }) {
  const first = dashboard.funnel[0]?.count ?? 0
  return (
    <Block title="Funnel: book view → cart → checkout → purchase">
      <Table head={['Step', 'Events', 'From the step before', 'Share of book views']}>
        {dashboard.funnel.map((step) => (
          <tr key={step.name} className={rowClass}>
            <th scope="row" className={cellClass}>
              {step.label}
            </th>
            <td className={numberClass}>{count.format(step.count)}</td>
            <td className={numberClass}>
              {step.rateFromPrevious === null ? '—' : percent.format(step.rateFromPrevious)}
            </td>
            <td className={cellClass}>
              <span className="flex items-center justify-end gap-2">
                {/* An SVG bar: the store's CSP allows no inline style attributes. */}
                <svg aria-hidden="true" width="160" height="12" className="shrink-0">
                  <rect
                    width={first > 0 ? Math.max(2, (step.count / first) * 160) : 2}
                    height="12"
                    rx="2"
                    className="fill-blue-700 dark:fill-blue-400"
                  />
                </svg>
                {first > 0 ? percent.format(step.count / first) : '—'}
              </span>
            </td>
          </tr>
        ))}
      </Table>
      <p className="mt-2 text-sm">
        Conversion (purchases per book view):{' '}
        <strong>{dashboard.conversionRate === null ? '—' : percent.format(dashboard.conversionRate)}</strong>
      </p>
    </Block>
  )
}

function TopBooks({ title, books }: { title: string; books: AnalyticsDashboard['topByRevenue'] }) {
  return (
    <Block title={title}>
      {books.length === 0 ? (
        <p className="text-sm">Nothing in this period.</p>
      ) : (
        <Table head={['Book', 'Gross sales', 'Sold', 'Views']}>
          {books.map((book) => (
            <tr key={book.bookId} className={rowClass}>
              <th scope="row" className={cellClass}>
                {book.title}
              </th>
              <td className={numberClass}>{formatPrice(book.revenueCents, book.currency)}</td>
              <td className={numberClass}>{count.format(book.purchases)}</td>
              <td className={numberClass}>{count.format(book.views)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Block>
  )
}

function ZeroResultSearches({ searches }: { searches: AnalyticsDashboard['zeroResultSearches'] }) {
  return (
    <Block title="Searches that found nothing">
      {searches.length === 0 ? (
        <p className="text-sm">None in this period.</p>
      ) : (
        <Table head={['Query', 'Searches']}>
          {searches.map((search) => (
            <tr key={search.query} className={rowClass}>
              <th scope="row" className={`${cellClass} wrap-break-word`}>
                {search.query}
              </th>
              <td className={numberClass}>{count.format(search.searches)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Block>
  )
}
