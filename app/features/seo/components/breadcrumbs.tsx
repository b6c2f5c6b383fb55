import { Link } from 'react-router'
import type { Crumb } from '../breadcrumbs.ts'

/**
 * The trail a page's JSON-LD gives search engines, visible: a list of links, the last one the page itself
 * (`aria-current="page"`, not a link).
 */
export function Breadcrumbs({ trail, className = '' }: { trail: readonly Crumb[]; className?: string }) {
  return (
    <nav aria-label="Breadcrumb" className={`text-sm ${className}`}>
      <ol className="flex flex-wrap items-center gap-x-2 gap-y-1 text-slate-700 dark:text-slate-300">
        {trail.map((crumb, index) => {
          const last = index === trail.length - 1
          return (
            <li key={crumb.path} className="flex min-w-0 items-center gap-2">
              {last ? (
                <span aria-current="page" className="truncate font-medium text-slate-900 dark:text-slate-100">
                  {crumb.name}
                </span>
              ) : (
                <>
                  <Link
                    to={crumb.path}
                    className="text-blue-700 underline-offset-4 hover:underline dark:text-sky-300"
                  >
                    {crumb.name}
                  </Link>
                  <span aria-hidden="true">›</span>
                </>
              )}
            </li>
          )
        })}
      </ol>
    </nav>
  )
}
