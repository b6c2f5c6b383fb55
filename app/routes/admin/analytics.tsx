import { useMemo, type ReactNode } from 'react'
import { data, Form, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { AnalyticsChart } from '#app/features/analytics/components/analytics-chart.tsx'
import { getAnalyticsDashboard, type PeriodTotals } from '#app/features/analytics/dashboard.server.ts'
import { RANGE_CHOICES } from '#app/features/analytics/range-choices.ts'
import { resolveRange, type RangeErrors } from '#app/features/analytics/range.ts'
import { utcDay } from '#app/features/analytics/visitor.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/analytics'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = () =>
  privatePageMeta('Analytics — Back office', 'Analytics in the CodeBook back office.')

/** /admin/analytics?range=7|30|90 or ?range=custom&from=YYYY-MM-DD&to=YYYY-MM-DD (UTC days; default 30). */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const today = utcDay(new Date())
  const form = {
    range: url.searchParams.get('range') ?? '30',
    from: url.searchParams.get('from') ?? '',
    to: url.searchParams.get('to') ?? '',
  }
  const resolved = resolveRange(url.searchParams, today)
  if (!resolved.ok) return data({ today, form, errors: resolved.errors, dashboard: null }, { status: 400 })
  const dashboard = await getAnalyticsDashboard(getAppContext(context).db, resolved.range)
  const { from, to } = resolved.range
  return { today, form: { ...form, from, to }, errors: null as RangeErrors | null, dashboard }
}

const rangeLabels: Record<(typeof RANGE_CHOICES)[number], string> = {
  '7': 'Last 7 days',
  '30': 'Last 30 days',
  '90': 'Last 90 days',
  custom: 'Custom',
}

const count = new Intl.NumberFormat('en-US')
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 })

export default function Analytics({ loaderData }: Route.ComponentProps) {
  const { today, form, errors, dashboard } = loaderData
  const exportHref = `/admin/analytics/export.csv?${new URLSearchParams(
    form.range === 'custom' ? form : { range: form.range },
  )}`
  return (
    <section aria-labelledby="analytics-heading" className="flex flex-col gap-8">
      <div>
        <h1 id="analytics-heading" className="mb-2 text-2xl font-semibold">
          Analytics
        </h1>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Recorded by the store itself: no cookies, no addresses, nothing for visitors who send Do Not Track
          or Global Privacy Control. Days are UTC; today ({today}) is still in progress, so its figures are
          partial.
        </p>
      </div>
      <RangeForm form={form} errors={errors} />
      {dashboard ? (
        <>
          <p>
            <Link to={exportHref} reloadDocument className="text-blue-700 underline dark:text-blue-300">
              Download these figures (CSV)
            </Link>
          </p>
          <Summary dashboard={dashboard} />
          <DailyCharts dashboard={dashboard} today={today} />
          <Funnel dashboard={dashboard} />
          <div className="grid gap-8 lg:grid-cols-2">
            <TopBooks title="Top books by revenue" books={dashboard.topByRevenue} />
            <TopBooks title="Top books by views" books={dashboard.topByViews} />
          </div>
          <ZeroResultSearches searches={dashboard.zeroResultSearches} />
        </>
      ) : null}
    </section>
  )
}

type Dashboard = NonNullable<Route.ComponentProps['loaderData']['dashboard']>

