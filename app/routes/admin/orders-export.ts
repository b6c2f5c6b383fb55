import { parseOrderFilters } from '#app/features/orders/admin-order-filters.server.ts'
import { streamOrdersCsv } from '#app/features/orders/admin-orders.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { csvResponse } from '#app/server/csv.server.ts'
import type { Route } from './+types/orders-export'

/**
 * /admin/orders/export.csv: the orders the same filters show on /admin/orders, every page of them, as a CSV
 * file streamed in keyset batches (never the whole result in memory). Bad filters → 400 naming them.
 */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const parsed = parseOrderFilters(url.searchParams)
  if (!parsed.ok)
    return new Response(
      `These filters are not valid:\n${Object.entries(parsed.errors)
        .map(([field, message]) => `- ${field}: ${message}`)
        .join('\n')}\n`,
      { status: 400, headers: { 'Content-Type': 'text/plain; charset=utf-8' } },
    )
  const today = new Date().toISOString().slice(0, 10)
  return csvResponse(
    streamOrdersCsv(getAppContext(context).db, parsed.filters),
    `codebook-orders-${today}.csv`,
  )
}
