import { requireAdmin } from '#app/features/identity/session.server.ts'
import type { Route } from './+types/orders-export'

// Placeholder: built in issue 12.
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  return new Response('Not built yet', { status: 501 })
}
