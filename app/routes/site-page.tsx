import { data } from 'react-router'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { Description } from '#app/features/catalog/components/description.tsx'
import { pageMeta } from '#app/features/seo/meta.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { getSitePage, renderSitePageBody } from '#app/features/site-pages/site-pages.server.ts'
import { isSitePageSlug } from '#app/features/site-pages/site-pages.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/site-page'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = (args) =>
  args.loaderData
    ? pageMeta(args, {
        title: args.loaderData.title,
        description: args.loaderData.description,
        path: `/${args.loaderData.slug}`,
        keepParams: [],
      })
    : []

/** About, Contact, Terms, Privacy, Refund policy, Imprint: one route for the six URLs, the page by its path. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const slug = new URL(request.url).pathname.replace(/^\/|\/$|\.data$/g, '').toLowerCase()
  if (!isSitePageSlug(slug)) throw data({ title: 'Page not found' }, { status: 404 })
  const { db } = getAppContext(context)
  const [page, settings] = await Promise.all([getSitePage(db, slug), readStoreSettings(db)])
  return {
    slug,
    title: page.title,
    description: page.description,
    blocks: renderSitePageBody(page.body, settings),
    updatedAt: page.updatedAt?.toISOString() ?? null,
  }
}

export default function SitePage({ loaderData }: Route.ComponentProps) {
  return (
    <article className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-12">
      <SectionHeading level={1}>{loaderData.title}</SectionHeading>
      <Description blocks={loaderData.blocks} />
      {loaderData.updatedAt ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">
          Last updated <FormattedDate value={loaderData.updatedAt} />
        </p>
      ) : null}
    </article>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
