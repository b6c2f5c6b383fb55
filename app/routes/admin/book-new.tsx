import { requireAdmin } from '#app/features/identity/session.server.ts'
import type { Route } from './+types/book-new'

// Placeholder: built in issue 12.
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  return null
}

export default function Placeholder() {
  return <h1 className="text-2xl font-semibold">New book</h1>
}
