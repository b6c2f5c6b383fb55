import { NavLink, Outlet } from 'react-router'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import type { Route } from './+types/layout'

/**
 * Every /admin URL is behind this: the guard runs before any admin loader or action, and anyone who is not an
 * admin gets the store's ordinary 404.
 */
export const middleware: Route.MiddlewareFunction[] = [
  async ({ request, context }, next) => {
    await requireAdmin({ request, context })
    return next()
  },
]

export async function loader({ request, context }: Route.LoaderArgs) {
  const admin = await requireAdmin({ request, context })
  return { adminEmail: admin.email }
}

export const meta: Route.MetaFunction = ({ error }) => [
  { title: error ? 'Page not found — CodeBook' : 'Back office — CodeBook' },
  { name: 'robots', content: 'noindex' },
]

const sections = [
  { to: '/admin', label: 'Overview', end: true },
  { to: '/admin/books', label: 'Books', end: false },
  { to: '/admin/orders', label: 'Orders', end: false },
  { to: '/admin/analytics', label: 'Analytics', end: false },
  { to: '/admin/audit', label: 'Audit log', end: false },
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