function RangeForm({
  form,
  errors,
}: {
  form: { range: string; from: string; to: string }
  errors: RangeErrors | null
}) {
  const field =
    'rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400'
  return (
    <Form
      method="get"
      className="flex flex-col gap-4 rounded-lg border border-slate-300 p-4 dark:border-gray-600"
    >
      {errors ? (
        <div role="alert" className="text-sm text-red-700 dark:text-red-300">
          <p className="font-medium">Those dates cannot be shown:</p>
          <ul className="list-disc pl-5">
            {Object.values(errors).map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <fieldset aria-describedby={errors?.range ? 'range-error' : undefined}>
        <legend className="mb-2 text-sm font-medium">Period</legend>
        <div className="flex flex-wrap gap-4">
          {RANGE_CHOICES.map((choice) => (
            <label key={choice} className="flex items-center gap-2 text-sm">
              <input type="radio" name="range" value={choice} defaultChecked={form.range === choice} />
              {rangeLabels[choice]}
            </label>
          ))}
        </div>
        {errors?.range ? (
          <p id="range-error" className="mt-1 text-sm text-red-700 dark:text-red-300">
            {errors.range}
          </p>
        ) : null}
      </fieldset>
      <div className="flex flex-wrap items-end gap-4">
        {(['from', 'to'] as const).map((name) => (
          <div key={name} className="flex flex-col gap-1">
            <label htmlFor={`range-${name}`} className="text-sm font-medium">
              {name === 'from' ? 'First day (custom)' : 'Last day (custom)'}
            </label>
            <input
              id={`range-${name}`}
              type="date"
              name={name}
              defaultValue={form[name]}
              aria-invalid={errors?.[name] ? true : undefined}
              aria-describedby={errors?.[name] ? `range-${name}-error` : undefined}
              className={field}
            />
            {errors?.[name] ? (
              <p id={`range-${name}-error`} className="text-sm text-red-700 dark:text-red-300">
                {errors[name]}
              </p>
            ) : null}
          </div>
        ))}
        <button type="submit" className={primaryButton}>
          Show
        </button>
      </div>
    </Form>
  )
}

function change(current: number, previous: number): string {
  if (previous === 0) return current === 0 ? 'no change' : 'new'
  const ratio = (current - previous) / previous
  return `${ratio > 0 ? '+' : ''}${percent.format(ratio)}`
}

function Summary({ dashboard }: { dashboard: Dashboard }) {
  const { totals, previous, currency, range } = dashboard
  const money = (cents: number) => formatPrice(cents, currency)
  const rows: Array<[string, keyof PeriodTotals, (value: number) => string]> = [
    ['Revenue', 'revenueCents', money],
    ['Orders', 'orders', count.format],
    ['Visitors', 'visitors', count.format],
    ['Page views', 'pageViews', count.format],
    ['Book views', 'bookViews', count.format],
    ['Searches', 'searches', count.format],
    ['Downloads', 'downloads', count.format],
  ]
  return (
    <Block
      title={`${range.from} to ${range.to} (${range.days} days), compared with ${range.previous.from} to ${range.previous.to}`}
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
        Visitors are counted per day and added up: a visitor&rsquo;s id changes every day, so someone who
        comes on three days counts three times.
      </p>
      {dashboard.otherRevenue.length > 0 ? (
        <p className="mt-2 text-sm">
          Also sold in other currencies:{' '}
          {dashboard.otherRevenue
            .map((other) => `${formatPrice(other.revenueCents, other.currency)} (${other.orders} orders)`)
            .join(', ')}
        </p>
      ) : null}
    </Block>
  )
}

function DailyCharts({ dashboard, today }: { dashboard: Dashboard; today: string }) {
  const { days: figures, currency } = dashboard
  const days = useMemo(() => figures.map((figure) => figure.day), [figures])
  const revenue = useMemo(
    () => [
      {
        label: `Revenue (${currency})`,
        values: figures.map((figure) => figure.revenueCents / 100),
        color: '#2563eb',
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
  const dayLabel = (day: string) => (day === today ? `${day} (so far)` : day)
  return (
    <div className="grid gap-8 xl:grid-cols-2">
      <Block title="Revenue and orders per day">
        <AnalyticsChart days={days} series={revenue} />
        <ScrollTable label="Revenue and orders per day" head={['Day', 'Revenue', 'Orders']}>
          {figures.map((figure) => (
            <tr key={figure.day} className={rowClass}>
              <th scope="row" className={cellClass}>
                {dayLabel(figure.day)}
              </th>
              <td className={numberClass}>{formatPrice(figure.revenueCents, currency)}</td>
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

function Funnel({ dashboard }: { dashboard: Dashboard }) {
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

function TopBooks({ title, books }: { title: string; books: Dashboard['topByRevenue'] }) {
  return (
    <Block title={title}>
      {books.length === 0 ? (
        <p className="text-sm">Nothing in this period.</p>
      ) : (
        <Table head={['Book', 'Revenue', 'Sold', 'Views']}>
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

function ZeroResultSearches({ searches }: { searches: Dashboard['zeroResultSearches'] }) {
  return (
    <Block title="Searches that found nothing">
      {searches.length === 0 ? (
        <p className="text-sm">None in this period.</p>
      ) : (
        <Table head={['Query', 'Searches']}>
          {searches.map((search) => (
            <tr key={search.query} className={rowClass}>
              <th scope="row" className={`${cellClass} break-all`}>
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

const rowClass = 'border-b border-slate-200 dark:border-gray-700'
const cellClass = 'py-1.5 pr-4 text-left font-normal'
const numberClass = 'py-1.5 pr-4 text-right tabular-nums'

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="min-w-0">
      <h2 className="mb-3 text-lg font-semibold">{title}</h2>
      {children}
    </section>
  )
}

function Table({ head, children }: { head: string[]; children: ReactNode }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full border-collapse text-sm">
        <thead>
          <tr className="border-b border-slate-300 dark:border-gray-600">
            {head.map((label, index) => (
              <th key={label} scope="col" className={`py-2 pr-4 ${index === 0 ? 'text-left' : 'text-right'}`}>
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

/** A long per-day table in a box of its own; focusable, so it can be scrolled with the keyboard. */
function ScrollTable({ label, head, children }: { label: string; head: string[]; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={`${label} (table)`}
      tabIndex={0}
      className="mt-3 max-h-72 overflow-y-auto rounded focus-visible:outline-2 focus-visible:outline-blue-700 dark:focus-visible:outline-blue-300"
    >
      <Table head={head}>{children}</Table>
    </div>
  )
}
