import { exportAccountData } from '#app/features/identity/account-deletion.server.ts'
import { requireUser } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/account-export'

/**
 * 'Export my data': the signed-in account's profile, orders, library and sign-in methods as a JSON download
 * (no tokens, no card data beyond brand and last 4). Signed out: to the login page and back here.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const user = await requireUser({ request, context, url: new URL(request.url) })
  const now = new Date()
  const body = await exportAccountData(getAppContext(context).db, user.id, now)
  return new Response(`${JSON.stringify(body, null, 2)}\n`, {
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Disposition': `attachment; filename="codebook-data-${now.toISOString().slice(0, 10)}.json"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
