import { NavLink, Outlet } from 'react-router'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import type { Route } from './+types/layout'
import { errorPageMeta, privatePageMeta } from '#app/features/seo/meta.ts'

/**
 * Every /admin URL is behind `requireAdmin`: this layout's loader and every admin route's own loader and action
 * call it (tests/integration/admin-guard.test.ts walks app/routes.ts to prove none forgets), and anyone who is
 * not an admin gets the store's ordinary 404 page, rendered in the store's frame as for any unknown URL. Not
 * a middleware: a middleware's error is rendered before the root loader runs, which would show a signed-in
 * customer a signed-out header on /admin only — telling that URL apart from a page that does not exist.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const admin = await requireAdmin({ request, context })
  return { adminEmail: admin.email }
}

export const meta: Route.MetaFunction = ({ error, matches }) =>
  // As routes/not-found.tsx says it, for anyone who is not an admin.
  error ? errorPageMeta() : privatePageMeta('Back office', 'The CodeBook back office.', { matches })

const sections = [
  { to: '/admin', label: 'Overview', end: true },
  { to: '/admin/books', label: 'Books', end: false },
  { to: '/admin/topics', label: 'Topics', end: false },
  { to: '/admin/coupons', label: 'Coupons', end: false },
  { to: '/admin/bundles', label: 'Bundles', end: false },
  { to: '/admin/authors', label: 'Authors', end: false },
  { to: '/admin/orders', label: 'Orders', end: false },
  { to: '/admin/analytics', label: 'Analytics', end: false },
  { to: '/admin/accounts', label: 'Accounts', end: false },
  { to: '/admin/reviews', label: 'Reviews', end: false },
  { to: '/admin/errata', label: 'Errata', end: false },
  { to: '/admin/audit', label: 'Audit log', end: false },
  { to: '/admin/customers', label: 'Customers', end: false },
  { to: '/admin/settings', label: 'Settings', end: false },
  { to: '/admin/tax', label: 'Tax', end: false },
  { to: '/admin/pages', label: 'Site pages', end: false },
]

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `block rounded-md px-3 py-2 text-sm font-medium ${
    isActive
      ? 'bg-blue-700 text-white'
      : 'text-slate-800 hover:bg-slate-100 dark:text-slate-100 dark:hover:bg-gray-800'
  }`

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <div className="mx-auto flex max-w-7xl flex-col gap-6 px-4 py-8 md:flex-row">
      <nav aria-label="Back office" className="md:w-48 md:shrink-0">
        <p className="mb-3 px-3 text-xs text-slate-600 dark:text-slate-300">
          Signed in as <span className="font-medium">{loaderData.adminEmail}</span>
        </p>
        <ul className="flex flex-wrap gap-1 md:flex-col">
          {sections.map((section) => (
            <li key={section.to}>
              <NavLink to={section.to} end={section.end} className={linkClass}>
                {section.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="min-w-0 flex-1">
        <Outlet />
      </div>
    </div>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
