import { analyticsCsv } from '#app/features/analytics/analytics-csv.server.ts'
import { getAnalyticsDashboard } from '#app/features/analytics/dashboard.server.ts'
import { resolveRange } from '#app/features/analytics/range.ts'
import { utcDay } from '#app/features/analytics/visitor.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { csvResponse } from '#app/server/csv.server.ts'
import type { Route } from './+types/analytics-export'

/** The per-day series /admin/analytics shows for the same range, as CSV (amounts in major units). */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const resolved = resolveRange(url.searchParams, utcDay(new Date()))
  if (!resolved.ok)
    return new Response(`${Object.values(resolved.errors).join('\n')}\n`, {
      status: 400,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'private, no-store' },
    })
  const dashboard = await getAnalyticsDashboard(getAppContext(context).db, resolved.range)
  const { from, to } = resolved.range
  return csvResponse(analyticsCsv(dashboard), `codebook-analytics-${from}-to-${to}.csv`)
}
