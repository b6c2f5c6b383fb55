import { Link } from 'react-router'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { listSitePages } from '#app/features/site-pages/site-pages.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/pages'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Site pages — Back office', 'The store’s About, Contact and legal pages.', { matches })

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const pages = await listSitePages(getAppContext(context).db)
  return {
    pages: pages.map((page) => ({
      slug: page.slug,
      title: page.title,
      description: page.description,
      updatedAt: page.updatedAt?.toISOString() ?? null,
    })),
  }
}

export default function SitePages({ loaderData }: Route.ComponentProps) {
  return (
    <TitledSection
      id="pages-heading"
      title="Site pages"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <p className="mb-4 text-slate-700 dark:text-slate-300">
        The pages linked from every page’s footer. Each starts with a text that says what the store does;
        adapt it to your business.
      </p>
      <ul className="grid gap-4 sm:grid-cols-2">
        {loaderData.pages.map((page) => (
          <li key={page.slug} className="rounded-lg border border-slate-200 p-4 dark:border-gray-700">
            <h2 className="text-lg font-semibold">
              <Link to={`/admin/pages/${page.slug}`} className="text-blue-700 underline dark:text-sky-300">
                {page.title}
              </Link>
            </h2>
            <p className="text-sm text-slate-700 dark:text-slate-300">{page.description}</p>
            <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
              {page.updatedAt ? (
                <>
                  Edited <FormattedDate value={page.updatedAt} />
                </>
              ) : (
                'The starting text'
              )}{' '}
              ·{' '}
              <Link to={`/${page.slug}`} className="underline">
                /{page.slug}
              </Link>
            </p>
          </li>
        ))}
      </ul>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
