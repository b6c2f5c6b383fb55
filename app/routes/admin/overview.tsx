import { Link } from 'react-router'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import type { Route } from './+types/overview'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { TitledSection } from '#app/components/ui/titled-section.tsx'

export const meta: Route.MetaFunction = () => privatePageMeta('Back office', 'The CodeBook back office.')

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  return null
}

const cards = [
  { to: '/admin/books', title: 'Books', text: 'Create, edit, publish new editions, archive.' },
  { to: '/admin/orders', title: 'Orders', text: 'Find orders, refund, export as CSV.' },
  { to: '/admin/analytics', title: 'Analytics', text: 'Revenue, visitors, the funnel, searches.' },
  { to: '/admin/audit', title: 'Audit log', text: 'Every change, who made it and when.' },
]

export default function AdminOverview() {
  return (
    <TitledSection
      id="admin-heading"
      title="Back office"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <ul className="grid gap-4 sm:grid-cols-2">
        {cards.map((card) => (
          <li key={card.to}>
            <Link
              to={card.to}
              className="block rounded-lg border border-slate-200 p-4 hover:border-blue-700 dark:border-gray-700"
            >
              <h2 className="text-lg font-semibold">{card.title}</h2>
              <p className="text-sm text-slate-700 dark:text-slate-300">{card.text}</p>
            </Link>
          </li>
        ))}
      </ul>
    </TitledSection>
  )
}
