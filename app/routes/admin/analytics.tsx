import { data, Link } from 'react-router'
import chartStylesheet from 'uplot/dist/uPlot.min.css?url'
import { AnalyticsFigures } from '#app/features/analytics/components/analytics-figures.tsx'
import { RangeForm } from '#app/features/analytics/components/range-form.tsx'
import { PricingReportPanel } from '#app/features/analytics/components/pricing-report.tsx'
import { getAnalyticsDashboard } from '#app/features/analytics/dashboard.server.ts'
import { getPricingReport } from '#app/features/analytics/pricing-report.server.ts'
import { resolveRange, type RangeErrors } from '#app/features/analytics/range.ts'
import { utcDay } from '#app/features/analytics/visitor.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/analytics'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Analytics — Back office', 'Analytics in the CodeBook back office.', { matches })

/**
 * The charts' stylesheet, as a <link> in this page's head: imported by the chart's own code, Vite built it but
 * the production page never loaded it (the legend drawn over the plot). A file of our origin, so the CSP's
 * `style-src 'self'` allows it; only this page loads it.
 */
export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: chartStylesheet }]

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
  if (!resolved.ok)
    return data({ today, form, errors: resolved.errors, dashboard: null, pricing: null }, { status: 400 })
  const { db } = getAppContext(context)
  const [dashboard, pricing] = await Promise.all([
    getAnalyticsDashboard(db, resolved.range),
    getPricingReport(db, resolved.range),
  ])
  const { from, to } = resolved.range
  return { today, form: { ...form, from, to }, errors: null as RangeErrors | null, dashboard, pricing }
}

export default function Analytics({ loaderData }: Route.ComponentProps) {
  const { today, form, errors, dashboard, pricing } = loaderData
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
          or Global Privacy Control. Days are UTC; today (<FormattedDate value={today} />) is still in
          progress, so its figures are partial.
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
          <AnalyticsFigures dashboard={dashboard} today={today} />
          {pricing ? <PricingReportPanel report={pricing} /> : null}
        </>
      ) : null}
    </section>
  )
}
